// SchedulerCache::Preempt: DefaultPreemption's dry run on the ClusterSnapshot itself. Capacity a
// Reservation holds is gained by preempting only for its owners, reservations are never victims,
// assumed pods are never victims, nodes that removing pods cannot fix are skipped, and the
// snapshot is left exactly as it was.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_cache.h"
#include "unit-tests/controllers/common/owner_reservation.h"
#include "unit-tests/controllers/common/priority_pod.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

placement::NodeView Node(const std::string& name, int64_t cpu_milli) {
  placement::NodeView n;
  n.name = name;
  n.allocatable = {{"cpu", cpu_milli}, {"pods", 110'000}};
  return n;
}

using testing::PriorityPod;

placement::ReservationView OwnerReservation(const std::string& name, const std::string& node, int64_t cpu_milli) {
  return testing::OwnerReservation(name, node, cpu_milli, /*allocate_once=*/false);
}

std::vector<std::string> VictimNames(const placement::PreemptionOutcome& out) {
  std::vector<std::string> names;
  if (out.chosen) {
    for (const auto& v : out.chosen->victims) names.push_back(v.name);
  }
  return names;
}

// Preempt: what the controller does after a failed decision.
placement::PreemptionOutcome Preempt(SchedulerCache& cache, const placement::PodSpecView& pod) {
  auto decision = cache.ScheduleAndAssumePod(pod);
  EXPECT_FALSE(decision.has_value()) << "the preemptor must not fit as the cluster is";
  if (decision) return {};
  return cache.Preempt(pod, decision.error(), {});
}

TEST(SchedulerCachePreemption, ALowerPriorityPodMakesRoomAndTheSnapshotIsLeftAsItWas) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 2000));
  cache.UpsertPod(PriorityPod("low", 2000, 1, "n1"));
  auto before = cache.Usage("n1");
  auto out = Preempt(cache, PriorityPod("high", 1000, 10));
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(out.chosen->node_name, "n1");
  EXPECT_EQ(VictimNames(out), std::vector<std::string>{"low"});
  auto after = cache.Usage("n1");
  EXPECT_TRUE(reconcile::EqualAmounts(before->requested, after->requested));
  EXPECT_TRUE(reconcile::EqualAmounts(before->free, after->free));
  EXPECT_FALSE(cache.IsPodAssumed("uid-high")) << "preemption assumes nothing";
  // Once the victim is gone, the preemptor fits.
  EXPECT_TRUE(cache.RemovePod("uid-low"));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(PriorityPod("high", 1000, 10)).has_value());
}

TEST(SchedulerCachePreemption, ANominatedPodKeepsItsRoomFromLessImportantPods) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 2000));
  cache.UpsertPod(PriorityPod("low", 2000, 1, "n1"));
  placement::PodSpecView high = PriorityPod("high", 2000, 10);
  auto out = Preempt(cache, high);
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  cache.SetNomination(high, "n1");
  EXPECT_TRUE(cache.IsNominated("uid-high"));
  ASSERT_TRUE(cache.RemovePod("uid-low"));  // the victim is gone
  auto sneaky = cache.ScheduleAndAssumePod(PriorityPod("sneaky", 1000, 5));
  ASSERT_FALSE(sneaky.has_value()) << "a less important pod may not take the room made for `high`";
  EXPECT_EQ(sneaky.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_FALSE(cache.Preempt(PriorityPod("sneaky", 1000, 5), sneaky.error(), {}).chosen.has_value())
      << "nor preempt for it: a nominated pod is no victim";
  EXPECT_TRUE(reconcile::EqualAmounts(cache.Usage("n1")->requested, {})) << "nominations are not left counted";
  auto decision = cache.ScheduleAndAssumePod(high);
  ASSERT_TRUE(decision.has_value()) << decision.error().Message();
  EXPECT_EQ(decision->node_name, "n1");
  placement::PodSpecView bound = high;
  bound.node_name = "n1";
  cache.UpsertPod(bound);
  EXPECT_FALSE(cache.IsNominated("uid-high")) << "binding ends the nomination";
}

TEST(SchedulerCachePreemption, EqualPriorityRespectsANominationHigherPriorityDoesNot) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 2000));
  cache.SetNomination(PriorityPod("nominated", 2000, 5), "n1");
  EXPECT_FALSE(cache.ScheduleAndAssumePod(PriorityPod("peer", 1000, 5)).has_value());
  EXPECT_TRUE(cache.ScheduleAndAssumePod(PriorityPod("vip", 1000, 6)).has_value());
  cache.SetNomination(PriorityPod("nominated", 2000, 5), "");
  EXPECT_FALSE(cache.IsNominated("uid-nominated"));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(PriorityPod("peer", 1000, 5)).has_value());
}

TEST(SchedulerCachePreemption, CapacityAReservationHoldsIsNotFreedForNonOwners) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 4000));
  cache.UpsertReservation(OwnerReservation("r", "n1", 2000));
  cache.UpsertPod(PriorityPod("low", 2000, 1, "n1"));
  // 3 cpu: removing `low` frees 2, the reservation keeps holding its 2.
  auto out = Preempt(cache, PriorityPod("big", 3000, 10));
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_EQ(out.message, "preemption: 0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_TRUE(out.clear_nomination);
  // 2 cpu fit once `low` is gone; the reservation is never a victim.
  auto fits = Preempt(cache, PriorityPod("medium", 2000, 10));
  ASSERT_TRUE(fits.chosen.has_value()) << fits.message;
  EXPECT_EQ(VictimNames(fits), std::vector<std::string>{"low"});
}

