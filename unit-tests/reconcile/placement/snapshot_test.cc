// Tests for reconcile/placement/snapshot.h: accounting, placement, owner scheduling, assumptions.
#include "reconcile/placement/snapshot.h"

#include <gtest/gtest.h>

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;  // milli-bytes
constexpr int64_t kCore = 1000;

NodeView Node(std::string name, int64_t cores, int64_t gi, int64_t pods = 110) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", gi * kGi}, {"pods", pods * 1000}};
  return n;
}

PodSpecView Pod(std::string name, int64_t milli_cpu, int64_t memory) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", "demo"}};
  if (milli_cpu) p.requests["cpu"] = milli_cpu;
  if (memory) p.requests["memory"] = memory;
  return p;
}

ReservationView Reservation(std::string name, std::string node, ResourceAmounts allocatable,
                            AllocatePolicy policy = AllocatePolicy::kAligned) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = std::move(allocatable);
  r.allocate_once = false;
  r.allocate_policy = policy;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=demo");
  r.owners = {owner};
  return r;
}

// Schedule schedules and assumes, as the controller does under its lock.
PodDecision Schedule(ClusterSnapshot& snap, const PodSpecView& pod) {
  PodDecision d = snap.SchedulePod(pod);
  if (d) EXPECT_TRUE(snap.AssumePod(pod, *d).has_value());
  return d;
}

TEST(Snapshot, FitErrorSummarisesEveryNodesReasons) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 1, 4));
  snap.UpsertNode(Node("n2", 1, 4));
  NodeView tainted = Node("n3", 8, 32);
  tainted.taints = {{"node-role", "x", "NoSchedule"}};
  snap.UpsertNode(tainted);
  PodDecision d = snap.SchedulePod(Pod("big", 2 * kCore, kGi));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/3 nodes are available: 1 node(s) had untolerated taint {node-role: x}, "
            "2 Insufficient cpu.");
  d = snap.SchedulePod(Pod("huge", 2 * kCore, 8 * kGi));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().reasons.at("Insufficient memory"), 2);
  EXPECT_EQ(d.error().reasons.at("Insufficient cpu"), 2);
}

TEST(Snapshot, TooManyPodsAndExtendedResources) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 4, /*pods=*/1));
  PodSpecView first = Pod("a", 100, 0);
  ASSERT_TRUE(Schedule(snap, first).has_value());
  PodDecision d = snap.SchedulePod(Pod("b", 100, 0));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Too many pods.");
  snap.RemovePod(first.uid);
  PodSpecView gpu = Pod("gpu", 100, 0);
  gpu.requests["nvidia.com/gpu"] = 1000;
  d = snap.SchedulePod(gpu);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
  NodeView with_gpu = Node("n1", 4, 4, 1);
  with_gpu.allocatable["nvidia.com/gpu"] = 1000;
  snap.UpsertNode(with_gpu);
  EXPECT_TRUE(snap.SchedulePod(gpu).has_value());
}

TEST(Snapshot, NoNodesGivesUpstreamsNoNodesMessage) {
  ClusterSnapshot snap;
  PodDecision d = snap.SchedulePod(Pod("a", 100, 0));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "no nodes available to schedule pods");
}

TEST(Snapshot, PinnedNodeIsStillCheckedForFit) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 1, 4));
  snap.UpsertNode(Node("n2", 8, 4));
  PodSpecView pod = Pod("p", 2 * kCore, 0);
  pod.node_name = "n1";
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match the requested "
            "node name.");
  pod.node_name = "missing";
  EXPECT_EQ(snap.SchedulePod(pod).error().reasons.at(
                "node(s) didn't match the requested node name"), 2);
}

TEST(Snapshot, LeastAllocatedSpreadsAndMostAllocatedPacks) {
  for (auto strategy : {ScoringStrategy::kLeastAllocated, ScoringStrategy::kMostAllocated}) {
    ClusterSnapshot snap({.scoring = strategy});
    snap.UpsertNode(Node("a", 4, 16));
    snap.UpsertNode(Node("b", 4, 16));
    PodSpecView first = Pod("first", kCore, kGi);
    first.node_name = "b";
    snap.UpsertPod(first);
    PodDecision d = snap.SchedulePod(Pod("next", kCore, kGi));
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->node_name, strategy == ScoringStrategy::kLeastAllocated ? "a" : "b");
  }
}

