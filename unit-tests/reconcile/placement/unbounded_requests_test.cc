// Quantities that are out of range (kUnboundedAmount, e.g. cpu "1e30") or do not parse: never
// counted as zero, never scheduled, and never wrapping the snapshot's sums.
#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kCore = 1000;
constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

NodeView Node(std::string name, int64_t cores) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", 64 * kGi}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Pod(std::string name, int64_t milli_cpu) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", "demo"}};
  p.requests["cpu"] = milli_cpu;
  return p;
}

ReservationView Reservation(std::string name, std::string node, ResourceAmounts allocatable) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = std::move(allocatable);
  r.allocate_once = false;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=demo");
  r.owners = {owner};
  return r;
}

TEST(UnboundedRequests, APodRequestingMoreThanInt64MilliFitsNoNode) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  PodDecision d = snap.SchedulePod(Pod("huge", kUnboundedAmount));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 Insufficient cpu.");
  // A request one below the bound is an ordinary (too large) request.
  d = snap.SchedulePod(Pod("large", kUnboundedAmount - 1));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_TRUE(snap.SchedulePod(Pod("small", kCore)).has_value());
}

TEST(UnboundedRequests, EvenANodeAdvertisingAnUnboundedCapacityCannotHoldIt) {
  ClusterSnapshot snap;
  NodeView node = Node("n1", 0);
  node.allocatable["cpu"] = kUnboundedAmount;
  snap.UpsertNode(node);
  PodDecision d = snap.SchedulePod(Pod("huge", kUnboundedAmount));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  // Ordinary pods still fit and score without overflow on such a node (both strategies).
  for (ScoringStrategy strategy : {ScoringStrategy::kLeastAllocated, ScoringStrategy::kMostAllocated}) {
    SchedulerOptions options;
    options.scoring = strategy;
    ClusterSnapshot scored(options);
    scored.UpsertNode(node);
    scored.UpsertNode(Node("n2", 8));
    EXPECT_TRUE(scored.SchedulePod(Pod("small", kCore)).has_value());
  }
}

TEST(UnboundedRequests, RequestErrorsMakeThePodUnschedulableNamingTheField) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  PodSpecView pod = Pod("bad", 0);
  pod.requests.clear();
  pod.request_errors = {"spec.containers[0].resources.requests.cpu: invalid quantity \"abc\"",
                        "spec.containers[1].resources.limits.memory: invalid quantity \"1Gb\""};
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "spec.containers[0].resources.requests.cpu: invalid quantity \"abc\"; "
            "spec.containers[1].resources.limits.memory: invalid quantity \"1Gb\"");
  ReservationDecision r = snap.PlaceReservation(pod, /*pre_allocation=*/true);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().Message(), d.error().Message());
  // Without nodes the field is still what the message names.
  ClusterSnapshot empty;
  d = empty.SchedulePod(pod);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), r.error().Message());
}

TEST(UnboundedRequests, AnUnboundedReservationIsNotPlacedNotEvenAsWaiting) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  for (bool pre_allocation : {false, true}) {
    ReservationDecision d = snap.PlaceReservation(Pod("r", kUnboundedAmount), pre_allocation);
    ASSERT_FALSE(d.has_value()) << pre_allocation;
    EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.") << pre_allocation;
  }
  // A running pod whose (unbounded) requests cover it is no way in either.
  PreAllocatablePod running;
  running.pod = Pod("running", kUnboundedAmount);
  running.pod.node_name = "n1";
  const ReservationView reservation = Reservation("r", "", {});
  EXPECT_TRUE(snap.PlacePreAllocation(Pod("r", kCore), reservation, {running}, PreAllocationPolicy{},
                                      PreAllocationOptions{})
                  .has_value());  // the control: an ordinary template takes that pod
  EXPECT_FALSE(snap.PlacePreAllocation(Pod("r", kUnboundedAmount), reservation, {running}, PreAllocationPolicy{},
                                       PreAllocationOptions{})
                   .has_value());
  PodSpecView invalid = Pod("r", kCore);
  invalid.request_errors = {"spec.template.spec.containers[0].resources.requests.cpu: invalid quantity \"x\""};
  EXPECT_FALSE(
      snap.PlacePreAllocation(invalid, reservation, {running}, PreAllocationPolicy{}, PreAllocationOptions{})
          .has_value());
}

TEST(UnboundedRequests, BoundPodsWithUnboundedRequestsFillTheNodeAndLeaveExactly) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  const NodeUsage before = *snap.Usage("n1");
  PodSpecView a = Pod("a", kUnboundedAmount);
  a.node_name = "n1";
  PodSpecView b = Pod("b", kUnboundedAmount);
  b.node_name = "n1";
  PodSpecView c = Pod("c", 3 * kCore);
  c.node_name = "n1";
  snap.UpsertPod(a);
  snap.UpsertPod(b);  // two unbounded pods: the 128-bit sums do not wrap
  snap.UpsertPod(c);
  NodeUsage full = *snap.Usage("n1");
  EXPECT_EQ(full.requested.at("cpu"), kUnboundedAmount);
  EXPECT_EQ(full.free.at("cpu"), -kUnboundedAmount);
  PodDecision d = snap.SchedulePod(Pod("small", 1));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  snap.RemovePod(a.uid);
  snap.RemovePod(b.uid);
  NodeUsage after = *snap.Usage("n1");
  EXPECT_EQ(after.requested.at("cpu"), 3 * kCore);  // exact, not what a saturated sum would leave
  EXPECT_EQ(after.free.at("cpu"), 5 * kCore);
  snap.RemovePod(c.uid);
  EXPECT_EQ(snap.Usage("n1")->free, before.free);
}

TEST(UnboundedRequests, UnboundedReservationsAndOwnersNeverOverflow) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertReservation(Reservation("huge", "n1", {{"cpu", kUnboundedAmount}}));
  // An owner pod with an unbounded request does not fit through an unbounded reservation.
  PodDecision d = snap.SchedulePod(Pod("owner", kUnboundedAmount));
  ASSERT_FALSE(d.has_value());
  // A small owner does, from the reservation.
  PodDecision small = snap.SchedulePod(Pod("owner-small", kCore));
  ASSERT_TRUE(small.has_value());
  ASSERT_TRUE(small->reservation.has_value());
  EXPECT_EQ(small->reservation->name, "huge");
  // A second one overcommits the node beyond int64: the sums stay exact and nothing fits.
  snap.UpsertReservation(Reservation("huge2", "n1", {{"cpu", kUnboundedAmount}}));
  NodeUsage u = *snap.Usage("n1");
  EXPECT_EQ(u.held.at("cpu"), kUnboundedAmount);
  EXPECT_EQ(u.free.at("cpu"), -kUnboundedAmount);
  EXPECT_FALSE(snap.SchedulePod(Pod("owner-small", kCore)).has_value());
  snap.RemoveReservation("huge2-uid");
  EXPECT_TRUE(snap.SchedulePod(Pod("owner-small", kCore)).has_value());
  snap.RemoveReservation("huge-uid");
  EXPECT_EQ(snap.Usage("n1")->free.at("cpu"), 8 * kCore);
}

}  // namespace
}  // namespace berth::reconcile::placement
