// SchedulerCache: decisions are assumed under the same lock, confirmed by the informer, and
// forgotten on failure, so concurrent workers never double-book a node or a reservation.
#include "controllers/scheduler/scheduler_cache.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

constexpr int64_t kMi = int64_t{1024} * 1024 * 1000;  // 1Mi in milli-bytes

placement::NodeView Node(const std::string& name, int64_t cpu_milli, int64_t memory_mi, int pods = 110) {
  placement::NodeView n;
  n.name = name;
  n.allocatable = {{"cpu", cpu_milli}, {"memory", memory_mi * kMi}, {"pods", int64_t{pods} * 1000}};
  return n;
}

placement::PodSpecView Pod(const std::string& name, int64_t cpu_milli, int64_t memory_mi) {
  placement::PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = "uid-" + name;
  p.requests = {{"cpu", cpu_milli}, {"memory", memory_mi * kMi}};
  return p;
}

placement::ReservationView AvailableReservation(const std::string& name, const std::string& node,
                                                int64_t cpu_milli, int64_t memory_mi,
                                                bool allocate_once) {
  placement::ReservationView r;
  r.name = name;
  r.uid = "ruid-" + name;
  r.phase = reconcile::Phase::kAvailable;
  r.node_name = node;
  r.allocatable = {{"cpu", cpu_milli}, {"memory", memory_mi * kMi}};
  placement::ReservationOwner by_label;
  auto doc = json::Parse(R"({"matchLabels":{"app":"owner"}})");
  by_label.label_selector = *shim::LabelSelector::FromJson(&*doc);
  r.owners = {by_label};
  r.allocate_once = allocate_once;
  return r;
}

// Cpu: the cpu amount, 0 when the sparse map has none.
int64_t Cpu(const reconcile::ResourceAmounts& amounts) {
  auto it = amounts.find("cpu");
  return it == amounts.end() ? 0 : it->second;
}

TEST(SchedulerCacheTest, AnAssumedPodTakesCapacitySoTheNextDecisionSeesItFull) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto first = cache.ScheduleAndAssumePod(Pod("a", 600, 100));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->node_name, "node-0");
  EXPECT_TRUE(cache.IsPodAssumed("uid-a"));
  auto second = cache.ScheduleAndAssumePod(Pod("b", 600, 100));
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(SchedulerCacheTest, ForgettingAFailedBindingFreesTheCapacity) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  ASSERT_TRUE(cache.ScheduleAndAssumePod(Pod("a", 600, 100)).has_value());
  cache.ForgetPod("uid-a");
  EXPECT_FALSE(cache.IsPodAssumed("uid-a"));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(Pod("b", 600, 100)).has_value());
}

TEST(SchedulerCacheTest, TheInformerConfirmsAnAssumptionAndForgetThenChangesNothing) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto pod = Pod("a", 600, 100);
  ASSERT_TRUE(cache.ScheduleAndAssumePod(pod).has_value());
  // The watch may first deliver an update written before the binding: still assumed.
  cache.UpsertPod(pod);
  EXPECT_TRUE(cache.IsPodAssumed("uid-a"));
  pod.node_name = "node-0";
  cache.UpsertPod(pod);
  EXPECT_FALSE(cache.IsPodAssumed("uid-a"));
  cache.ForgetPod("uid-a");  // a late failure report must not free a bound pod
  auto usage = cache.Usage("node-0");
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->requested.at("cpu"), 600);
  EXPECT_FALSE(cache.ScheduleAndAssumePod(Pod("b", 600, 100)).has_value());
}

TEST(SchedulerCacheTest, RemovingACountedPodReportsFreedCapacityAndAnUnknownOneDoesNot) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto pod = Pod("a", 600, 100);
  pod.node_name = "node-0";
  cache.UpsertPod(pod);
  EXPECT_TRUE(cache.RemovePod("uid-a"));
  EXPECT_FALSE(cache.RemovePod("uid-a"));
  EXPECT_FALSE(cache.RemovePod("uid-never-seen"));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(Pod("b", 900, 100)).has_value());
}