TEST(Snapshot, TiesGoToTheSmallestNodeName) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("zeta", 4, 16));
  snap.UpsertNode(Node("alpha", 4, 16));
  snap.UpsertNode(Node("mid", 4, 16));
  EXPECT_EQ(snap.SchedulePod(Pod("p", kCore, kGi))->node_name, "alpha");
}

TEST(Snapshot, NonOwnersNeverTakeReservedCapacity) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  snap.UpsertReservation(Reservation("r", "n1", {{"cpu", 3 * kCore}, {"memory", 8 * kGi}}));
  NodeUsage u = *snap.Usage("n1");
  EXPECT_EQ(u.held.at("cpu"), 3 * kCore);
  EXPECT_EQ(u.free.at("cpu"), kCore);
  PodSpecView stranger = Pod("stranger", 2 * kCore, kGi);
  stranger.labels = {{"app", "other"}};
  PodDecision d = snap.SchedulePod(stranger);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  // The owner gets it, from the reservation.
  PodDecision owner = snap.SchedulePod(Pod("owner", 2 * kCore, kGi));
  ASSERT_TRUE(owner.has_value());
  ASSERT_TRUE(owner->reservation.has_value());
  EXPECT_EQ(owner->reservation->name, "r");
  EXPECT_EQ(owner->from_reservation.at("cpu"), 2 * kCore);
  EXPECT_TRUE(owner->from_node.empty());
  // Deleting the reservation frees the capacity for everyone.
  snap.RemoveReservation("r-uid");
  EXPECT_TRUE(snap.SchedulePod(stranger).has_value());
}

TEST(Snapshot, RestrictedTakesReservedResourcesOnlyFromTheReservation) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 32, 64));
  snap.UpsertReservation(Reservation("r", "n1", {{"cpu", 4 * kCore}, {"memory", 8 * kGi}},
                                     AllocatePolicy::kRestricted));
  ASSERT_TRUE(Schedule(snap, Pod("p1", 2 * kCore, 2 * kGi)).has_value());
  ASSERT_TRUE(Schedule(snap, Pod("p2", 2 * kCore, 2 * kGi)).has_value());
  PodDecision third = Schedule(snap, Pod("p3", 0, 3 * kGi));
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->reservation->name, "r");
  PodDecision fourth = snap.SchedulePod(Pod("p4", 0, 2 * kGi));
  ASSERT_FALSE(fourth.has_value());
  EXPECT_EQ(fourth.error().Message(),
            "0/1 nodes are available: 1 node(s) reservations insufficient resources.");
  EXPECT_EQ(snap.Allocated("r-uid"),
            (ResourceAmounts{{"cpu", 4 * kCore}, {"memory", 7 * kGi}}));
}

TEST(Snapshot, AlignedTakesTheRemainderFromTheNode) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 32, 64));
  snap.UpsertReservation(Reservation("r", "n1", {{"cpu", 4 * kCore}, {"memory", 8 * kGi}}));
  ASSERT_TRUE(Schedule(snap, Pod("p1", 2 * kCore, 2 * kGi)).has_value());
  ASSERT_TRUE(Schedule(snap, Pod("p2", 2 * kCore, 2 * kGi)).has_value());
  ASSERT_TRUE(Schedule(snap, Pod("p3", 0, 3 * kGi)).has_value());
  PodDecision fourth = Schedule(snap, Pod("p4", 0, 2 * kGi));
  ASSERT_TRUE(fourth.has_value());
  EXPECT_EQ(fourth->reservation->name, "r");
  EXPECT_EQ(fourth->from_reservation, (ResourceAmounts{{"memory", kGi}}));
  EXPECT_EQ(fourth->from_node, (ResourceAmounts{{"memory", kGi}}));
  NodeUsage u = *snap.Usage("n1");
  EXPECT_EQ(u.requested.at("memory"), 9 * kGi);  // no double counting
  EXPECT_EQ(u.held.count("memory"), 0u);
  EXPECT_EQ(u.free.at("memory"), 55 * kGi);
}

TEST(Snapshot, AllocateOnceServesOneOwner) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  snap.UpsertNode(Node("n2", 4, 16));
  ReservationView r = Reservation("once", "n2", {{"cpu", 3 * kCore}});
  r.allocate_once = true;
  snap.UpsertReservation(r);
  PodDecision first = Schedule(snap, Pod("p1", kCore, 0));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->node_name, "n2");  // preferred despite being the more used node
  ASSERT_TRUE(first->reservation.has_value());
  PodDecision second = snap.SchedulePod(Pod("p2", kCore, 0));
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(second->reservation.has_value());
  // The remainder is still held for nobody until the lifecycle marks it Succeeded.
  EXPECT_EQ(snap.Usage("n2")->held.at("cpu"), 2 * kCore);
  r.phase = Phase::kSucceeded;
  r.has_current_owners = true;
  snap.UpsertReservation(r);
  EXPECT_EQ(snap.Usage("n2")->held.count("cpu"), 0u);
}

