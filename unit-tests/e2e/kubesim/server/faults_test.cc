#include "e2e/kubesim/server/faults.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

HttpRequest Req(std::string method, std::string path) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  return r;
}

std::vector<int> Sequence(FaultInjector& f, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    auto r = f.MaybeFail(Req(i % 2 ? "PUT" : "GET", "/api/v1/namespaces/ns/pods/p"));
    out.push_back(r ? r->status : 0);
  }
  return out;
}

TEST(FaultInjectorTest, RateZeroNeverFailsAndRateOneAlwaysFails) {
  FaultInjector none(FaultConfig{.fault_rate = 0.0});
  FaultInjector all(FaultConfig{.fault_rate = 1.0, .fault_codes = {429}});
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(none.MaybeFail(Req("GET", "/api/v1/pods")).has_value());
    auto r = all.MaybeFail(Req("GET", "/api/v1/pods"));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 429);
  }
}

TEST(FaultInjectorTest, SameSeedGivesTheSameSequenceAndOtherSeedsDiffer) {
  FaultConfig cfg{.fault_rate = 0.5, .seed = 42};
  FaultInjector a(cfg), b(cfg);
  auto sa = Sequence(a, 200);
  EXPECT_EQ(sa, Sequence(b, 200));
  cfg.seed = 43;
  FaultInjector c(cfg);
  EXPECT_NE(sa, Sequence(c, 200));
  int failures = 0;
  for (int s : sa) failures += s != 0;
  EXPECT_GT(failures, 50);
  EXPECT_LT(failures, 150);
  // SetConfig reseeds: the sequence restarts.
  a.SetConfig(FaultConfig{.fault_rate = 0.5, .seed = 42});
  EXPECT_EQ(sa, Sequence(a, 200));
}

TEST(FaultInjectorTest, InjectedCountsAreKeptByTheCodeActuallySent) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {409}});
  EXPECT_TRUE(f.InjectedCounts().empty());
  for (int i = 0; i < 3; ++i) f.MaybeFail(Req("PUT", "/api/v1/namespaces/ns/pods/p"));
  f.MaybeFail(Req("GET", "/api/v1/pods"));  // a read's 409 is sent as 500
  f.MaybeFail(Req("GET", "/healthz"));      // exempt: not counted
  EXPECT_EQ(f.InjectedCounts(), (std::map<int, uint64_t>{{409, 3}, {500, 1}}));
  f.SetConfig(FaultConfig{.fault_rate = 0.0});
  f.MaybeFail(Req("GET", "/api/v1/pods"));
  EXPECT_EQ(f.InjectedCounts(), (std::map<int, uint64_t>{{409, 3}, {500, 1}}));
}

TEST(FaultInjectorTest, AdminAndHealthPathsAreNeverFailed) {
  FaultInjector all(FaultConfig{.fault_rate = 1.0});
  for (const char* p : {"/kubesim/admin/faults", "/healthz", "/readyz", "/livez", "/livez/ping"}) {
    EXPECT_FALSE(all.MaybeFail(Req("GET", p)).has_value()) << p;
  }
  EXPECT_TRUE(all.MaybeFail(Req("GET", "/healthzz")).has_value());
  EXPECT_TRUE(all.MaybeFail(Req("GET", "/version")).has_value());
}

TEST(FaultInjectorTest, ConflictOnlyForWritesReadsGetInternalError) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {409}});
  auto read = f.MaybeFail(Req("GET", "/apis/apps/v1/namespaces/ns/deployments/web"));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->status, 500);
  auto body = json::Parse(read->body);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::GetString(*body, {"reason"}), "InternalError");
  EXPECT_EQ(json::GetString(*body, {"message"}), "Internal error occurred: injected fault");

  auto write = f.MaybeFail(Req("PUT", "/apis/apps/v1/namespaces/ns/deployments/web"));
  ASSERT_TRUE(write.has_value());
  EXPECT_EQ(write->status, 409);
  auto wbody = json::Parse(write->body);
  ASSERT_TRUE(wbody.has_value());
  EXPECT_EQ(json::GetString(*wbody, {"reason"}), "Conflict");
  EXPECT_EQ(json::GetString(*wbody, {"message"}),
            "Operation cannot be fulfilled on deployments.apps \"web\": the object has been "
            "modified; please apply your changes to the latest version and try again");
  EXPECT_EQ(json::GetString(*wbody, {"details", "name"}), "web");
  EXPECT_EQ(json::GetString(*wbody, {"details", "kind"}), "deployments");
}

