// The scheduler's first pods list goes through OnInitialPods (prepared on several threads, applied
// in order): pods bound before berth started count against their node, and unbound pods listed
// then are queued and scheduled.
#include <gtest/gtest.h>

#include "unit-tests/controllers-integration/scheduler_test_support.h"

namespace berth::controllers::testing {
namespace {

using namespace std::chrono_literals;

std::string BoundPodJson(const std::string& name, const std::string& cpu, const std::string& node) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default","labels":{"app":"old"}},"spec":{"nodeName":")" + node +
         R"(","schedulerName":"default-scheduler","containers":[{"name":"main","image":"busybox",)"
         R"("resources":{"requests":{"cpu":")" + cpu + R"("}}}]}})";
}

TEST(SchedulerInitialListTest, PodsListedAtStartAreCountedOrQueued) {
  kubesim::KubesimOptions o;
  o.nodes = 2;
  o.node_cpu = "4";
  o.node_pods = "1000";
  Cluster cluster(o);
  cluster.Start();
  // node-0 is full (4 × 1 cpu) and node-1 holds 3 cpu before berth starts; the 600 small pods make
  // the list long enough to be prepared in more than one chunk.
  for (int i = 0; i < 4; ++i) cluster.CreatePod(BoundPodJson("full-" + std::to_string(i), "1", "node-0"));
  for (int i = 0; i < 600; ++i) cluster.CreatePod(BoundPodJson("small-" + std::to_string(i), "5m", "node-1"));
  // Unbound pods already there: one fits only on node-1's last cpu, one fits nowhere.
  cluster.CreatePod(PodJson("fits", "900m", "new"));
  cluster.CreatePod(PodJson("too-big", "1500m", "new"));
  cluster.StartManager(/*lifecycle=*/false);

  std::map<std::string, ServerPod> pods;
  ASSERT_TRUE(WaitUntil(
      [&] {
        pods = cluster.Pods();
        return !pods["fits"].node.empty() && pods["too-big"].scheduled_reason == "Unschedulable";
      },
      30s))
      << "fits on " << pods["fits"].node << ", too-big: " << pods["too-big"].scheduled_reason;
  EXPECT_EQ(pods["fits"].node, "node-1");
  EXPECT_EQ(pods["too-big"].node, "");
  // Pods another scheduler bound stay where they are.
  EXPECT_EQ(pods["full-3"].node, "node-0");
  EXPECT_EQ(pods["small-599"].node, "node-1");
}

}  // namespace
}  // namespace berth::controllers::testing

namespace berth::controllers::testing {
namespace {

TEST(SchedulerInitialListTest, APodsListThatFailsMidwayLeavesNothingAndTheRetriedOneCountsEveryPod) {
  // Pod LIST pages fail at random (seeded) with 410 Expired, as a continue token past etcd's
  // compaction does (the client does not retry it; the reflector lists again): a list that fails
  // after some pages must leave nothing behind, and the one that succeeds must count every pod.
  kubesim::KubesimOptions o;
  o.nodes = 2;
  o.node_cpu = "4";
  o.node_pods = "2000";
  o.faults.fault_rate = 0.4;
  o.faults.fault_codes = {410};
  o.faults.seed = 5;
  o.faults.targets = {*kubesim::ParseFaultTarget("GET:pods")};
  Cluster cluster(o);
  cluster.Start();
  for (int i = 0; i < 4; ++i) cluster.CreatePod(BoundPodJson("full-" + std::to_string(i), "1", "node-0"));
  // 1,200 pods of 2m on node-1 (2.4 cpu): three pages of 500, each a chance to fail.
  for (int i = 0; i < 1200; ++i) cluster.CreatePod(BoundPodJson("small-" + std::to_string(i), "2m", "node-1"));
  cluster.CreatePod(PodJson("exact", "1600m", "new"));  // the rest of node-1: fits only if nothing counts twice
  cluster.StartManager(/*lifecycle=*/false);
  std::map<std::string, ServerPod> pods;
  ASSERT_TRUE(WaitUntil([&] { return !(pods = cluster.Pods())["exact"].node.empty(); }, 60s))
      << "exact: " << pods["exact"].scheduled_reason;
  EXPECT_EQ(pods["exact"].node, "node-1");
  auto injected = cluster.sim().faults().InjectedCounts();
  EXPECT_GE(injected[410], 1u) << "no LIST failed: the test proved nothing";
  cluster.sim().faults().SetConfig({});  // the first list is what this is about
  // node-1 is full now unless a pod of the list went uncounted (5 lost pods would make room).
  cluster.CreatePod(PodJson("one-more", "10m", "new"));
  ASSERT_TRUE(WaitUntil([&] { return (pods = cluster.Pods())["one-more"].scheduled_reason == "Unschedulable"; }, 60s))
      << "one-more on " << pods["one-more"].node;
  EXPECT_EQ(pods["one-more"].node, "");
}

}  // namespace
}  // namespace berth::controllers::testing