TEST(SchedulerCacheTest, ANodeHeartbeatIsNotAChangeButNewAllocatableIs) {
  SchedulerCache cache;
  EXPECT_TRUE(cache.UpsertNode(Node("node-0", 1000, 1024)));
  EXPECT_FALSE(cache.UpsertNode(Node("node-0", 1000, 1024)));
  EXPECT_TRUE(cache.UpsertNode(Node("node-0", 2000, 1024)));
  auto tainted = Node("node-0", 2000, 1024);
  tainted.taints.push_back({"k", "v", "NoSchedule"});
  EXPECT_TRUE(cache.UpsertNode(tainted));
  EXPECT_EQ(cache.NodeCount(), 1);
}

TEST(SchedulerCacheTest, AnAssumedReservationHoldsItsNodeUntilForgotten) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto r = AvailableReservation("r", "", 800, 100, true);
  r.phase = reconcile::Phase::kPending;
  cache.UpsertReservation(r);
  placement::PodSpecView tmpl = Pod("r", 800, 100);
  tmpl.uid = r.uid;
  auto placed = cache.PlaceAndAssumeReservation(tmpl, r, false);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->node_name, "node-0");
  EXPECT_TRUE(cache.IsReservationAssumed(r.uid));
  // A non-owner pod cannot use the held capacity.
  EXPECT_FALSE(cache.ScheduleAndAssumePod(Pod("other", 500, 10)).has_value());
  cache.ForgetReservation(r.uid);
  EXPECT_FALSE(cache.IsReservationAssumed(r.uid));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(Pod("other", 500, 10)).has_value());
}

// The chaos soak's finding: a reservation assumed on node-0 takes an owner pod; its placement
// write fails. Forgetting the assumption (the old fault policy) lets the retry place it on
// node-1 (node-0 is now full of the pod), leaving the pod bound off its reservation's node.
// Marked unwritten instead, the assumption stays and the retry writes node-0 again.
TEST(SchedulerCacheTest, AFailedPlacementWriteKeepsTheAssumedNodeForTheRetry) {
  for (bool sticky : {true, false}) {
    SCOPED_TRACE(sticky ? "sticky" : "forgotten");
    SchedulerCache cache;
    cache.UpsertNode(Node("node-0", 1000, 1024));
    auto r = AvailableReservation("r", "", 800, 100, false);
    r.phase = reconcile::Phase::kPending;
    r.allocate_policy = placement::AllocatePolicy::kRestricted;
    cache.UpsertReservation(r);
    placement::PodSpecView tmpl = Pod("r", 800, 100);
    tmpl.uid = r.uid;
    auto placed = cache.PlaceAndAssumeReservation(tmpl, r, false);
    ASSERT_TRUE(placed.has_value());
    ASSERT_EQ(placed->node_name, "node-0");
    EXPECT_FALSE(cache.UnwrittenPlacement(r.uid).has_value());  // the write has not failed
    auto owner = Pod("owner-0", 800, 100);
    owner.labels = {{"app", "owner"}};
    auto bound = cache.ScheduleAndAssumePod(owner);
    ASSERT_TRUE(bound.has_value());
    ASSERT_TRUE(bound->reservation.has_value());
    EXPECT_EQ(bound->node_name, "node-0");
    cache.UpsertNode(Node("node-1", 1000, 1024));
    if (!sticky) {
      cache.ForgetReservation(r.uid);
      auto again = cache.PlaceAndAssumeReservation(tmpl, r, false);
      ASSERT_TRUE(again.has_value());
      // The move the soak saw (to node-1) no longer happens even when the assumption is gone (a
      // new leader): the owner pod in it pins it to node-0.
      EXPECT_EQ(again->node_name, "node-0");
      continue;
    }
    cache.MarkPlacementUnwritten(r.uid);
    cache.UpsertReservation(r);  // the watch still shows it unplaced
    EXPECT_TRUE(cache.IsReservationAssumed(r.uid));
    auto retry = cache.UnwrittenPlacement(r.uid);
    ASSERT_TRUE(retry.has_value());
    EXPECT_EQ(retry->node_name, "node-0");
    EXPECT_EQ(retry->phase, reconcile::Phase::kAvailable);
    EXPECT_EQ(retry->allocatable, placed->allocatable);
    EXPECT_EQ(cache.Allocated(r.uid).at("cpu"), 800);
    // The written placement, once seen, ends both the assumption and the retry.
    auto confirmed = AvailableReservation("r", "node-0", 800, 100, false);
    confirmed.allocate_policy = placement::AllocatePolicy::kRestricted;
    cache.UpsertReservation(confirmed);
    EXPECT_FALSE(cache.IsReservationAssumed(r.uid));
    EXPECT_FALSE(cache.UnwrittenPlacement(r.uid).has_value());
  }
}

