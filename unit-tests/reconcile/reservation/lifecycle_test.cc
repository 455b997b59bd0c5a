#include "reconcile/reservation/lifecycle.h"

#include <gtest/gtest.h>

namespace berth::reconcile {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kT0 = std::chrono::sys_days{std::chrono::year{2026} / 1 / 1};  // 2026-01-01T00:00:00Z

ReservationSnapshot Reservation(Phase phase = Phase::kAvailable) {
  ReservationSnapshot r;
  r.name = "r1";
  r.uid = "uid-r1";
  r.creation_time = kT0;
  r.ttl = hours(24);
  r.ttl_text = "24h";
  r.status.phase = phase;
  if (phase != Phase::kPending) r.status.node_name = "node-0";
  r.status.allocatable = {{"cpu", 500}, {"memory", 800}};
  return r;
}

ConsumerPod Pod(std::string name, std::string uid, int64_t cpu) {
  return ConsumerPod{"default", std::move(name), std::move(uid), false, false, {{"cpu", cpu}, {"memory", 100}, {"pods", 1000}}};
}

const Condition* Ready(const ReservationStatus& s) {
  for (const auto& c : s.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

LifecycleOptions Options(Duration gc = hours(24)) { return LifecycleOptions{gc}; }

TEST(ExpiryDeadlineTest, TtlCountsFromCreation) {
  auto r = Reservation();
  r.ttl = hours(1);
  EXPECT_EQ(ExpiryDeadline(r), kT0 + hours(1));
}

TEST(ExpiryDeadlineTest, ExpiresWinsOverTheDefaultedTtlEvenWhenLater) {
  auto r = Reservation();
  r.expires = kT0 + hours(30);
  EXPECT_EQ(ExpiryDeadline(r), kT0 + hours(30));
  r.expires = kT0 + minutes(5);
  EXPECT_EQ(ExpiryDeadline(r), kT0 + minutes(5));
}

TEST(ExpiryDeadlineTest, ZeroTtlWithoutExpiresNeverExpiresButExpiresStillApplies) {
  auto r = Reservation();
  r.ttl = Duration(0);
  EXPECT_EQ(ExpiryDeadline(r), std::nullopt);
  r.expires = kT0 + hours(2);
  EXPECT_EQ(ExpiryDeadline(r), kT0 + hours(2));
}

TEST(ExpiryDeadlineTest, AbsentOrNegativeTtlWithoutExpiresNeverExpires) {
  auto r = Reservation();
  r.ttl.reset();
  EXPECT_EQ(ExpiryDeadline(r), std::nullopt);
  r.ttl = -hours(1);
  EXPECT_EQ(ExpiryDeadline(r), std::nullopt);
}

TEST(DecideReservationTest, BeforeTheDeadlineRequeuesForExactlyTheDeadline) {
  auto r = Reservation();
  r.ttl = seconds(3);
  auto d = DecideReservation(r, kT0 + seconds(1), Options());
  EXPECT_FALSE(d.status.has_value());
  EXPECT_EQ(d.requeue_after, Duration(seconds(2)));
}

TEST(DecideReservationTest, AtTheDeadlineAvailableTurnsFailedExpiredWithMessageAndWarning) {
  auto r = Reservation();
  r.ttl = hours(1);
  r.ttl_text = "1h";
  auto d = DecideReservation(r, kT0 + hours(1), Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(d.status->phase, Phase::kFailed);
  const Condition* ready = Ready(*d.status);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "Expired");
  EXPECT_EQ(ready->message, "expired at 2026-01-01T01:00:00Z (ttl 1h)");
  EXPECT_EQ(ready->last_transition_time, kT0 + hours(1));
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Warning");
  EXPECT_EQ(d.events[0].reason, "Expired");
  ASSERT_TRUE(d.transition.has_value());
  EXPECT_EQ(d.transition->from, Phase::kAvailable);
  EXPECT_EQ(d.transition->to, Phase::kFailed);
  EXPECT_EQ(d.deadline, kT0 + hours(1));
  // Entering Failed schedules the GC.
  EXPECT_EQ(d.requeue_after, Duration(hours(24)));
}

TEST(DecideReservationTest, TheExpiryWriteCarriesTheOwnersOfThatMomentSinceATerminalOneIsNotSyncedAgain) {
  // An owner deleted before the deadline whose owner-only write never landed (held, failed, or lost with
  // a leader): the write that ends the reservation drops it, and no later write would.
  auto r = Reservation();
  r.ttl = hours(1);
  r.ttl_text = "1h";
  r.status.current_owners = {{"default", "gone", "uid-gone"}, {"default", "stays", "uid-stays"}};
  r.status.allocated = {{"cpu", 200}, {"memory", 200}};
  r.consumers = {Pod("stays", "uid-stays", 100)};
  auto d = DecideReservation(r, kT0 + hours(1), Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(d.status->phase, Phase::kFailed);
  ASSERT_EQ(d.status->current_owners.size(), 1u);
  EXPECT_EQ(d.status->current_owners[0].uid, "uid-stays");
  EXPECT_EQ(d.status->allocated, (ResourceAmounts{{"cpu", 100}, {"memory", 100}}));
  // Once Failed, owners are left as they were written.
  r.status = *d.status;
  r.consumers.clear();
  EXPECT_FALSE(DecideReservation(r, kT0 + hours(2), Options()).status.has_value());
}

TEST(DecideReservationTest, PendingReservationsExpireToo) {
  auto r = Reservation(Phase::kPending);
  r.expires = kT0 - seconds(1);
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(d.status->phase, Phase::kFailed);
  EXPECT_NE(Ready(*d.status)->message.find("expires 2025-12-31T23:59:59Z"), std::string::npos);
}

TEST(DecideReservationTest, DeletedNodeFailsExpiredAsKoordinatorDoesWithAMessageNamingTheNode) {
  for (Phase phase : {Phase::kAvailable, Phase::kWaiting, Phase::kPending}) {
    auto r = Reservation(phase);
    r.status.node_name = "node-7";
    r.node_exists = false;
    auto d = DecideReservation(r, kT0 + seconds(1), Options());
    ASSERT_TRUE(d.status.has_value()) << PhaseName(phase);
    EXPECT_EQ(d.status->phase, Phase::kFailed);
    EXPECT_EQ(Ready(*d.status)->status, "False");
    EXPECT_EQ(Ready(*d.status)->reason, "Expired");
    EXPECT_EQ(Ready(*d.status)->message, "node node-7 was deleted");
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0].reason, "Expired");
    // Collected kNodeGoneGcDelay after it ended, not after the day-long retention.
    EXPECT_EQ(d.requeue_after, kNodeGoneGcDelay);
  }
}

TEST(DecideReservationTest, TerminalReservationsOnAGoneNodeAreCollectedWithoutWaitingForTheRetention) {
  for (const char* reason : {"Expired", "Succeeded"}) {
    auto r = Reservation(std::string_view(reason) == "Expired" ? Phase::kFailed : Phase::kSucceeded);
    r.status.conditions = {{"Ready", "False", reason, "", kT0, kT0}};
    r.node_exists = false;
    EXPECT_FALSE(DecideReservation(r, kT0 + seconds(29), Options()).delete_reservation) << reason;
    EXPECT_EQ(DecideReservation(r, kT0 + seconds(29), Options()).requeue_after, seconds(1)) << reason;
    EXPECT_TRUE(DecideReservation(r, kT0 + seconds(30), Options()).delete_reservation) << reason;
    // A shorter retention still wins; GC switched off still collects nothing.
    EXPECT_TRUE(DecideReservation(r, kT0 + seconds(5), Options(seconds(5))).delete_reservation) << reason;
    EXPECT_FALSE(DecideReservation(r, kT0 + hours(100), Options(Duration(0))).delete_reservation) << reason;
  }
}

TEST(DecideReservationTest, OwnersAreSortedByUidDeduplicatedAndMasked) {
  auto r = Reservation();
  r.allocate_once = false;
  r.consumers = {Pod("b", "uid-b", 100), Pod("a", "uid-a", 200), Pod("a", "uid-a", 200)};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  ASSERT_EQ(d.status->current_owners.size(), 2u);
  EXPECT_EQ(d.status->current_owners[0].uid, "uid-a");
  EXPECT_EQ(d.status->current_owners[1].uid, "uid-b");
  // pods is not in allocatable, so it is masked away.
  EXPECT_EQ(d.status->allocated, (ResourceAmounts{{"cpu", 300}, {"memory", 200}}));
  EXPECT_EQ(d.status->phase, Phase::kAvailable);
}

TEST(DecideReservationTest, TerminalAndDeletingPodsNoLongerCount) {
  auto r = Reservation();
  r.allocate_once = false;
  auto done = Pod("done", "uid-done", 100);
  done.terminal = true;
  auto going = Pod("going", "uid-going", 100);
  going.deleting = true;
  r.consumers = {done, going};
  r.status.current_owners = {{"default", "done", "uid-done"}};
  r.status.allocated = {{"cpu", 100}};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_TRUE(d.status->current_owners.empty());
  EXPECT_TRUE(d.status->allocated.empty());
}

TEST(DecideReservationTest, AllocateOnceTurnsSucceededOnTheFirstOwner) {
  auto r = Reservation();
  r.consumers = {Pod("pod-demo-0", "uid-p", 200)};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(d.status->phase, Phase::kSucceeded);
  EXPECT_EQ(Ready(*d.status)->reason, "Succeeded");
  EXPECT_EQ(d.status->current_owners.size(), 1u);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Normal");
}

TEST(DecideReservationTest, AnOwnerBoundBeforeThePlacementWriteGivesTheSucceededReservationItsNode) {
  // The scheduler bound a pod into the placement it had assumed; its status write, still to come,
  // will conflict with this one and is not made again for a Succeeded reservation.
  auto r = Reservation(Phase::kPending);
  auto owner = Pod("a", "uid-a", 200);
  owner.node_name = "node-7";
  auto gone = Pod("b", "uid-b", 100);
  gone.node_name = "node-9";
  gone.deleting = true;
  r.consumers = {gone, owner};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(d.status->phase, Phase::kSucceeded);
  EXPECT_EQ(d.status->node_name, "node-7");
  // A placed reservation keeps its own node whatever its consumers say.
  auto placed = Reservation(Phase::kAvailable);
  placed.consumers = {owner};
  auto p = DecideReservation(placed, kT0, Options());
  ASSERT_TRUE(p.status.has_value());
  EXPECT_EQ(p.status->node_name, "node-0");
  // No bound consumer: no node is made up.
  auto unbound = Reservation(Phase::kPending);
  unbound.consumers = {Pod("c", "uid-c", 100)};
  auto u = DecideReservation(unbound, kT0, Options());
  ASSERT_TRUE(u.status.has_value());
  EXPECT_EQ(u.status->node_name, "");
  // Not allocateOnce: it stays Pending, and a node written here would stop the scheduler's retry
  // (it places only reservations without one) from writing Available.
  auto reusable = Reservation(Phase::kPending);
  reusable.allocate_once = false;
  reusable.consumers = {owner};
  auto m = DecideReservation(reusable, kT0, Options());
  ASSERT_TRUE(m.status.has_value());
  EXPECT_EQ(m.status->phase, Phase::kPending);
  EXPECT_EQ(m.status->node_name, "");
}

TEST(DecideReservationTest, SucceededStaysAfterThePodGoesAndNeverExpires) {
  auto r = Reservation(Phase::kSucceeded);
  r.ttl = seconds(1);
  r.status.conditions = {{"Ready", "False", "Succeeded", "", kT0, kT0}};
  auto d = DecideReservation(r, kT0 + hours(1), Options());
  EXPECT_FALSE(d.status.has_value());
  EXPECT_FALSE(d.delete_reservation);
  EXPECT_EQ(d.requeue_after, Duration(hours(23)));
}

TEST(DecideReservationTest, TerminalReservationsAreDeletedWhenRetentionPasses) {
  auto r = Reservation(Phase::kFailed);
  r.status.conditions = {{"Ready", "False", "Expired", "", kT0, kT0}};
  EXPECT_FALSE(DecideReservation(r, kT0 + seconds(9), Options(seconds(10))).delete_reservation);
  EXPECT_TRUE(DecideReservation(r, kT0 + seconds(10), Options(seconds(10))).delete_reservation);
}

TEST(DecideReservationTest, ZeroRetentionDisablesGc) {
  auto r = Reservation(Phase::kFailed);
  r.status.conditions = {{"Ready", "False", "Expired", "", kT0, kT0}};
  auto d = DecideReservation(r, kT0 + hours(1000), Options(Duration(0)));
  EXPECT_FALSE(d.delete_reservation);
  EXPECT_EQ(d.requeue_after, std::nullopt);
}

TEST(DecideReservationTest, PendingReservationsAreNeverGarbageCollected) {
  auto r = Reservation(Phase::kPending);
  r.ttl = Duration(0);
  auto d = DecideReservation(r, kT0 + hours(1000), Options(seconds(1)));
  EXPECT_FALSE(d.delete_reservation);
  EXPECT_FALSE(d.status.has_value());
}

TEST(DecideReservationTest, NoWriteWhenNothingChanged) {
  auto r = Reservation();
  r.allocate_once = false;
  r.consumers = {Pod("a", "uid-a", 200)};
  r.status.current_owners = {{"default", "a", "uid-a"}};
  r.status.allocated = {{"cpu", 200}, {"memory", 100}};
  auto d = DecideReservation(r, kT0, Options());
  EXPECT_FALSE(d.status.has_value());
  EXPECT_TRUE(d.events.empty());
}

TEST(DecideReservationTest, SpecErrorsGiveAConditionAndOneEventOnly) {
  auto r = Reservation(Phase::kPending);
  r.spec_errors = {"spec.ttl: must not be negative"};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  EXPECT_EQ(Ready(*d.status)->reason, "InvalidSpec");
  EXPECT_EQ(d.events.size(), 1u);
  r.status = *d.status;
  auto again = DecideReservation(r, kT0 + seconds(1), Options());
  EXPECT_FALSE(again.status.has_value());
  EXPECT_TRUE(again.events.empty());
}

TEST(DecideReservationTest, AFixedSpecDropsTheInvalidSpecConditionOnceWithAnEvent) {
  auto r = Reservation();
  r.spec_errors = {"spec.ttl: must not be negative"};
  auto d = DecideReservation(r, kT0, Options());
  ASSERT_TRUE(d.status.has_value());
  r.status = *d.status;
  r.spec_errors.clear();
  r.ttl = hours(1);
  auto fixed = DecideReservation(r, kT0 + seconds(1), Options());
  ASSERT_TRUE(fixed.status.has_value());
  EXPECT_EQ(Ready(*fixed.status), nullptr);
  ASSERT_EQ(fixed.events.size(), 1u);
  EXPECT_EQ(fixed.events[0].type, "Normal");
  EXPECT_EQ(fixed.events[0].reason, "SpecValid");
  r.status = *fixed.status;
  auto again = DecideReservation(r, kT0 + seconds(2), Options());
  EXPECT_FALSE(again.status.has_value());
  EXPECT_TRUE(again.events.empty());
}

TEST(DecideReservationTest, AReadyConditionWithAnotherReasonIsKeptWhenTheSpecIsValid) {
  auto r = Reservation();
  r.status.conditions.push_back({"Ready", "True", "Available", "", kT0, kT0});
  auto d = DecideReservation(r, kT0 + seconds(1), Options());
  EXPECT_FALSE(d.status.has_value());
  EXPECT_TRUE(d.events.empty());
}

TEST(GcDeadlineTest, APreciseTerminalTimeInsideTheTransitionSecondRefinesIt) {
  auto r = Reservation(Phase::kFailed);
  r.status.conditions.push_back({"Ready", "False", "Expired", "", kT0, kT0});
  r.terminal_since_precise = kT0 + milliseconds(600);
  EXPECT_EQ(GcDeadline(r, seconds(3)), kT0 + milliseconds(3600));
}

TEST(GcDeadlineTest, APreciseTerminalTimeOutsideTheTransitionSecondIsIgnored) {
  auto r = Reservation(Phase::kFailed);
  r.status.conditions.push_back({"Ready", "False", "Expired", "", kT0, kT0});
  r.terminal_since_precise = kT0 + milliseconds(1500);  // another transition's, not this one
  EXPECT_EQ(GcDeadline(r, seconds(3)), kT0 + seconds(3));
  r.terminal_since_precise = kT0 - milliseconds(1);
  EXPECT_EQ(GcDeadline(r, seconds(3)), kT0 + seconds(3));
}

TEST(DecideReservationTest, DeletingReservationsAreLeftAlone) {
  auto r = Reservation();
  r.deleting = true;
  r.ttl = seconds(1);
  auto d = DecideReservation(r, kT0 + hours(1), Options());
  EXPECT_FALSE(d.status.has_value());
  EXPECT_FALSE(d.delete_reservation);
}

TEST(SetConditionTest, TransitionTimeMovesOnlyWhenStatusChanges) {
  std::vector<Condition> conditions;
  SetCondition(conditions, "Ready", "True", "Available", "", kT0);
  SetCondition(conditions, "Ready", "True", "Available", "x", kT0 + seconds(5));
  EXPECT_EQ(conditions[0].last_transition_time, kT0);
  EXPECT_EQ(conditions[0].last_probe_time, kT0 + seconds(5));
  SetCondition(conditions, "Ready", "False", "Expired", "", kT0 + seconds(9));
  EXPECT_EQ(conditions[0].last_transition_time, kT0 + seconds(9));
}

TEST(PhaseTest, ParsesWireNamesAndTreatsEmptyAsPending) {
  EXPECT_EQ(ParsePhase(""), Phase::kPending);
  EXPECT_EQ(ParsePhase("Waiting"), Phase::kWaiting);
  EXPECT_EQ(ParsePhase("Bogus"), std::nullopt);
  EXPECT_EQ(PhaseName(Phase::kSucceeded), "Succeeded");
}

}  // namespace
}  // namespace berth::reconcile
