// Tests for the expiry rule in ClusterSnapshot (issue 9): from its deadline on, a reservation is
// neither allocated by owner pods nor holding capacity, whatever its phase says.
#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"
#include "reconcile/reservation/lifecycle.h"

namespace berth::reconcile::placement {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kCore = 1000;
const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 56);

NodeView Node(std::string name, int64_t cores) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Pod(std::string name, int64_t milli_cpu, std::string app = "owner") {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", std::move(app)}};
  p.requests["cpu"] = milli_cpu;
  return p;
}

ReservationView Reservation(std::string name, std::string node, int64_t cores, std::optional<Time> deadline) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = {{"cpu", cores * kCore}};
  r.allocate_once = false;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=owner");
  r.owners = {owner};
  r.expiry_deadline = deadline;
  return r;
}

TEST(SnapshotExpiry, OwnerPodUsesTheReservationOnlyBeforeItsDeadline) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  snap.UpsertReservation(Reservation("r", "n1", 2, kT0 + 10s));
  PodDecision before = snap.SchedulePod(Pod("a", 500));
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(before->reservation.has_value());
  EXPECT_EQ(before->reservation->name, "r");

  std::vector<std::string> expired = snap.AdvanceClock(kT0 + 10s);  // exactly the deadline
  EXPECT_EQ(expired, std::vector<std::string>{"r-uid"});
  EXPECT_TRUE(snap.IsExpired("r-uid"));
  PodDecision after = snap.SchedulePod(Pod("a", 500));
  ASSERT_TRUE(after.has_value()) << "the node still has free room";
  EXPECT_FALSE(after->reservation.has_value()) << "an expired reservation must not be allocated";
}

TEST(SnapshotExpiry, HeldCapacityIsReleasedForOtherPodsAtTheDeadline) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  snap.UpsertReservation(Reservation("r", "n1", 3, kT0 + 1s));
  EXPECT_EQ(snap.Usage("n1")->held.at("cpu"), 3 * kCore);
  EXPECT_FALSE(snap.SchedulePod(Pod("other", 2 * kCore, "other")).has_value()) << "3 of 4 cores are held";

  EXPECT_TRUE(snap.AdvanceClock(kT0 + 999ms).empty()) << "not yet";
  EXPECT_FALSE(snap.SchedulePod(Pod("other", 2 * kCore, "other")).has_value());
  snap.AdvanceClock(kT0 + 1s);
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
  EXPECT_EQ(snap.Usage("n1")->reservations, 0);
  EXPECT_TRUE(snap.SchedulePod(Pod("other", 2 * kCore, "other")).has_value());
}

TEST(SnapshotExpiry, AReservationAlreadyPastItsDeadlineIsExpiredOnArrival) {
  // A restart or takeover: the informer delivers an Available reservation whose ttl passed.
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  snap.UpsertReservation(Reservation("r", "n1", 2, kT0 - 1ms));
  EXPECT_TRUE(snap.IsExpired("r-uid"));
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
  PodDecision d = snap.SchedulePod(Pod("a", 500));
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->reservation.has_value());
  EXPECT_FALSE(snap.NextExpiry().has_value());
  EXPECT_TRUE(snap.AdvanceClock(kT0 + 1s).empty()) << "reported nothing: it never held capacity here";
}

TEST(SnapshotExpiry, AnExpiredReservationCannotBeAssumedPlaced) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  ReservationView pending = Reservation("r", "", 1, kT0);
  pending.phase = Phase::kPending;
  ReservationPlacement placement{"n1", {{"cpu", kCore}}, Phase::kAvailable, {}};
  EXPECT_FALSE(snap.AssumeReservation(pending, placement).has_value());
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
}