TEST(SchedulerCachePreemption, OnlyOwnersGainByPreemptingAReservationsPods) {
  // n1: reservation r (2 cpu, owners app=owner) fully allocated by `in-res` (priority 1); `plain`
  // (priority 5) uses the other 2 cpu.
  auto setup = [](SchedulerCache& cache) {
    cache.UpsertNode(Node("n1", 4000));
    cache.UpsertReservation(OwnerReservation("r", "n1", 2000));
    placement::PodSpecView in_res = PriorityPod("in-res", 2000, 1, "n1", {{"app", "owner"}});
    in_res.reservation_uid = "ruid-r";
    cache.UpsertPod(in_res);
    cache.UpsertPod(PriorityPod("plain", 2000, 5, "n1"));
  };
  SchedulerCache for_owner;
  setup(for_owner);
  auto owner = Preempt(for_owner, PriorityPod("owner", 2000, 10, "", {{"app", "owner"}}));
  ASSERT_TRUE(owner.chosen.has_value()) << owner.message;
  EXPECT_EQ(VictimNames(owner), std::vector<std::string>{"in-res"})
      << "the owner takes the reservation's capacity back from the least important pod";

  SchedulerCache for_other;
  setup(for_other);
  auto other = Preempt(for_other, PriorityPod("other", 2000, 10));
  ASSERT_TRUE(other.chosen.has_value()) << other.message;
  EXPECT_EQ(VictimNames(other), std::vector<std::string>{"plain"})
      << "removing the reservation's pod frees nothing a non-owner may use";
}

TEST(SchedulerCachePreemption, AssumedPodsAreNotVictimsAndUnfixableNodesAreSkipped) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 1000));
  placement::NodeView tainted = Node("n2", 1000);
  tainted.taints = {{"dedicated", "gpu", "NoSchedule"}};
  cache.UpsertNode(tainted);
  cache.UpsertPod(PriorityPod("on-tainted", 1000, 1, "n2"));
  ASSERT_TRUE(cache.ScheduleAndAssumePod(PriorityPod("assumed", 1000, 1)).has_value());
  auto out = Preempt(cache, PriorityPod("high", 1000, 10));
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_EQ(out.message,
            "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
            "1 Preemption is not helpful for scheduling.");
}

TEST(SchedulerCachePreemption, UnreadablePriorityNeverPreemptsAndIsNeverAVictim) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 1000));
  placement::PodSpecView broken = PriorityPod("broken", 1000, 0, "n1");
  broken.priority.error = "spec.priority: not an int32: \"x\"";
  cache.UpsertPod(broken);
  auto out = Preempt(cache, PriorityPod("high", 1000, 10));
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_EQ(out.message, "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  placement::PodSpecView bad_preemptor = PriorityPod("bad", 500, 10);
  bad_preemptor.priority.error = "spec.priority: not an int32: 1e10";
  cache.RemovePod("uid-broken");
  cache.UpsertPod(PriorityPod("low", 1000, 0, "n1"));
  auto refused = Preempt(cache, bad_preemptor);
  EXPECT_FALSE(refused.chosen.has_value());
  EXPECT_EQ(refused.message, "preemption: spec.priority: not an int32: 1e10");
}

}  // namespace
}  // namespace berth::controllers

namespace berth::controllers {
namespace {

// kube-scheduler: an unmatched required pod affinity is UnschedulableAndUnresolvable (removing pods
// cannot create the pod it needs), a pod's own anti-affinity is Unschedulable (removing the
// matching lower-priority pod fixes it).
TEST(SchedulerCachePreemption, UnmatchedRequiredAffinityIsNotHelpedAndAntiAffinityIsResolvedByAVictim) {
  SchedulerCache cache;
  placement::NodeView node = Node("n1", 4000);
  node.labels = {{"kubernetes.io/hostname", "n1"}};
  cache.UpsertNode(node);
  cache.UpsertPod(PriorityPod("db", 100, 1, "n1", {{"app", "db"}}));
  auto term = [](const std::string& app) {
    placement::PodAffinityTerm t;
    auto doc = json::Parse(R"({"matchLabels":{"app":")" + app + R"("}})");
    t.selector = *shim::LabelSelector::FromJson(&*doc);
    t.namespaces = {"default"};
    t.topology_key = "kubernetes.io/hostname";
    return t;
  };
  placement::PodSpecView follower = PriorityPod("follower", 100, 10);
  auto needs = std::make_shared<placement::PodAffinity>();
  needs->required_affinity = {term("nothing")};
  follower.pod_affinity = needs;
  auto out = Preempt(cache, follower);
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_EQ(out.message, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");

  placement::PodSpecView loner = PriorityPod("loner", 100, 10);
  auto avoids = std::make_shared<placement::PodAffinity>();
  avoids->required_anti_affinity = {term("db")};
  loner.pod_affinity = avoids;
  out = Preempt(cache, loner);
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(VictimNames(out), std::vector<std::string>{"db"});
}

}  // namespace
}  // namespace berth::controllers