TEST(SchedulerCacheTest, APendingReservationThatPodsAlreadyAllocateIsPlacedOnTheirNode) {
  // A leader bound an owner pod into its assumed placement on node-0, the placement's status
  // write failed and the leader died: the next leader sees the reservation Pending and unplaced
  // and the pod bound on node-0 with the reservation's uid in its allocation annotation.
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  cache.UpsertNode(Node("node-1", 1000, 1024));  // emptier: LeastAllocated would pick it
  auto r = AvailableReservation("r", "", 800, 100, false);
  r.phase = reconcile::Phase::kPending;
  r.allocate_policy = placement::AllocatePolicy::kRestricted;
  cache.UpsertReservation(r);
  auto owner = Pod("owner-0", 300, 10);
  owner.labels = {{"app", "owner"}};
  owner.node_name = "node-0";
  owner.reservation_uid = r.uid;
  cache.UpsertPod(owner);
  auto other = Pod("other", 100, 10);
  other.node_name = "node-0";
  cache.UpsertPod(other);
  // node-0 has 600m free: not the reservation's 800m, but the 500m its pod does not use yet.
  placement::PodSpecView tmpl = Pod("r", 800, 100);
  tmpl.uid = r.uid;
  auto placed = cache.PlaceAndAssumeReservation(tmpl, r, false);
  ASSERT_TRUE(placed.has_value()) << placed.error().Message();
  EXPECT_EQ(placed->node_name, "node-0");
  EXPECT_EQ(placed->allocatable.at("cpu"), 800) << "its size is the template's";
  EXPECT_EQ(placed->phase, reconcile::Phase::kAvailable);
  auto usage = cache.Usage("node-0");
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->free.at("cpu"), 100) << "1000m - 400m of pods - the 500m it still holds";
  EXPECT_EQ(cache.Allocated(r.uid).at("cpu"), 300);

  // A reservation no pod allocates yet goes where the score says.
  auto fresh = AvailableReservation("fresh", "", 100, 10, false);
  fresh.phase = reconcile::Phase::kPending;
  cache.UpsertReservation(fresh);
  placement::PodSpecView fresh_tmpl = Pod("fresh", 100, 10);
  fresh_tmpl.uid = fresh.uid;
  auto elsewhere = cache.PlaceAndAssumeReservation(fresh_tmpl, fresh, false);
  ASSERT_TRUE(elsewhere.has_value());
  EXPECT_EQ(elsewhere->node_name, "node-1");
}

