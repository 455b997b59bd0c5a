// Tests for clientgo-shim/leader/leader_fence: the write gate on an injected clock.
#include "clientgo-shim/leader/leader_fence.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

using namespace std::chrono_literals;

TEST(LeaderFenceTest, IsClosedUntilTheFirstRenewal) {
  FakeWaitClock clock;
  LeaderFence fence(10s, clock);
  EXPECT_FALSE(fence.MayWrite());
  Status s = fence.CheckWrite();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kFenced);
  EXPECT_EQ(s.error().message, "leader fence closed: this process does not lead");
  EXPECT_EQ(fence.ClosesAt(), SteadyTime::min());
}

TEST(LeaderFenceTest, StaysOpenForRenewDeadlineFromTheStartOfTheRenewal) {
  FakeWaitClock clock;
  LeaderFence fence(10s, clock);
  const SteadyTime start = clock.Now();
  clock.Advance(300ms);  // the renewal's round trip
  fence.Renewed(start);
  EXPECT_EQ(fence.ClosesAt(), start + 10s);
  EXPECT_TRUE(fence.MayWrite());
  EXPECT_TRUE(fence.CheckWrite());
  clock.Advance(9699ms);
  EXPECT_TRUE(fence.MayWrite());
  clock.Advance(1ms);  // exactly start + renewDeadline
  EXPECT_FALSE(fence.MayWrite());
  Status s = fence.CheckWrite();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kFenced);
  EXPECT_EQ(s.error().message,
            "leader fence closed: the last successful Lease renewal started 10.000s ago, more "
            "than renewDeadline 10.000s");
}

TEST(LeaderFenceTest, APauseClosesItWithoutAnyoneCallingIt) {
  // Nothing but time passes, as for a SIGSTOPped process: the next check is already closed.
  FakeWaitClock clock;
  LeaderFence fence(10s, clock);
  fence.Renewed(clock.Now());
  clock.Advance(25s);
  EXPECT_FALSE(fence.MayWrite());
  EXPECT_NE(fence.CheckWrite().error().message.find("started 25.000s ago"), std::string::npos);
}

TEST(LeaderFenceTest, AnOlderRenewalNeverMovesTheDeadlineBack) {
  FakeWaitClock clock;
  LeaderFence fence(10s, clock);
  const SteadyTime early = clock.Now();
  clock.Advance(5s);
  fence.Renewed(clock.Now());
  fence.Renewed(early);
  EXPECT_EQ(fence.ClosesAt(), early + 15s);
  clock.Advance(9s);
  EXPECT_TRUE(fence.MayWrite());
}

TEST(LeaderFenceTest, LoseClosesForGoodAndNamesTheReason) {
  FakeWaitClock clock;
  LeaderFence fence(10s, clock);
  fence.Renewed(clock.Now());
  fence.Lose("lease ns/l is held by other");
  EXPECT_TRUE(fence.lost());
  EXPECT_FALSE(fence.MayWrite());
  fence.Renewed(clock.Now());
  EXPECT_FALSE(fence.MayWrite()) << "a renewal after the loss must not reopen the fence";
  fence.Lose("second reason");
  EXPECT_EQ(fence.CheckWrite().error().message,
            "leader fence closed: leadership lost: lease ns/l is held by other");
}

}  // namespace
}  // namespace berth::shim
