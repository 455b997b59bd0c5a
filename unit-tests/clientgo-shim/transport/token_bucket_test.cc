#include "clientgo-shim/transport/token_bucket.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

using std::chrono::milliseconds;
using Clock = TokenBucket::Clock;

TEST(TokenBucketTest, BurstIsAvailableImmediately) {
  TokenBucket b(5, 10);
  const Clock::time_point t0 = Clock::now() + std::chrono::hours(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(b.Reserve(t0), Clock::duration::zero()) << i;
  // The 11th waits one token interval (1/5 s), the 12th two.
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(b.Reserve(t0)), milliseconds(200));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(b.Reserve(t0)), milliseconds(400));
}

TEST(TokenBucketTest, TokensRefillAtQpsUpToBurst) {
  TokenBucket b(10, 2);
  const Clock::time_point t0 = Clock::now() + std::chrono::hours(1);
  EXPECT_EQ(b.Reserve(t0), Clock::duration::zero());
  EXPECT_EQ(b.Reserve(t0), Clock::duration::zero());
  EXPECT_GT(b.Reserve(t0), Clock::duration::zero());  // now owes one token
  // One hour later the bucket is full again but holds only `burst` tokens.
  const Clock::time_point t1 = t0 + std::chrono::hours(1);
  EXPECT_EQ(b.Reserve(t1), Clock::duration::zero());
  EXPECT_EQ(b.Reserve(t1), Clock::duration::zero());
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(b.Reserve(t1)), milliseconds(100));
}

TEST(TokenBucketTest, BurstBelowOneIsTreatedAsOne) {
  TokenBucket b(1, 0);
  const Clock::time_point t0 = Clock::now() + std::chrono::hours(1);
  EXPECT_EQ(b.Reserve(t0), Clock::duration::zero());
  EXPECT_GT(b.Reserve(t0), Clock::duration::zero());
}

}  // namespace
}  // namespace berth::shim
