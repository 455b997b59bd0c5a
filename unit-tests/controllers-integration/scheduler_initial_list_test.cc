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
