// ObjectClient and condition helpers against an in-process kubesim over HTTPS.
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/client/conditions.h"
#include "clientgo-shim/client/object_client.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using kubesim::KubesimInstance;
using kubesim::KubesimOptions;

TimePoint Now() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

// apps/v1 DeploymentCondition has no observedGeneration field (kubesim decodes strictly).
Condition DeploymentCondition(std::string status, std::string reason, std::string message) {
  Condition c{"Available", std::move(status), std::move(reason), std::move(message)};
  c.record_observed_generation = false;
  return c;
}

// The tests write Deployment status themselves, so kubesim's Deployment controller stays off:
// its own status writes would race with theirs.
KubesimOptions WithoutWorkloadControllers() {
  KubesimOptions options;
  options.cluster.workload_controllers = false;
  return options;
}

struct Sim {
  KubesimInstance sim{WithoutWorkloadControllers()};
  std::shared_ptr<HttpsRestClient> rest;
  Sim() {
    auto port = sim.Start();
    EXPECT_TRUE(port);
    rest = testing::ClientFor(sim);
  }
  ~Sim() { sim.Stop(); }
};

TEST(ClientWritesTest, TwoRacingWritersBothLandThroughConflictRetry) {
  Sim s;
  ObjectClient client(s.rest);
  ResourceRef ref{.resource = "configmaps", .ns = "default", .name = "counter"};
  auto cm = json::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"counter"},)"
                        R"("data":{"n":"0"}})");
  ASSERT_TRUE(client.Create(ref, *cm));
  std::atomic<int> conflicts{0};
  auto increment = [&](json::Document& d) -> Result<bool> {
    const int n = std::stoi(std::string(json::GetString(d, {"data", "n"}, "0")));
    json::SetString(d["data"], "n", std::to_string(n + 1), d.GetAllocator());
    return true;
  };
  auto writer = [&] {
    for (int i = 0; i < 15; ++i) {
      auto r = client.UpdateWithRetry(ref, increment, {},
                                      {.steps = 200, .delay = std::chrono::milliseconds(1)});
      if (!r) ADD_FAILURE() << r.error().message;
    }
  };
  // Count conflicts the server returned, via a raw PUT race first: two stale writes, one wins.
  auto a = client.Get(ref);
  auto b = client.Get(ref);
  ASSERT_TRUE(a && b);
  json::SetString((*a)["data"], "n", "100", a->GetAllocator());  // a real change: no-op PUTs do not move the RV
  ASSERT_TRUE(client.Update(ref, *a));
  auto stale = client.Update(ref, *b);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::kConflict);
  EXPECT_EQ(stale.error().http_status, 409);

  std::thread t1(writer), t2(writer);
  t1.join();
  t2.join();
  auto final_cm = client.Get(ref);
  ASSERT_TRUE(final_cm);
  EXPECT_EQ(json::GetString(*final_cm, {"data", "n"}), "130") << "no increment may be lost";
}

TEST(ClientWritesTest, StatusWritesLeaveGenerationAndSpecAloneAndConditionsKeepTransitionTime) {
  Sim s;
  ObjectClient client(s.rest);
  ResourceRef ref{.group = "apps", .resource = "deployments", .ns = "default", .name = "web"};
  auto deploy = json::Parse(
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{)"
      R"("replicas":0,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)"
      R"({"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}})");
  auto created = client.Create(ref, *deploy);
  ASSERT_TRUE(created) << created.error().message;
  ASSERT_EQ((*created)["metadata"]["generation"].GetInt64(), 1);

  const TimePoint t0 = Now();
  auto with_status = client.UpdateWithRetry(
      ref,
      [&](json::Document& d) -> Result<bool> {
        bool changed = SetStatusCondition(d, DeploymentCondition("False", "Scaling", "0/1"), t0);
        changed |= SetObservedGeneration(d);
        (*json::FindMutable(d, {"spec"}))["replicas"].SetInt(5);  // must be ignored by /status
        return changed;
      },
      "status");
  ASSERT_TRUE(with_status) << with_status.error().message;
  EXPECT_EQ((*with_status)["metadata"]["generation"].GetInt64(), 1);
  EXPECT_EQ((*with_status)["spec"]["replicas"].GetInt(), 0);
  EXPECT_EQ((*with_status)["status"]["observedGeneration"].GetInt64(), 1);
  const std::string first_transition(
      json::GetString(*FindStatusCondition(*with_status, "Available"), {"lastTransitionTime"}));
  EXPECT_EQ(first_transition, FormatTimestamp(t0));

  // Same status, new message an hour later: no transition.
  auto same = client.UpdateWithRetry(
      ref,
      [&](json::Document& d) -> Result<bool> {
        return SetStatusCondition(d, DeploymentCondition("False", "Scaling", "0/2"),
                                  t0 + std::chrono::hours(1));
      },
      "status");
  ASSERT_TRUE(same);
  const json::Value* c = FindStatusCondition(*same, "Available");
  EXPECT_EQ(json::GetString(*c, {"message"}), "0/2");
  EXPECT_EQ(json::GetString(*c, {"lastTransitionTime"}), first_transition);

  // A spec change moves generation; observedGeneration follows only when we say so.
  auto patch = json::Parse(R"({"spec":{"replicas":2}})");
  auto patched = client.MergePatch(ref, *patch);
  ASSERT_TRUE(patched) << patched.error().message;
  EXPECT_EQ((*patched)["metadata"]["generation"].GetInt64(), 2);
  EXPECT_EQ((*patched)["status"]["observedGeneration"].GetInt64(), 1);
  auto flipped = client.UpdateWithRetry(
      ref,
      [&](json::Document& d) -> Result<bool> {
        bool changed = SetStatusCondition(d, DeploymentCondition("True", "Ready", "2/2"),
                                          t0 + std::chrono::hours(2));
        return SetObservedGeneration(d) || changed;
      },
      "status");
  ASSERT_TRUE(flipped);
  EXPECT_EQ((*flipped)["status"]["observedGeneration"].GetInt64(), 2);
  EXPECT_EQ(json::GetString(*FindStatusCondition(*flipped, "Available"), {"lastTransitionTime"}),
            FormatTimestamp(t0 + std::chrono::hours(2)));
  EXPECT_EQ(json::Find(*FindStatusCondition(*flipped, "Available"), {"observedGeneration"}), nullptr)
      << "DeploymentCondition has no observedGeneration";
}

TEST(ClientWritesTest, NotFoundAndAlreadyExistsComeBackTyped) {
  Sim s;
  ObjectClient client(s.rest);
  ResourceRef ref{.resource = "configmaps", .ns = "default", .name = "missing"};
  auto got = client.Get(ref);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kNotFound);
  auto cm = json::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"missing"}})");
  ASSERT_TRUE(client.Create(ref, *cm));
  auto again = client.Create(ref, *cm);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  ASSERT_TRUE(client.Delete(ref));
  EXPECT_EQ(client.Delete(ref).error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace berth::shim