TEST(Snapshot, ThePodPicksTheReservationThatEndsUpMostAllocated) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 32, 64));
  snap.UpsertReservation(Reservation("big", "n1", {{"cpu", 8 * kCore}}));
  snap.UpsertReservation(Reservation("small", "n1", {{"cpu", 2 * kCore}}));
  PodDecision d = snap.SchedulePod(Pod("p", 2 * kCore, 0));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reservation->name, "small");
}

TEST(Snapshot, UnschedulableOrPendingReservationsAreNotUsedButStillHold) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  ReservationView r = Reservation("r", "n1", {{"cpu", 4 * kCore}});
  r.unschedulable = true;
  snap.UpsertReservation(r);
  PodDecision d = snap.SchedulePod(Pod("p", kCore, 0));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  r.unschedulable = false;
  r.phase = Phase::kPending;
  r.node_name.clear();
  snap.UpsertReservation(r);
  EXPECT_TRUE(snap.SchedulePod(Pod("p", kCore, 0)).has_value());
}

TEST(Snapshot, AssumedPodsAreCountedUntilForgottenOrConfirmed) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 2, 16));
  PodSpecView a = Pod("a", 2 * kCore, 0);
  ASSERT_TRUE(Schedule(snap, a).has_value());
  EXPECT_TRUE(snap.IsAssumed(a.uid));
  EXPECT_FALSE(snap.SchedulePod(Pod("b", kCore, 0)).has_value());
  // A watch update written before the binding does not drop the assumption.
  snap.UpsertPod(a);
  EXPECT_FALSE(snap.SchedulePod(Pod("b", kCore, 0)).has_value());
  snap.ForgetPod(a.uid);
  EXPECT_TRUE(snap.SchedulePod(Pod("b", kCore, 0)).has_value());
  // Confirmed by the watch: ForgetPod no longer removes it.
  ASSERT_TRUE(Schedule(snap, a).has_value());
  a.node_name = "n1";
  snap.UpsertPod(a);
  EXPECT_FALSE(snap.IsAssumed(a.uid));
  snap.ForgetPod(a.uid);
  EXPECT_FALSE(snap.SchedulePod(Pod("b", kCore, 0)).has_value());
  EXPECT_FALSE(snap.AssumePod(Pod("c", 1, 0), {.node_name = "nope"}).has_value());
  PodSpecView no_uid = Pod("d", 1, 0);
  no_uid.uid.clear();
  EXPECT_FALSE(snap.AssumePod(no_uid, {.node_name = "n1"}).has_value());
}

TEST(Snapshot, AssumedReservationHoldsUntilItsStatusArrives) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  ReservationView r = Reservation("r", "", {});
  r.phase = Phase::kPending;
  snap.UpsertReservation(r);
  PodSpecView tmpl = Pod("r", 3 * kCore, 0);
  ReservationDecision d = snap.PlaceReservation(tmpl, false);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "n1");
  EXPECT_EQ(d->phase, Phase::kAvailable);
  EXPECT_EQ(d->allocatable, (ResourceAmounts{{"cpu", 3 * kCore}}));
  ASSERT_TRUE(snap.AssumeReservation(r, *d).has_value());
  snap.UpsertReservation(r);  // a stale Pending view keeps the assumption
  EXPECT_EQ(snap.Usage("n1")->held.at("cpu"), 3 * kCore);
  EXPECT_FALSE(snap.PlaceReservation(Pod("r2", 2 * kCore, 0), false).has_value());
  snap.ForgetReservation(r.uid);
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
  EXPECT_FALSE(snap.AssumeReservation(r, {.node_name = "nope"}).has_value());
}

TEST(Snapshot, PreAllocationSkipsTheFitAndWaitsForCapacity) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  PodSpecView running = Pod("running", 3 * kCore, 0);
  running.node_name = "n1";
  snap.UpsertPod(running);
  PodSpecView tmpl = Pod("r", 2 * kCore, 0);
  EXPECT_FALSE(snap.PlaceReservation(tmpl, false).has_value());
  ReservationDecision d = snap.PlaceReservation(tmpl, true);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->phase, Phase::kWaiting);
  ReservationView r = Reservation("r", "", {});
  ASSERT_TRUE(snap.AssumeReservation(r, *d).has_value());
  EXPECT_FALSE(snap.ReservationFitsNow(r.uid));
  snap.RemovePod(running.uid);
  EXPECT_TRUE(snap.ReservationFitsNow(r.uid));
  // With room, preAllocation places it Available right away.
  ReservationDecision d2 = snap.PlaceReservation(Pod("r2", kCore, 0), true);
  ASSERT_TRUE(d2.has_value());
  EXPECT_EQ(d2->phase, Phase::kAvailable);
}