TEST(SnapshotExpiry, AMovedDeadlineIsFollowedAndNoDeadlineNeverExpires) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  snap.UpsertReservation(Reservation("r", "n1", 1, kT0 + 1s));
  snap.UpsertReservation(Reservation("forever", "n1", 1, std::nullopt));
  EXPECT_EQ(snap.NextExpiry(), kT0 + 1s);
  snap.UpsertReservation(Reservation("r", "n1", 1, kT0 + 1h));  // spec.expires moved later
  EXPECT_EQ(snap.NextExpiry(), kT0 + 1h);
  EXPECT_TRUE(snap.AdvanceClock(kT0 + 2s).empty());
  EXPECT_FALSE(snap.IsExpired("r-uid"));
  EXPECT_EQ(snap.AdvanceClock(kT0 + 24h), std::vector<std::string>{"r-uid"});
  EXPECT_FALSE(snap.IsExpired("forever-uid"));
  EXPECT_EQ(snap.Usage("n1")->held.at("cpu"), kCore) << "only the reservation without a deadline holds";
  snap.RemoveReservation("r-uid");
  EXPECT_FALSE(snap.NextExpiry().has_value());
}

TEST(SnapshotExpiry, TheClockNeverMovesBackwards) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0 + 10s);
  snap.AdvanceClock(kT0);  // ignored
  snap.UpsertReservation(Reservation("r", "n1", 1, kT0 + 5s));
  EXPECT_TRUE(snap.IsExpired("r-uid"));
}

TEST(SnapshotExpiry, UsesTheLifecycleRuleExpiresWinsOverTtl) {
  // The deadline the controller fills in is reconcile::ExpiryDeadline: one rule for both the
  // lifecycle controller and the scheduler.
  ReservationSnapshot r;
  r.creation_time = kT0;
  r.ttl = std::chrono::duration_cast<Duration>(1h);
  EXPECT_EQ(ExpiryDeadline(r), kT0 + 1h);
  r.expires = kT0 + 5min;
  EXPECT_EQ(ExpiryDeadline(r), kT0 + 5min);

  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0 + 6min);
  snap.UpsertReservation(Reservation("r", "n1", 1, ExpiryDeadline(r)));
  EXPECT_TRUE(snap.IsExpired("r-uid")) << "expires (5 min) passed although the ttl (1 h) did not";
}

}  // namespace
// Issue 13: an InvalidSpec reservation is never placed, holds nothing and is allocated by no
// pod, even when it was Available before its spec was found invalid (an edit after binding).
TEST(SnapshotInvalidSpec, AnAvailableReservationWithAnInvalidSpecHoldsNothingAndIsNotAllocated) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  ReservationView r = Reservation("r", "n1", 3, std::nullopt);
  snap.UpsertReservation(r);
  ASSERT_EQ(snap.Usage("n1")->held.at("cpu"), 3 * kCore);
  r.invalid_spec = true;
  snap.UpsertReservation(r);
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
  EXPECT_EQ(snap.Usage("n1")->reservations, 0);
  PodDecision owner = snap.SchedulePod(Pod("a", 500));
  ASSERT_TRUE(owner.has_value());
  EXPECT_FALSE(owner->reservation.has_value()) << "an InvalidSpec reservation must not be allocated";
  EXPECT_TRUE(snap.SchedulePod(Pod("other", 3 * kCore, "other")).has_value()) << "nothing is held";
  // Fixing the spec makes it hold and serve again.
  r.invalid_spec = false;
  snap.UpsertReservation(r);
  EXPECT_EQ(snap.Usage("n1")->held.at("cpu"), 3 * kCore);
}

TEST(SnapshotInvalidSpec, AnInvalidSpecReservationCannotBeAssumedPlaced) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.AdvanceClock(kT0);
  ReservationView r = Reservation("r", "", 2, std::nullopt);
  r.phase = Phase::kPending;
  r.invalid_spec = true;
  ReservationPlacement placement;
  placement.node_name = "n1";
  placement.allocatable = {{"cpu", 2 * kCore}};
  placement.phase = Phase::kAvailable;
  EXPECT_FALSE(snap.AssumeReservation(r, placement).has_value());
  EXPECT_EQ(snap.Usage("n1")->held.count("cpu"), 0u);
}

}  // namespace berth::reconcile::placement