TEST(FaultInjectorTest, TooManyRequestsCarriesRetryAfterHeaderAndDetails) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {429}});
  auto r = f.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods/p/eviction"));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->headers.size(), 1u);
  EXPECT_EQ(r->headers[0].first, "Retry-After");
  EXPECT_EQ(r->headers[0].second, "1");
  auto body = json::Parse(r->body);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::GetString(*body, {"reason"}), "TooManyRequests");
  EXPECT_EQ(json::GetString(*body, {"message"}),
            "the server has received too many requests and has asked us to try again later");
  const json::Value* retry = json::Find(*body, {"details", "retryAfterSeconds"});
  ASSERT_NE(retry, nullptr);
  EXPECT_EQ(retry->GetInt(), 1);
  EXPECT_EQ(json::Find(*body, {"code"})->GetInt(), 429);
}

TEST(FaultInjectorTest, ConfigRoundTripsAndWatchDropEveryIsExposed) {
  FaultInjector f;
  EXPECT_EQ(f.GetConfig().fault_codes, (std::vector<int>{500, 429, 409}));
  f.SetConfig(FaultConfig{.fault_rate = 0.25, .fault_codes = {500},
                          .latency = std::chrono::milliseconds(3),
                          .watch_drop_every = std::chrono::seconds(7), .seed = 9});
  EXPECT_EQ(f.WatchDropEvery(), std::chrono::seconds(7));
  EXPECT_EQ(f.GetConfig().fault_rate, 0.25);
  EXPECT_EQ(f.GetConfig().latency, std::chrono::milliseconds(3));
  EXPECT_EQ(f.GetConfig().seed, 9u);
}

TEST(FaultTargetTest, ParsesMethodResourceAndSubresourceAndRejectsTheRest) {
  auto t = ParseFaultTarget("POST:pods/binding");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(*t, (FaultTarget{"POST", "pods", "binding"}));
  EXPECT_EQ(FormatFaultTarget(*t), "POST:pods/binding");
  t = ParseFaultTarget("reservations");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, (FaultTarget{"", "reservations", ""}));
  EXPECT_EQ(FormatFaultTarget(*t), "reservations");
  for (const char* bad : {"", ":pods", "post:pods", "FETCH:pods", "Pods", "pods/", "/binding", "pods/a/b",
                          "POST:", "pods binding", "POST:pods:binding"}) {
    auto r = ParseFaultTarget(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r) EXPECT_NE(r.error().message.find("fault target"), std::string::npos) << r.error().message;
  }
}

TEST(FaultTargetTest, OnlyMatchingRequestsFailAndDrawFromTheGenerator) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {409}, .targets = {{"POST", "pods", "binding"}}});
  EXPECT_TRUE(f.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods/p/binding")).has_value());
  EXPECT_FALSE(f.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods")).has_value()) << "pod create";
  EXPECT_FALSE(f.MaybeFail(Req("PATCH", "/api/v1/namespaces/ns/pods/p/status")).has_value());
  EXPECT_FALSE(f.MaybeFail(Req("GET", "/api/v1/namespaces/ns/pods/p/binding")).has_value()) << "other method";
  EXPECT_FALSE(f.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods/p/eviction")).has_value());
  EXPECT_FALSE(f.MaybeFail(Req("POST", "/apis/scheduling.koordinator.sh/v1alpha1/reservations")).has_value());

  // A status target matches cluster-scoped and namespaced objects; namespaces' own status too.
  FaultInjector s(FaultConfig{.fault_rate = 1.0, .fault_codes = {500},
                              .targets = {{"", "reservations", "status"}, {"", "namespaces", "status"}}});
  EXPECT_TRUE(s.MaybeFail(Req("PUT", "/apis/scheduling.koordinator.sh/v1alpha1/reservations/r/status")).has_value());
  EXPECT_FALSE(s.MaybeFail(Req("PUT", "/apis/scheduling.koordinator.sh/v1alpha1/reservations/r")).has_value());
  EXPECT_TRUE(s.MaybeFail(Req("PUT", "/api/v1/namespaces/ns/status")).has_value());
  EXPECT_FALSE(s.MaybeFail(Req("PUT", "/api/v1/namespaces/ns")).has_value());
  EXPECT_FALSE(s.MaybeFail(Req("GET", "/healthz")).has_value());

  // Untargeted requests draw nothing: the targeted sequence is the same with or without them.
  FaultConfig half{.fault_rate = 0.5, .seed = 3, .targets = {{"POST", "pods", "binding"}}};
  FaultInjector quiet(half), noisy(half);
  std::vector<int> a, b;
  for (int i = 0; i < 100; ++i) {
    auto q = quiet.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods/p/binding"));
    a.push_back(q ? q->status : 0);
    noisy.MaybeFail(Req("GET", "/api/v1/pods"));
    auto n = noisy.MaybeFail(Req("POST", "/api/v1/namespaces/ns/pods/p/binding"));
    b.push_back(n ? n->status : 0);
  }
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace berth::kubesim
