#include "e2e/kubesim/sim/default_scheduler.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace berth::kubesim {
namespace {

using testing::SimHarness;

ClusterSimOptions WithDefaultScheduler() {
  ClusterSimOptions o;
  o.default_scheduler = true;
  return o;
}

void AddNode(SimHarness& h, const std::string& name, const std::string& cpu) {
  h.Create("", "nodes", "", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                                R"("},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":"8Gi","pods":"110"}}})");
}

void AddPod(SimHarness& h, const std::string& name, const std::string& cpu, const std::string& scheduler = "") {
  h.Create("", "pods", "default",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"("},"spec":{)" +
               (scheduler.empty() ? "" : R"("schedulerName":")" + scheduler + R"(",)") +
               R"("containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":")" + cpu + R"("}}}]}})");
}

std::string Condition(SimHarness& h, const std::string& pod, const std::string& field) {
  auto d = h.Get("/pods", "default", pod);
  if (const auto* cs = json::Find(d, {"status", "conditions"}); cs && cs->IsArray()) {
    for (const auto& c : cs->GetArray()) {
      if (json::GetString(c, {"type"}) == "PodScheduled") return std::string(json::GetString(c, {field}));
    }
  }
  return "";
}

TEST(DefaultSchedulerTest, BindsByFitRecordsScheduledAndTheKubeletRunsThePod) {
  SimHarness h(WithDefaultScheduler());
  AddNode(h, "node-a", "1");
  AddNode(h, "node-b", "4");
  AddPod(h, "web", "2");  // schedulerName defaults to default-scheduler
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    return json::GetString(h.Get("/pods", "default", "web"), {"status", "phase"}) == "Running";
  }));
  EXPECT_EQ(json::GetString(h.Get("/pods", "default", "web"), {"spec", "nodeName"}), "node-b");
  EXPECT_EQ(Condition(h, "web", "status"), "True");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return !h.EventMessages("Pod", "web").empty(); }));
  EXPECT_EQ(h.EventMessages("Pod", "web"),
            std::vector<std::string>{"Scheduled: Successfully assigned default/web to node-b"});
}

TEST(DefaultSchedulerTest, UnfitPodStaysPendingUntilANodeFreesUp) {
  SimHarness h(WithDefaultScheduler());
  AddNode(h, "node-a", "2");
  AddPod(h, "first", "1500m");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return !json::GetString(h.Get("/pods", "default", "first"), {"spec", "nodeName"}).empty(); }));
  AddPod(h, "second", "1");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Condition(h, "second", "reason") == "Unschedulable"; }));
  EXPECT_EQ(Condition(h, "second", "status"), "False");
  EXPECT_EQ(Condition(h, "second", "message"), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_TRUE(json::GetString(h.Get("/pods", "default", "second"), {"spec", "nodeName"}).empty());
  ASSERT_TRUE(SimHarness::WaitFor([&] { return !h.EventMessages("Pod", "second").empty(); }));
  EXPECT_EQ(h.EventMessages("Pod", "second"),
            std::vector<std::string>{"FailedScheduling: 0/1 nodes are available: 1 Insufficient cpu."});
  // Deleting the first pod frees the node (the kubelet finishes the deletion) and the second lands.
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("", "pods"), "default", "first", DeleteOptions{}).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    return json::GetString(h.Get("/pods", "default", "second"), {"spec", "nodeName"}) == "node-a";
  }));
  EXPECT_EQ(Condition(h, "second", "status"), "True");
  // One FailedScheduling only: retries with the same message do not repeat it.
  auto events = h.EventMessages("Pod", "second");
  EXPECT_EQ(std::count(events.begin(), events.end(), "FailedScheduling: 0/1 nodes are available: 1 Insufficient cpu."), 1);
}

TEST(DefaultSchedulerTest, PodsOfOtherSchedulersAreLeftAlone) {
  SimHarness h(WithDefaultScheduler());
  AddNode(h, "node-a", "4");
  AddPod(h, "berths", "1", "berth");
  AddPod(h, "ours", "1");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return !json::GetString(h.Get("/pods", "default", "ours"), {"spec", "nodeName"}).empty(); }));
  // A pod created after "berths" and bound proves passes ran after "berths" was seen.
  AddPod(h, "marker", "1");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return !json::GetString(h.Get("/pods", "default", "marker"), {"spec", "nodeName"}).empty(); }));
  EXPECT_TRUE(json::GetString(h.Get("/pods", "default", "berths"), {"spec", "nodeName"}).empty());
  EXPECT_EQ(Condition(h, "berths", "status"), "");
}

TEST(DefaultSchedulerTest, OffByDefault) {
  SimHarness h;
  AddNode(h, "node-a", "4");
  AddPod(h, "web", "1");
  AddPod(h, "bound", "1");
  h.Bind("default", "bound", "node-a");
  // The kubelet starting the bound pod shows the simulation ran past the pod "web".
  ASSERT_TRUE(SimHarness::WaitFor([&] { return json::GetString(h.Get("/pods", "default", "bound"), {"status", "phase"}) == "Running"; }));
  EXPECT_TRUE(json::GetString(h.Get("/pods", "default", "web"), {"spec", "nodeName"}).empty());
  EXPECT_EQ(Condition(h, "web", "status"), "");
}

}  // namespace
}  // namespace berth::kubesim