TEST(SchedulerCacheTest, AnOwnerPodAnotherSchedulerBoundIsAdoptedIntoTheReservationOnItsNodeOnce) {
  // kube-scheduler (the extender without bindVerb) bound two owner pods of 300m onto node-0, where
  // a Restricted reservation holds 400m for them: the first takes it, the second has no room left
  // in it (the decision berth's own bind would make; an Aligned one would top it up from the node).
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  cache.UpsertNode(Node("node-1", 1000, 1024));
  auto r = AvailableReservation("r", "node-0", 400, 100, false);
  r.allocate_policy = placement::AllocatePolicy::kRestricted;
  cache.UpsertReservation(r);
  auto first = Pod("owner-0", 300, 10);
  first.labels = {{"app", "owner"}};
  first.node_name = "node-0";
  cache.UpsertPod(first);
  auto second = first;
  second.name = "owner-1";
  second.uid = "uid-owner-1";
  cache.UpsertPod(second);
  EXPECT_EQ(Cpu(cache.Usage("node-0")->free), 0) << "1000m - 400m held - 600m of pods outside it";

  auto adopted = cache.AdoptBoundPod(first);
  ASSERT_TRUE(adopted.has_value());
  EXPECT_EQ(adopted->uid, "ruid-r");
  EXPECT_EQ(Cpu(cache.Allocated("ruid-r")), 300);
  EXPECT_EQ(Cpu(cache.Usage("node-0")->free), 300) << "the adopted pod now uses the held capacity";
  EXPECT_FALSE(cache.AdoptBoundPod(second).has_value()) << "100m left in the reservation";
  EXPECT_EQ(Cpu(cache.Allocated("ruid-r")), 300);

  // Not adopted: a pod that is no owner, one on a node without a reservation, one the cache does
  // not count, one that already allocates a reservation.
  auto stranger = Pod("stranger", 100, 10);
  stranger.node_name = "node-0";
  cache.UpsertPod(stranger);
  EXPECT_FALSE(cache.AdoptBoundPod(stranger).has_value());
  auto elsewhere = first;
  elsewhere.uid = "uid-elsewhere";
  elsewhere.node_name = "node-1";
  cache.UpsertPod(elsewhere);
  EXPECT_FALSE(cache.AdoptBoundPod(elsewhere).has_value());
  auto unknown = first;
  unknown.uid = "uid-unknown";
  EXPECT_FALSE(cache.AdoptBoundPod(unknown).has_value());
  auto annotated = first;
  annotated.reservation_uid = "ruid-r";
  EXPECT_FALSE(cache.AdoptBoundPod(annotated).has_value());
  EXPECT_EQ(Cpu(cache.Allocated("ruid-r")), 300);
}

TEST(SchedulerCacheTest, PodsAllocatingAReservationDoNotPinItAgainstItsTemplatesNodeName) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  cache.UpsertNode(Node("node-1", 1000, 1024));
  auto r = AvailableReservation("r", "", 500, 10, false);
  r.phase = reconcile::Phase::kPending;
  cache.UpsertReservation(r);
  auto owner = Pod("owner-0", 100, 10);
  owner.node_name = "node-0";
  owner.reservation_uid = r.uid;
  cache.UpsertPod(owner);
  placement::PodSpecView tmpl = Pod("r", 500, 10);
  tmpl.uid = r.uid;
  tmpl.node_name = "node-1";  // the spec says where it goes
  auto placed = cache.PlaceAndAssumeReservation(tmpl, r, false);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->node_name, "node-1");
}

TEST(SchedulerCacheTest, RemovingAReservationEndsAnUnwrittenPlacement) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto r = AvailableReservation("r", "", 800, 100, true);
  r.phase = reconcile::Phase::kPending;
  placement::PodSpecView tmpl = Pod("r", 800, 100);
  tmpl.uid = r.uid;
  ASSERT_TRUE(cache.PlaceAndAssumeReservation(tmpl, r, false).has_value());
  cache.MarkPlacementUnwritten(r.uid);
  ASSERT_TRUE(cache.UnwrittenPlacement(r.uid).has_value());
  cache.RemoveReservation(r.uid);
  EXPECT_FALSE(cache.IsReservationAssumed(r.uid));
  EXPECT_FALSE(cache.UnwrittenPlacement(r.uid).has_value());
  EXPECT_TRUE(cache.ScheduleAndAssumePod(Pod("other", 900, 10)).has_value());
}

