// SchedulerCache::PlacePreAllocationAndAssume: pre-allocation first, the plain preAllocation
// placement as the fallback, and preferNoPreAllocatedPods.
#include <gtest/gtest.h>

#include "controllers/scheduler/scheduler_cache.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;
constexpr int64_t kCore = 1000;

placement::NodeView Node(std::string name, int64_t cores) {
  placement::NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"pods", 110000}};
  return n;
}

placement::PreAllocatablePod Batch(std::string name, std::string node, int64_t cores) {
  placement::PreAllocatablePod p;
  p.pod.namespace_name = "default";
  p.pod.name = name;
  p.pod.uid = name + "-uid";
  p.pod.node_name = std::move(node);
  p.pod.labels[std::string(placement::kPreAllocatableLabel)] = "true";
  p.pod.requests = {{"cpu", cores * kCore}};
  p.priority = "1";
  return p;
}

struct CacheFixture : ::testing::Test {
  SchedulerCache cache;
  placement::PodSpecView tmpl;
  placement::ReservationView view;
  std::vector<placement::PreAllocatablePod> pods;
  const placement::PreAllocationPolicy cluster{placement::PreAllocationMode::kCluster, false};
  void SetUp() override {
    cache.UpsertNode(Node("n1", 4));
    cache.UpsertNode(Node("n2", 4));
    pods = {Batch("batch", "n2", 2)};
    cache.UpsertPod(pods[0].pod);
    tmpl.name = view.name = "r";
    tmpl.uid = view.uid = "r-uid";
    tmpl.requests = {{"cpu", 2 * kCore}};
  }
};

TEST_F(CacheFixture, ACoveringCandidateIsPreAllocatedAndAssumed) {
  auto d = cache.PlacePreAllocationAndAssume(tmpl, view, pods, cluster, {});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "n2");
  EXPECT_EQ(d->phase, reconcile::Phase::kWaiting);
  ASSERT_EQ(d->pre_allocated.size(), 1u);
  EXPECT_TRUE(cache.IsReservationAssumed("r-uid"));
  EXPECT_EQ(cache.DecideWaiting("r-uid").state, placement::WaitingState::kPodsRunning);
  EXPECT_TRUE(cache.RemovePod("batch-uid"));
  EXPECT_EQ(cache.DecideWaiting("r-uid").state, placement::WaitingState::kAvailable);
}

TEST_F(CacheFixture, PreferNoPreAllocatedPodsPlacesWhereThereIsRoom) {
  placement::PreAllocationOptions options;
  options.prefer_no_pre_allocated_pods = true;
  auto d = cache.PlacePreAllocationAndAssume(tmpl, view, pods, cluster, options);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "n1");
  EXPECT_EQ(d->phase, reconcile::Phase::kAvailable);
  EXPECT_TRUE(d->pre_allocated.empty());
}

TEST_F(CacheFixture, PreferNoPreAllocatedPodsStillPreAllocatesWhenNoNodeHasRoom) {
  cache.UpsertPod(Batch("filler", "n1", 4).pod);
  placement::PreAllocationOptions options;
  options.prefer_no_pre_allocated_pods = true;
  tmpl.requests = {{"cpu", 2 * kCore + 1}};
  pods = {Batch("big", "n2", 3)};
  cache.UpsertPod(pods[0].pod);
  auto d = cache.PlacePreAllocationAndAssume(tmpl, view, pods, cluster, options);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "n2");
  EXPECT_EQ(d->phase, reconcile::Phase::kWaiting);
  EXPECT_EQ(d->pre_allocated.size(), 1u);
}

TEST_F(CacheFixture, WithoutCandidatesItFallsBackToThePlainPreAllocationPlacement) {
  auto d = cache.PlacePreAllocationAndAssume(tmpl, view, {}, cluster, {});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "n1") << "the node with room (LeastAllocated)";
  EXPECT_EQ(d->phase, reconcile::Phase::kAvailable);
  EXPECT_TRUE(d->pre_allocated.empty());
  // A disabled cluster mode means no candidates either.
  placement::ReservationView other = view;
  other.uid = "r2-uid";
  placement::PreAllocationOptions off;
  off.enable_cluster_mode = false;
  tmpl.uid = "r2-uid";
  auto e = cache.PlacePreAllocationAndAssume(tmpl, other, pods, cluster, off);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->pre_allocated.empty());
}

}  // namespace
}  // namespace berth::controllers