TEST(Snapshot, PreAllocationPrefersNodesWhereItFits) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a", 1, 16));
  snap.UpsertNode(Node("b", 4, 16));
  ReservationDecision d = snap.PlaceReservation(Pod("r", 2 * kCore, 0), true);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "b");
  EXPECT_EQ(d->phase, Phase::kAvailable);
  PodSpecView tmpl = Pod("r", 2 * kCore, 0);
  tmpl.node_selector = {{"zone", "x"}};
  ReservationDecision none = snap.PlaceReservation(tmpl, true);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().Message(),
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
}

TEST(Snapshot, OwnerMatchingThroughTheIndexCoversEveryOwnerKind) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8, 16));
  PodSpecView pod = Pod("web-0", kCore, 0);
  pod.owner_references = {{"apps/v1", "ReplicaSet", "web-rs", "rs-uid", true}};
  auto expect_nominated = [&](ReservationOwner owner, bool want) {
    ReservationView r = Reservation("r", "n1", {{"cpu", 2 * kCore}});
    r.owners = {std::move(owner)};
    snap.UpsertReservation(r);
    PodDecision d = snap.SchedulePod(pod);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->reservation.has_value(), want);
    snap.RemoveReservation(r.uid);
  };
  expect_nominated({.object = ObjectOwner{.uid = "web-0-uid"}}, true);
  expect_nominated({.object = ObjectOwner{.uid = "other"}}, false);
  expect_nominated({.object = ObjectOwner{.name = "web-0", .namespace_name = "default"}}, true);
  expect_nominated({.object = ObjectOwner{.name = "web-0"}}, true);
  expect_nominated({.object = ObjectOwner{.name = "web-0", .namespace_name = "x"}}, false);
  expect_nominated({.controller = ControllerOwner{.uid = "rs-uid"}}, true);
  expect_nominated({.controller = ControllerOwner{.name = "web-rs", .namespace_name = "x"}},
                   false);
  expect_nominated({.controller = ControllerOwner{.kind = "ReplicaSet"}}, true);
  expect_nominated({.label_selector = *shim::LabelSelector::Parse("app in (demo,x)")}, true);
  expect_nominated({.label_selector = *shim::LabelSelector::Parse("app notin (x)")}, true);
  expect_nominated({.label_selector = *shim::LabelSelector::Parse("app=x")}, false);
  expect_nominated({.controller = ControllerOwner{.uid = "rs-uid"},
                    .label_selector = *shim::LabelSelector::Parse("app=x")},
                   false);
}

// koordinator's LabelReservationIgnored: the pod allocates no reservation, but may take what the
// node's reservations hold unallocated (reservation_affinity_test.cc has the details).
TEST(Snapshot, ReservationIgnoredPodsNeverUseReservations) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4, 16));
  snap.UpsertReservation(Reservation("r", "n1", {{"cpu", 4 * kCore}}));
  PodSpecView pod = Pod("p", kCore, 0);
  pod.reservation_ignored = true;
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->reservation.has_value());
}

TEST(Snapshot, NodesComeAndGoWithoutLosingTheirPods) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 2, 16));
  PodSpecView pod = Pod("p", 2 * kCore, 0);
  pod.node_name = "n1";
  snap.UpsertPod(pod);
  snap.RemoveNode("n1");
  EXPECT_EQ(snap.NodeCount(), 0);
  EXPECT_FALSE(snap.Usage("n1").has_value());
  snap.UpsertNode(Node("n1", 2, 16));
  EXPECT_EQ(snap.NodeCount(), 1);
  EXPECT_EQ(snap.Usage("n1")->requested.at("cpu"), 2 * kCore);
  EXPECT_EQ(snap.Usage("n1")->requested.at("pods"), 1000);
  pod.node_name.clear();  // never happens for a bound pod, but must not leave a ghost
  snap.UpsertPod(pod);
  EXPECT_EQ(snap.Usage("n1")->requested.count("cpu"), 0u);
}

}  // namespace
}  // namespace berth::reconcile::placement
