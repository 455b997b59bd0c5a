// Tests for reconcile/placement/plugin_scores.h against kube-scheduler's documented scoring, and
// their combination with default weights in ClusterSnapshot.
#include "reconcile/placement/plugin_scores.h"

#include <cstdint>

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

constexpr int64_t kMiB = int64_t{1024} * 1024;

TEST(ImageLocality, NormalizedNamesGetLatestWhenUntagged) {
  EXPECT_EQ(NormalizedImageName("nginx"), "nginx:latest");
  EXPECT_EQ(NormalizedImageName("nginx:1.25"), "nginx:1.25");
  EXPECT_EQ(NormalizedImageName("registry:5000/app"), "registry:5000/app:latest");  // the port is no tag
  EXPECT_EQ(NormalizedImageName("registry:5000/app:v1"), "registry:5000/app:v1");
  EXPECT_EQ(NormalizedImageName("app@sha256:abcd"), "app@sha256:abcd");
}

TEST(ImageLocality, SizeScaledBySpreadClampedToThresholds) {
  NodeView node;
  node.image_sizes = {{"big:latest", 500 * kMiB}, {"small:latest", 10 * kMiB}, {"huge:latest", 2000 * kMiB}};
  auto on = [](int n) { return [n](std::string_view) { return n; }; };
  // 500 MiB on 1 node of 2: 250 MiB; 100 × (250 - 23) / (1000 - 23) MiB = 23.2.
  EXPECT_EQ(ImageLocalityScore({"big:latest"}, node, on(1), 2), 23);
  EXPECT_EQ(ImageLocalityScore({"big:latest"}, node, on(2), 2), 48);   // on every node: 100 × 477 / 977
  EXPECT_EQ(ImageLocalityScore({"small:latest"}, node, on(2), 2), 0);  // below 23 MiB
  EXPECT_EQ(ImageLocalityScore({"huge:latest"}, node, on(2), 2), 100);  // above 1000 MiB per container
  // Two containers: the maximum doubles; an image the node lacks adds nothing.
  EXPECT_EQ(ImageLocalityScore({"huge:latest", "absent:latest"}, node, on(2), 2),
            100 * (2000 * kMiB - 23 * kMiB) / (2000 * kMiB - 23 * kMiB));
  EXPECT_EQ(ImageLocalityScore({"big:latest", "absent:latest"}, node, on(2), 2),
            100 * (500 * kMiB - 23 * kMiB) / (2000 * kMiB - 23 * kMiB));
  EXPECT_EQ(ImageLocalityScore({}, node, on(2), 2), 0);
  // Sizes at int64's limit saturate at the maximum (no overflow in the sum).
  node.image_sizes = {{"a:1", INT64_MAX}, {"b:1", INT64_MAX}};
  EXPECT_EQ(ImageLocalityScore({"a:1", "b:1"}, node, on(2), 2), 100);
}

TEST(ImageLocality, APodGoesWhereItsImageIs) {
  ClusterSnapshot snap;
  for (const char* name : {"a", "b", "c"}) {
    NodeView n;
    n.name = name;
    n.allocatable = {{"cpu", 4000}, {"memory", 8 * kGi}, {"pods", 110000}};
    if (std::string_view(name) == "c") n.image_sizes = {{"web:1", 800 * kMiB}};
    snap.UpsertNode(n);
  }
  PodSpecView pod;
  pod.namespace_name = "default";
  pod.name = "p";
  pod.uid = "p-uid";
  pod.requests = {{"cpu", 100}};
  pod.container_images = {"web:1"};
  auto d = snap.SchedulePod(pod);
  ASSERT_TRUE(d) << d.error().Message();
  EXPECT_EQ(d->node_name, "c");  // without the image every node ties and "a" would win
  pod.container_images = {"other:1"};
  d = snap.SchedulePod(pod);
  ASSERT_TRUE(d) << d.error().Message();
  EXPECT_EQ(d->node_name, "a");
  // The node gone: the image's node count goes with it.
  snap.RemoveNode("c");
  pod.container_images = {"web:1"};
  d = snap.SchedulePod(pod);
  ASSERT_TRUE(d) << d.error().Message();
  EXPECT_EQ(d->node_name, "a");
}

}  // namespace
}  // namespace berth::reconcile::placement