TEST(SchedulerCacheTest, SeeingTheReservationPlacedEndsItsAssumption) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  auto r = AvailableReservation("r", "", 800, 100, true);
  r.phase = reconcile::Phase::kPending;
  placement::PodSpecView tmpl = Pod("r", 800, 100);
  tmpl.uid = r.uid;
  ASSERT_TRUE(cache.PlaceAndAssumeReservation(tmpl, r, false).has_value());
  cache.UpsertReservation(r);  // the watch shows an older, unplaced version: still assumed
  EXPECT_TRUE(cache.IsReservationAssumed(r.uid));
  auto placed = AvailableReservation("r", "node-0", 800, 100, true);
  cache.UpsertReservation(placed);
  EXPECT_FALSE(cache.IsReservationAssumed(r.uid));
  EXPECT_FALSE(cache.ScheduleAndAssumePod(Pod("other", 500, 10)).has_value());
}

TEST(SchedulerCacheTest, AnAllocateOnceReservationIsNeverGivenToTwoAssumedPods) {
  SchedulerCache cache;
  cache.UpsertNode(Node("node-0", 1000, 1024));
  cache.UpsertReservation(AvailableReservation("r", "node-0", 500, 100, /*allocate_once=*/true));
  auto a = Pod("a", 100, 10);
  a.labels = {{"app", "owner"}};
  auto b = Pod("b", 100, 10);
  b.labels = {{"app", "owner"}};
  auto first = cache.ScheduleAndAssumePod(a);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(first->reservation.has_value());
  EXPECT_EQ(first->reservation->uid, "ruid-r");
  auto second = cache.ScheduleAndAssumePod(b);
  ASSERT_TRUE(second.has_value());  // fits on the node's free 500m, but not in the reservation
  EXPECT_FALSE(second->reservation.has_value());
}

// RaceForReservations: `threads` workers schedule 300m pods against ten reusable 1-cpu
// reservations on five 4-cpu nodes; half the bindings fail and are forgotten, the rest are
// confirmed by the "informer". Returns, per reservation uid, what confirmed pods took from it.
std::map<std::string, int64_t> RaceForReservations(SchedulerCache& cache, placement::AllocatePolicy policy,
                                                   int& scheduled) {
  constexpr int kNodes = 5;
  constexpr int kReservations = 10;
  for (int i = 0; i < kNodes; ++i) cache.UpsertNode(Node("node-" + std::to_string(i), 4000, 8192));
  for (int i = 0; i < kReservations; ++i) {
    auto r = AvailableReservation("r" + std::to_string(i), "node-" + std::to_string(i % kNodes), 1000, 2048,
                                  /*allocate_once=*/false);
    r.allocate_policy = policy;
    cache.UpsertReservation(r);
  }
  std::mutex mu;
  std::map<std::string, int64_t> taken;
  std::atomic<int> count{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto pod = Pod("p" + std::to_string(t) + "-" + std::to_string(i), 300, 512);
        pod.labels = {{"app", "owner"}};
        auto d = cache.ScheduleAndAssumePod(pod);
        if (!d) continue;
        if (i % 2 == 0) {
          cache.ForgetPod(pod.uid);
          continue;
        }
        ++count;
        pod.node_name = d->node_name;
        if (d->reservation) {
          pod.reservation_uid = d->reservation->uid;
          std::lock_guard lock(mu);
          taken[d->reservation->uid] += d->from_reservation.contains("cpu") ? d->from_reservation.at("cpu") : 0;
        }
        cache.UpsertPod(pod);
      }
    });
  }
  for (auto& th : threads) th.join();
  scheduled = count.load();
  return taken;
}

