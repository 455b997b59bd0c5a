#include "clientgo-shim/watch/backoff.h"

#include <gtest/gtest.h>

#include "clientgo-shim/watch/fake_clock.h"

namespace berth::shim {
namespace {

using std::chrono::milliseconds;
using testing::FakeClock;
using testing::FixedRng;

TEST(BackoffTest, DelaysDoubleFrom800msAndStopAtTheThirtySecondCap) {
  FakeClock clock;
  FixedRng rng(0.0);  // no jitter drawn
  Backoff b({}, clock, rng);
  std::vector<int64_t> got;
  for (int i = 0; i < 8; ++i) {
    got.push_back(b.Next().count());
    clock.Advance(milliseconds(1));
  }
  EXPECT_EQ(got, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
}

TEST(BackoffTest, JitterOfOneAddsUpToTheStepAgain) {
  FakeClock clock;
  FixedRng rng(0.5);
  Backoff b({}, clock, rng);
  EXPECT_EQ(b.Next(), milliseconds(1200));  // 800 + 0.5 × 800
  EXPECT_EQ(b.Next(), milliseconds(2400));  // 1600 + 0.5 × 1600
  FixedRng almost_one(0.999);
  Backoff c({}, clock, almost_one);
  EXPECT_LT(c.Next(), milliseconds(1600));
}

TEST(BackoffTest, TwoMinutesWithoutABackoffStartOverAt800ms) {
  FakeClock clock;
  FixedRng rng(0.0);
  Backoff b({}, clock, rng);
  b.Next();
  b.Next();
  clock.Advance(std::chrono::seconds(119));
  EXPECT_EQ(b.Next(), milliseconds(3200));  // 119 s: still the same run
  clock.Advance(std::chrono::seconds(121));
  EXPECT_EQ(b.Next(), milliseconds(800));
}

TEST(BackoffTest, ResetStartsOverImmediately) {
  FakeClock clock;
  FixedRng rng(0.0);
  Backoff b({}, clock, rng);
  b.Next();
  b.Next();
  b.Reset();
  EXPECT_EQ(b.Next(), milliseconds(800));
}

TEST(BackoffTest, SeededRngIsDeterministicAndInRange) {
  SeededRng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    double x = a.Uniform();
    EXPECT_EQ(x, b.Uniform());
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

}  // namespace
}  // namespace berth::shim
