#include "e2e/kubesim/sim/replicaset_controller.h"

#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace berth::kubesim {
namespace {

using testing::SimHarness;

std::string ReplicaSet(const std::string& name, int replicas, int min_ready = 0) {
  return R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":)" + std::to_string(replicas) + R"(,"minReadySeconds":)" + std::to_string(min_ready) +
         R"(,"selector":{"matchLabels":{"app":")" + name + R"("}},"template":{"metadata":{"labels":{"app":")" + name +
         R"(","tier":"web"},"annotations":{"note":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})";
}

int64_t StatusInt(const rapidjson::Value& rs, const char* field) {
  const rapidjson::Value* v = json::Find(rs, {"status", field});
  return v && v->IsInt64() ? v->GetInt64() : 0;
}

std::vector<std::string> ActivePodNames(SimHarness& h) {
  std::vector<std::string> names;
  for (const auto& p : h.Pods()) {
    if (json::Find(p, {"metadata", "deletionTimestamp"})) continue;
    std::string_view phase = json::GetString(p, {"status", "phase"});
    if (phase == "Failed" || phase == "Succeeded") continue;
    names.emplace_back(json::GetString(p, {"metadata", "name"}));
  }
  return names;
}

void Scale(SimHarness& h, const std::string& name, int replicas) {
  ASSERT_TRUE(h.Edit("apps", "replicasets", "default", name, "", [&](rapidjson::Document& d) {
    json::SetMember(d["spec"], "replicas", rapidjson::Value(replicas), d.GetAllocator());
  }));
}

TEST(ReplicaSetControllerTest, CreatesSpecReplicasPodsFromTheTemplateWithGeneratedNamesAndAControllerRef) {
  SimHarness h;
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 3));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "replicas") == 3; }));
  auto rs = h.Get("apps/replicasets", "default", "web");
  auto pods = h.Pods();
  ASSERT_EQ(pods.size(), 3u);
  std::regex name_re("web-[bcdfghjklmnpqrstvwxz2456789]{5}");
  for (const auto& p : pods) {
    EXPECT_TRUE(std::regex_match(std::string(json::GetString(p, {"metadata", "name"})), name_re));
    EXPECT_EQ(json::GetString(p, {"metadata", "generateName"}), "web-");
    EXPECT_EQ(json::GetString(p, {"metadata", "labels", "tier"}), "web");
    EXPECT_EQ(json::GetString(p, {"metadata", "annotations", "note"}), "x");
    const rapidjson::Value& ref = p["metadata"]["ownerReferences"][0];
    EXPECT_EQ(json::GetString(ref, {"kind"}), "ReplicaSet");
    EXPECT_EQ(json::GetString(ref, {"apiVersion"}), "apps/v1");
    EXPECT_EQ(json::GetString(ref, {"uid"}), json::GetString(rs, {"metadata", "uid"}));
    EXPECT_TRUE(ref["controller"].GetBool());
    EXPECT_TRUE(ref["blockOwnerDeletion"].GetBool());
    EXPECT_EQ(json::GetString(p["spec"]["containers"][0], {"image"}), "nginx");
  }
  auto events = h.EventMessages("ReplicaSet", "web");
  ASSERT_EQ(events.size(), 3u);
  for (const auto& p : pods) {
    EXPECT_NE(std::find(events.begin(), events.end(), "SuccessfulCreate: Created pod: " + std::string(json::GetString(p, {"metadata", "name"}))),
              events.end());
  }
  EXPECT_EQ(StatusInt(rs, "fullyLabeledReplicas"), 3);
  EXPECT_EQ(StatusInt(rs, "observedGeneration"), 1);
  EXPECT_FALSE(json::Find(rs, {"status", "readyReplicas"}));  // omitted while zero
}

TEST(ReplicaSetControllerTest, ScalingDownDeletesUnscheduledPodsBeforeRunningOnes) {
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 3));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 3; }));
  auto names = ActivePodNames(h);
  h.Bind("default", names[0], "node-1");
  h.Bind("default", names[1], "node-1");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "readyReplicas") == 2; }));
  Scale(h, "web", 2);
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ActivePodNames(h).size() == 2; }));
  auto left = ActivePodNames(h);
  auto events = h.EventMessages("ReplicaSet", "web");
  EXPECT_NE(std::find(events.begin(), events.end(), "SuccessfulDelete: Deleted pod: " + names[2]), events.end());
  EXPECT_EQ(std::set<std::string>(left.begin(), left.end()), (std::set<std::string>{names[0], names[1]}));
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    auto rs = h.Get("apps/replicasets", "default", "web");
    return StatusInt(rs, "replicas") == 2 && StatusInt(rs, "observedGeneration") == 2;
  }));
}

TEST(ReplicaSetControllerTest, ScalingDownPrefersPendingAndNotReadyPodsOverReadyOnes) {
  SimHarness h(ClusterSimOptions{false, {}, {}});  // no kubelet: the test sets pod status itself
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 2));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  auto names = ActivePodNames(h);
  for (const auto& n : names) h.Bind("default", n, "node-1");
  ASSERT_TRUE(h.Edit("", "pods", "default", names[1], "status", [&](rapidjson::Document& d) {
    auto& a = d.GetAllocator();
    auto doc = json::Parse(R"({"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]})");
    json::SetMember(d, "status", rapidjson::Value(*doc, a), a);
  }));
  Scale(h, "web", 1);
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ActivePodNames(h).size() == 1; }));
  EXPECT_EQ(ActivePodNames(h)[0], names[1]);
}