void ExpectNoNodeOvercommitted(const SchedulerCache& cache, int scheduled) {
  int64_t total_cpu = 0;
  for (int i = 0; i < 5; ++i) {
    auto usage = cache.Usage("node-" + std::to_string(i));
    ASSERT_TRUE(usage.has_value());
    EXPECT_LE(usage->requested["cpu"], 4000);
    for (const auto& [name, amount] : usage->free) EXPECT_GE(amount, 0) << "node-" << i << " " << name;
    total_cpu += usage->requested["cpu"];
  }
  EXPECT_EQ(total_cpu, int64_t{scheduled} * 300);
}

TEST(SchedulerCacheTest, ConcurrentWorkersNeverTakeMoreFromAnAlignedReservationThanItHolds) {
  SchedulerCache cache;
  int scheduled = 0;
  auto taken = RaceForReservations(cache, placement::AllocatePolicy::kAligned, scheduled);
  EXPECT_GT(scheduled, 0);
  EXPECT_FALSE(taken.empty());
  // Aligned may take the rest of a pod from the node, so only the reservation's share is bounded.
  for (const auto& [uid, cpu] : taken) EXPECT_LE(cpu, 1000) << uid;
  ExpectNoNodeOvercommitted(cache, scheduled);
}

TEST(SchedulerCacheTest, ConcurrentWorkersNeverOverAllocateARestrictedReservationOrANode) {
  SchedulerCache cache;
  int scheduled = 0;
  auto taken = RaceForReservations(cache, placement::AllocatePolicy::kRestricted, scheduled);
  EXPECT_GT(scheduled, 0);
  EXPECT_FALSE(taken.empty());
  for (int i = 0; i < 10; ++i) {
    auto allocated = cache.Allocated("ruid-r" + std::to_string(i));
    EXPECT_LE(allocated["cpu"], 1000) << "reservation r" << i;
    EXPECT_LE(allocated["memory"], 2048 * kMi) << "reservation r" << i;
  }
  ExpectNoNodeOvercommitted(cache, scheduled);
}

TEST(SchedulerCacheTest, AReservationExpiresOnTheCachesClockAndIsReportedOnceForWakingParkedPods) {
  auto now = std::make_shared<std::atomic<int64_t>>(1'000'000);  // seconds since the epoch
  SchedulerCache cache({}, [now] { return reconcile::Time{} + std::chrono::seconds(now->load()); });
  cache.UpsertNode(Node("node-0", 4000, 4096));
  placement::ReservationView r = AvailableReservation("r", "node-0", 3000, 1024, false);
  r.expiry_deadline = reconcile::Time{} + std::chrono::seconds(1'000'010);
  cache.UpsertReservation(r);
  EXPECT_EQ(cache.NextExpiry(), r.expiry_deadline);
  placement::PodSpecView owner = Pod("owner", 500, 10);
  owner.labels = {{"app", "owner"}};
  auto before = cache.ScheduleAndAssumePod(owner);
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(before->reservation.has_value());
  EXPECT_FALSE(cache.ScheduleAndAssumePod(Pod("big", 2000, 10)).has_value()) << "3 of 4 cpu held";
  EXPECT_TRUE(cache.TakeExpired().empty());

  now->store(1'000'010);  // the deadline: no event, no status write, only the clock
  placement::PodSpecView owner2 = Pod("owner2", 500, 10);
  owner2.labels = {{"app", "owner"}};
  auto after = cache.ScheduleAndAssumePod(owner2);
  ASSERT_TRUE(after.has_value());
  EXPECT_FALSE(after->reservation.has_value()) << "an expired reservation must not be allocated";
  EXPECT_TRUE(cache.ScheduleAndAssumePod(Pod("big", 2000, 10)).has_value()) << "the held capacity is free";
  EXPECT_TRUE(cache.IsReservationExpired(r.uid));
  EXPECT_EQ(cache.TakeExpired(), std::vector<std::string>{r.uid});
  EXPECT_TRUE(cache.TakeExpired().empty()) << "reported once";
  EXPECT_FALSE(cache.NextExpiry().has_value());
}

}  // namespace
}  // namespace berth::controllers
