// /healthz and /readyz bodies (probes.h): ?verbose gives each failed check's reason, like
// kube-apiserver's [+]/[-] list; without it the reason stays withheld (controller-runtime).
#include "clientgo-shim/metrics/probes.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

HttpServerRequest Request(bool verbose) {
  HttpServerRequest r;
  r.method = "GET";
  r.path = "/readyz";
  if (verbose) r.query["verbose"] = "";
  return r;
}

TEST(ProbesVerboseTest, VerboseNamesEachFailedCheckAndWhy) {
  HealthChecks checks;
  checks.AddCheck("ping", PingCheck);
  checks.AddCheck("informer-sync", [] {
    return Status(MakeError(ErrorCode::kInternal,
                            "informer /api/v1/pods has not synced: last list error: Unauthorized "
                            "(4 list/watch errors)"));
  });
  checks.AddCheck("scheduler-sync",
                  [] { return Status(MakeError(ErrorCode::kInternal, "the scheduler cache has not synced")); });
  HttpServerReply r = checks.Serve(Request(true), "");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.body,
            "[-]informer-sync failed: informer /api/v1/pods has not synced: last list error: "
            "Unauthorized (4 list/watch errors)\n"
            "[+]ping ok\n"
            "[-]scheduler-sync failed: the scheduler cache has not synced\n"
            "healthz check failed\n");
}

TEST(ProbesVerboseTest, WithoutVerboseTheReasonIsWithheld) {
  HealthChecks checks;
  checks.AddCheck("informer-sync", [] { return Status(MakeError(ErrorCode::kInternal, "secret")); });
  HttpServerReply r = checks.Serve(Request(false), "");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[-]informer-sync failed: reason withheld\nhealthz check failed\n");
}

TEST(ProbesVerboseTest, AMultiLineOrEmptyReasonStaysOnOneLine) {
  HealthChecks checks;
  checks.AddCheck("a", [] { return Status(MakeError(ErrorCode::kInternal, "line one\nline two\r")); });
  checks.AddCheck("b", [] { return Status(MakeError(ErrorCode::kInternal, "")); });
  HttpServerReply r = checks.Serve(Request(true), "");
  EXPECT_EQ(r.body, "[-]a failed: line one line two \n[-]b failed: unknown reason\nhealthz check failed\n");
}

TEST(ProbesVerboseTest, VerboseOnSuccessListsEveryCheck) {
  HealthChecks checks;
  checks.AddCheck("informer-sync", PingCheck);
  checks.AddCheck("ping", PingCheck);
  HttpServerReply r = checks.Serve(Request(true), "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "[+]informer-sync ok\n[+]ping ok\nhealthz check passed\n");
}

}  // namespace
}  // namespace berth::shim