TEST(ReplicaSetControllerTest, ScalingDownDeletesTheLowestPodDeletionCostFirst) {
  SimHarness h;
  for (const char* n : {"node-1", "node-2", "node-3", "node-4"}) h.AddNode(n);
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 4));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 4; }));
  auto names = ActivePodNames(h);
  // One pod per node so node crowding does not decide; costs 30, -7, 0, 5.
  const char* costs[] = {"30", "-7", "0", "5"};
  for (size_t i = 0; i < names.size(); ++i) {
    h.Bind("default", names[i], "node-" + std::to_string(i + 1));
    ASSERT_TRUE(h.Edit("", "pods", "default", names[i], "", [&](rapidjson::Document& d) {
      auto& a = d.GetAllocator();
      json::SetString(json::EnsureObject(d["metadata"], "annotations", a), "controller.kubernetes.io/pod-deletion-cost",
                      costs[i], a);
    }));
  }
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "readyReplicas") == 4; }));
  Scale(h, "web", 2);
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ActivePodNames(h).size() == 2; }));
  auto left = ActivePodNames(h);
  EXPECT_EQ(std::set<std::string>(left.begin(), left.end()), (std::set<std::string>{names[0], names[3]}));
}

TEST(ReplicaSetControllerTest, ScalingDownTakesPodsFromTheMostCrowdedNodeFirst) {
  SimHarness h;
  h.AddNode("node-1");
  h.AddNode("node-2");
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 3));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 3; }));
  auto names = ActivePodNames(h);
  h.Bind("default", names[0], "node-1");
  h.Bind("default", names[1], "node-2");
  h.Bind("default", names[2], "node-2");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "readyReplicas") == 3; }));
  Scale(h, "web", 2);
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ActivePodNames(h).size() == 2; }));
  auto left = ActivePodNames(h);
  EXPECT_TRUE(std::find(left.begin(), left.end(), names[0]) != left.end());  // alone on node-1: kept
}

TEST(ReplicaSetControllerTest, ReplacesDeletedPodsAndPodsThatFailed) {
  SimHarness h;
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 2));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  auto names = ActivePodNames(h);
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("", "pods"), "default", names[0], DeleteOptions{}).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    auto now = ActivePodNames(h);
    return now.size() == 2 && std::find(now.begin(), now.end(), names[0]) == now.end();
  }));
  ASSERT_TRUE(h.Edit("", "pods", "default", names[1], "status", [&](rapidjson::Document& d) {
    json::SetString(d["status"], "phase", "Failed", d.GetAllocator());
  }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ActivePodNames(h).size() == 2 && h.Pods().size() == 3; }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "replicas") == 2; }));
}

// Asserts the invariant, not a wall-clock window: availableReplicas may only count the pod once it
// has been Ready (by its condition's lastTransitionTime, whole seconds) for minReadySeconds. A busy
// CI machine can observe readiness late, so "available is still 0 right after ready" is only
// checked on reads that returned before the pod could be available.
TEST(ReplicaSetControllerTest, AvailableReplicasWaitForMinReadySeconds) {
  constexpr int kMinReadySeconds = 2;
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 1, kMinReadySeconds));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 1; }));
  const std::string pod = ActivePodNames(h)[0];
  h.Bind("default", pod, "node-1");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "readyReplicas") == 1; }));
  std::optional<shim::TimePoint> ready_since = workload::ReadySince(h.Get("/pods", "default", pod));
  ASSERT_TRUE(ready_since.has_value());
  const shim::TimePoint available_from = *ready_since + std::chrono::seconds(kMinReadySeconds);

  // A read that returned before available_from saw a status written before it.
  for (;;) {
    int64_t available = StatusInt(h.Get("apps/replicasets", "default", "web"), "availableReplicas");
    if (std::chrono::system_clock::now() >= available_from) break;
    EXPECT_EQ(available, 0) << "available before minReadySeconds elapsed";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // sampling an interval, not synchronising
  }
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "availableReplicas") == 1; }));
}

TEST(ReplicaSetControllerTest, PodsOfOtherControllersAreLeftAlone) {
  SimHarness h;
  h.Create("", "pods", "default",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"stray","labels":{"app":"web","tier":"web"}},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 1));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return StatusInt(h.Get("apps/replicasets", "default", "web"), "replicas") == 1; }));
  EXPECT_FALSE(json::Find(h.Get("/pods", "default", "stray"), {"metadata", "ownerReferences"}));
}

TEST(ReplicaSetControllerTest, DeletingTheReplicaSetRemovesItsPods) {
  SimHarness h;
  h.Create("apps", "replicasets", "default", ReplicaSet("web", 2));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("apps", "replicasets"), "default", "web", DeleteOptions{}).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().empty(); }));
}

}  // namespace
}  // namespace berth::kubesim
