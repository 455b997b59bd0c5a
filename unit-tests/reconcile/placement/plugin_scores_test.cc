// Tests for reconcile/placement/plugin_scores.h against kube-scheduler's documented scoring, and
// their combination with default weights in ClusterSnapshot.
#include "reconcile/placement/plugin_scores.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

TEST(BalancedAllocation, OneMinusHalfTheFractionGap) {
  EXPECT_EQ(BalancedAllocationScore(500, 1000, 500, 1000), 100);
  EXPECT_EQ(BalancedAllocationScore(1000, 1000, 0, 1000), 50);   // |1 - 0| / 2
  EXPECT_EQ(BalancedAllocationScore(3000, 4000, 1000, 4000), 75);  // |0.75 - 0.25| / 2
  EXPECT_EQ(BalancedAllocationScore(8000, 4000, 0, 4000), 50);   // fractions capped at 1
  EXPECT_EQ(BalancedAllocationScore(100, 0, 900, 1000), 100);    // allocatable 0 leaves cpu out
}

TEST(NodeAffinityScore, SumsMatchedPreferredWeightsThenNormalises) {
  std::vector<PreferredSchedulingTerm> terms{
      {10, {{{"disk", NodeSelectorOperator::kIn, {"ssd"}}}, {}}},
      {30, {{{"gpu", NodeSelectorOperator::kExists, {}}}, {}}},
      {50, {}},  // an empty preference is skipped
  };
  EXPECT_EQ(NodeAffinityRawScore(terms, "n", {{"disk", "ssd"}}), 10);
  EXPECT_EQ(NodeAffinityRawScore(terms, "n", {{"disk", "ssd"}, {"gpu", "1"}}), 40);
  std::vector<int64_t> scores{10, 40, 0};
  DefaultNormalizeScore(scores, false);
  EXPECT_EQ(scores, (std::vector<int64_t>{25, 100, 0}));
}

TEST(TaintTolerationScore, CountsIntolerablePreferNoScheduleReversed) {
  std::vector<Taint> taints{{"a", "1", "PreferNoSchedule"}, {"b", "1", "PreferNoSchedule"}, {"c", "1", "NoSchedule"}};
  EXPECT_EQ(IntolerablePreferNoScheduleTaints({}, taints), 2);
  EXPECT_EQ(IntolerablePreferNoScheduleTaints({{"a", "Equal", "1", "PreferNoSchedule"}}, taints), 1);
  // A NoSchedule toleration does not count for PreferNoSchedule.
  EXPECT_EQ(IntolerablePreferNoScheduleTaints({{"a", "Exists", "", "NoSchedule"}}, taints), 2);
  std::vector<int64_t> scores{2, 1, 0};
  DefaultNormalizeScore(scores, true);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  std::vector<int64_t> none{0, 0};
  DefaultNormalizeScore(none, true);
  EXPECT_EQ(none, (std::vector<int64_t>{100, 100}));
}

NodeView Node(std::string name, int64_t cores) {
  NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}};
  n.allocatable = {{"cpu", cores * 1000}, {"memory", 32 * kGi}, {"pods", 110000}};
  return n;
}

PodSpecView Pod(std::string name) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.requests = {{"cpu", 100}, {"memory", kGi}};
  return p;
}

TEST(CombinedScores, PreferredNodeAffinityOutweighsResourceScores) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("big", 64));
  NodeView small = Node("small", 4);
  small.labels["disk"] = "ssd";
  snap.UpsertNode(small);
  PodSpecView pod = Pod("p");
  EXPECT_EQ(snap.SchedulePod(pod)->node_name, "big");
  pod.preferred_node_affinity = {{1, {{{"disk", NodeSelectorOperator::kIn, {"ssd"}}}, {}}}};
  EXPECT_EQ(snap.SchedulePod(pod)->node_name, "small");
}

TEST(CombinedScores, PreferNoScheduleTaintIsAvoidedUnlessTolerated) {
  ClusterSnapshot snap;
  NodeView big = Node("big", 64);
  big.taints = {{"spot", "true", "PreferNoSchedule"}};
  snap.UpsertNode(big);
  snap.UpsertNode(Node("small", 4));
  PodSpecView pod = Pod("p");
  EXPECT_EQ(snap.SchedulePod(pod)->node_name, "small");
  pod.tolerations = {{"spot", "Exists", "", ""}};
  EXPECT_EQ(snap.SchedulePod(pod)->node_name, "big");
}

TEST(CombinedScores, BalancedAllocationBreaksLeastAllocatedTies) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a", 8));
  snap.UpsertNode(Node("b", 8));
  // Both nodes get LeastAllocated 61 with the pod (a tie the node name would break for a).
  PodSpecView cpu_heavy = Pod("cpu");
  cpu_heavy.requests = {{"cpu", 4000}, {"memory", 0}};
  cpu_heavy.node_name = "b";
  snap.UpsertPod(cpu_heavy);
  PodSpecView mem_heavy = Pod("mem");
  mem_heavy.requests = {{"cpu", 0}, {"memory", 16 * kGi}};
  mem_heavy.node_name = "a";
  snap.UpsertPod(mem_heavy);
  PodSpecView pod = Pod("p");
  pod.requests = {{"cpu", 0}, {"memory", 8 * kGi}};
  // On b it balances 4/8 cpu with 8/32 memory (87); on a memory 24/32 against no cpu (62).
  EXPECT_EQ(snap.SchedulePod(pod)->node_name, "b");
}

}  // namespace
}  // namespace berth::reconcile::placement
