#include "e2e/kubesim/server/admin.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

HttpRequest Req(std::string method, std::string path, std::string body = "") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  return r;
}

TEST(AdminTest, PutSetsGivenFieldsAndGetReportsThemWithHistoryWindow) {
  FaultInjector faults;
  size_t window = 100;
  AdminHooks hooks{&faults, [&](size_t w) { window = w; }, [&] { return window; }};
  auto put = HandleAdminRequest(
      Req("PUT", "/kubesim/admin/faults",
          R"({"faultRate":0.5,"faultCodes":[429,409],"latencyMs":5,"watchDropEverySeconds":30,"seed":7,"historyWindow":42})"),
      hooks);
  ASSERT_TRUE(put.has_value());
  EXPECT_EQ(put->response.status, 200);
  EXPECT_EQ(window, 42u);
  FaultConfig c = faults.GetConfig();
  EXPECT_EQ(c.fault_rate, 0.5);
  EXPECT_EQ(c.fault_codes, (std::vector<int>{429, 409}));
  EXPECT_EQ(c.latency.count(), 5);
  EXPECT_EQ(c.watch_drop_every.count(), 30);
  EXPECT_EQ(c.seed, 7u);

  auto get = HandleAdminRequest(Req("GET", "/kubesim/admin/faults"), hooks);
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->response.body,
            R"({"faultRate":0.5,"faultCodes":[429,409],"latencyMs":5,"watchDropEverySeconds":30,"seed":7,"historyWindow":42,"injectedFaults":{}})");
  // The GET body can be PUT back: the read-only counters are ignored.
  auto back = HandleAdminRequest(Req("PUT", "/kubesim/admin/faults", get->response.body), hooks);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->response.status, 200) << back->response.body;

  // A partial PUT keeps the other fields.
  auto partial = HandleAdminRequest(Req("PUT", "/kubesim/admin/faults", R"({"faultRate":0})"), hooks);
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(faults.GetConfig().fault_rate, 0.0);
  EXPECT_EQ(faults.GetConfig().seed, 7u);
}

TEST(AdminTest, MalformedOrInvalidBodiesGet400AndChangeNothing) {
  FaultInjector faults;
  AdminHooks hooks{&faults, nullptr, nullptr};
  for (const char* body :
       {"", "{", "[]", R"({"faultRate":1.5})", R"({"faultRate":"high"})", R"({"faultCodes":[200]})",
        R"({"faultCodes":[600]})", R"({"faultCodes":[]})", R"({"latencyMs":-1})", R"({"seed":-3})", R"({"fautRate":0.1})",
        R"({"historyWindow":0})", R"({"historyWindow":5})"}) {
    auto r = HandleAdminRequest(Req("PUT", "/kubesim/admin/faults", body), hooks);
    ASSERT_TRUE(r.has_value()) << body;
    EXPECT_EQ(r->response.status, 400) << body;
    auto doc = json::Parse(r->response.body);
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(json::GetString(*doc, {"reason"}), "BadRequest") << body;
  }
  EXPECT_EQ(faults.GetConfig().fault_rate, 0.0);
  EXPECT_EQ(faults.GetConfig().fault_codes.size(), 3u);
}

TEST(AdminTest, RestartNeedsPostAndOtherPathsAreNotHandled) {
  FaultInjector faults;
  AdminHooks hooks{&faults, nullptr, nullptr};
  auto ok = HandleAdminRequest(Req("POST", "/kubesim/admin/restart"), hooks);
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->restart);
  EXPECT_EQ(ok->response.status, 200);
  auto wrong = HandleAdminRequest(Req("GET", "/kubesim/admin/restart"), hooks);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_FALSE(wrong->restart);
  EXPECT_EQ(wrong->response.status, 405);
  EXPECT_EQ(HandleAdminRequest(Req("DELETE", "/kubesim/admin/faults"), hooks)->response.status, 405);
  EXPECT_FALSE(HandleAdminRequest(Req("GET", "/kubesim/admin/objects"), hooks).has_value());
}

TEST(AdminTest, FaultTargetsAreSetReportedClearedAndValidated) {
  FaultInjector faults;
  AdminHooks hooks{&faults, nullptr, nullptr};
  auto put = HandleAdminRequest(
      Req("PUT", "/kubesim/admin/faults", R"({"faultTargets":["POST:pods/binding","reservations/status"]})"), hooks);
  ASSERT_TRUE(put.has_value());
  EXPECT_EQ(put->response.status, 200) << put->response.body;
  ASSERT_EQ(faults.GetConfig().targets.size(), 2u);
  EXPECT_EQ(faults.GetConfig().targets[0], (FaultTarget{"POST", "pods", "binding"}));
  EXPECT_EQ(faults.GetConfig().targets[1], (FaultTarget{"", "reservations", "status"}));
  auto get = HandleAdminRequest(Req("GET", "/kubesim/admin/faults"), hooks);
  ASSERT_TRUE(get.has_value());
  EXPECT_NE(get->response.body.find(R"("faultTargets":["POST:pods/binding","reservations/status"])"),
            std::string::npos)
      << get->response.body;

  for (const char* body : {R"({"faultTargets":"pods"})", R"({"faultTargets":[1]})", R"({"faultTargets":["FETCH:pods"]})",
                           R"({"faultTargets":["Pods"]})", R"({"faultTargets":["pods/a/b"]})", R"({"faultTargets":[""]})"}) {
    auto r = HandleAdminRequest(Req("PUT", "/kubesim/admin/faults", body), hooks);
    ASSERT_TRUE(r.has_value()) << body;
    EXPECT_EQ(r->response.status, 400) << body;
  }
  EXPECT_EQ(faults.GetConfig().targets.size(), 2u) << "a rejected PUT changes nothing";

  auto cleared = HandleAdminRequest(Req("PUT", "/kubesim/admin/faults", R"({"faultTargets":[]})"), hooks);
  ASSERT_TRUE(cleared.has_value());
  EXPECT_TRUE(faults.GetConfig().targets.empty());
  EXPECT_EQ(cleared->response.body.find("faultTargets"), std::string::npos);
}

}  // namespace
}  // namespace berth::kubesim
