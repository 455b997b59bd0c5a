#include "controllers/reservation/owner_sync.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

using namespace std::chrono_literals;
using reconcile::Condition;
using reconcile::OwnerRef;
using reconcile::Phase;
using reconcile::ReservationStatus;

ReservationStatus Available() {
  ReservationStatus s;
  s.phase = Phase::kAvailable;
  s.node_name = "node-1";
  s.allocatable = {{"cpu", 2000}};
  s.conditions = {Condition{"Ready", "True", "Available", "", std::nullopt, std::nullopt}};
  return s;
}

ReservationStatus WithOwner(ReservationStatus s, const std::string& pod) {
  s.current_owners.push_back(OwnerRef{"default", pod, "uid-" + pod});
  s.allocated["cpu"] += 500;
  return s;
}

TEST(OnlyOwnersChangedTest, ANewOwnerAndItsAllocationAreAnOwnerOnlyChange) {
  EXPECT_TRUE(OnlyOwnersChanged(Available(), WithOwner(Available(), "a")));
  EXPECT_TRUE(OnlyOwnersChanged(WithOwner(Available(), "a"), Available()));  // owner gone
}

TEST(OnlyOwnersChangedTest, NoChangeIsNotAnOwnerOnlyChange) {
  EXPECT_FALSE(OnlyOwnersChanged(Available(), Available()));
}

TEST(OnlyOwnersChangedTest, APhaseChangeIsNeverHeldEvenWithNewOwners) {
  ReservationStatus after = WithOwner(Available(), "a");
  after.phase = Phase::kSucceeded;
  EXPECT_FALSE(OnlyOwnersChanged(Available(), after));
}

TEST(OnlyOwnersChangedTest, AConditionChangeIsNeverHeld) {
  ReservationStatus after = WithOwner(Available(), "a");
  after.conditions[0].reason = "Waiting";
  EXPECT_FALSE(OnlyOwnersChanged(Available(), after));
}

TEST(OnlyOwnersChangedTest, ANodeOrAllocatableChangeIsNeverHeld) {
  ReservationStatus moved = WithOwner(Available(), "a");
  moved.node_name = "node-2";
  EXPECT_FALSE(OnlyOwnersChanged(Available(), moved));
  ReservationStatus bigger = WithOwner(Available(), "a");
  bigger.allocatable["cpu"] = 4000;
  EXPECT_FALSE(OnlyOwnersChanged(Available(), bigger));
}

TEST(OwnerSyncLimiterTest, TheFirstWriteOfAReservationGoesOutAtOnce) {
  OwnerSyncLimiter limiter(1s);
  auto t0 = OwnerSyncLimiter::Clock::time_point{} + 100s;
  EXPECT_FALSE(limiter.Hold("uid-1", t0).has_value());
}

TEST(OwnerSyncLimiterTest, WritesWithinTheIntervalWaitForItsEnd) {
  OwnerSyncLimiter limiter(1s);
  auto t0 = OwnerSyncLimiter::Clock::time_point{} + 100s;
  limiter.Wrote("uid-1", t0);
  auto hold = limiter.Hold("uid-1", t0 + 300ms);
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(*hold, 700ms);
  // Another reservation is not held by this one's write.
  EXPECT_FALSE(limiter.Hold("uid-2", t0 + 300ms).has_value());
}

TEST(OwnerSyncLimiterTest, OnceTheIntervalHasPassedTheWriteGoesOutAndTheEntryIsDropped) {
  OwnerSyncLimiter limiter(1s);
  auto t0 = OwnerSyncLimiter::Clock::time_point{} + 100s;
  limiter.Wrote("uid-1", t0);
  EXPECT_EQ(limiter.Size(), 1u);
  EXPECT_FALSE(limiter.Hold("uid-1", t0 + 1s).has_value());
  EXPECT_EQ(limiter.Size(), 0u);
}

TEST(OwnerSyncLimiterTest, ForgetDropsADeletedReservation) {
  OwnerSyncLimiter limiter(1s);
  auto t0 = OwnerSyncLimiter::Clock::time_point{} + 100s;
  limiter.Wrote("uid-1", t0);
  limiter.Forget("uid-1");
  EXPECT_EQ(limiter.Size(), 0u);
  EXPECT_FALSE(limiter.Hold("uid-1", t0 + 1ms).has_value());
}

TEST(OwnerSyncLimiterTest, AZeroIntervalNeverHoldsAndKeepsNothing) {
  OwnerSyncLimiter limiter(0s);
  auto t0 = OwnerSyncLimiter::Clock::time_point{} + 100s;
  limiter.Wrote("uid-1", t0);
  EXPECT_FALSE(limiter.Hold("uid-1", t0).has_value());
  EXPECT_EQ(limiter.Size(), 0u);
}

}  // namespace
}  // namespace berth::controllers
