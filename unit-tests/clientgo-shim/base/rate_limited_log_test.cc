#include "clientgo-shim/base/rate_limited_log.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/log_capture.h"

namespace berth::log {
namespace {

using namespace std::chrono_literals;
using berth::testing::LogCapture;

struct ManualTime {
  std::chrono::steady_clock::time_point now{std::chrono::hours(5)};
  RateLimitedLog::Now Fn() {
    return [this] { return now; };
  }
};

TEST(RateLimitedLogTest, OneLinePerKeyPerIntervalThenTheSuppressedCount) {
  LogCapture capture;
  ManualTime t;
  RateLimitedLog failures(30s, t.Fn());
  EXPECT_TRUE(failures.Write(Level::kError, "transport", "a", "first", {{"server", "s1"}}));
  EXPECT_FALSE(failures.Write(Level::kError, "transport", "a", "again"));
  t.now += 29s;
  EXPECT_FALSE(failures.Write(Level::kError, "transport", "a", "again"));
  // Another key is independent.
  EXPECT_TRUE(failures.Write(Level::kWarn, "transport", "b", "other"));
  t.now += 1s;
  EXPECT_TRUE(failures.Write(Level::kError, "transport", "a", "after the interval"));
  t.now += 30s;
  EXPECT_TRUE(failures.Write(Level::kError, "transport", "a", "quiet since"));

  auto lines = capture.Lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].Get("msg"), "first");
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("server"), "s1");
  EXPECT_EQ(lines[0].Get("suppressed"), "");
  EXPECT_EQ(lines[1].Get("msg"), "other");
  EXPECT_EQ(lines[1].Get("level"), "warn");
  EXPECT_EQ(lines[2].Get("msg"), "after the interval");
  EXPECT_EQ(lines[2].Get("suppressed"), "2");
  EXPECT_EQ(lines[3].Get("msg"), "quiet since");
  EXPECT_EQ(lines[3].Get("suppressed"), "");
}

TEST(RateLimitedLogTest, ZeroIntervalLogsEveryLine) {
  LogCapture capture;
  RateLimitedLog every(0ms);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(every.Write(Level::kWarn, "x", "k", "m"));
  EXPECT_EQ(capture.Matching("m").size(), 3u);
}

TEST(RateLimitedLogTest, LinesBelowTheLevelAreNeitherWrittenNorCounted) {
  LogCapture capture;
  ManualTime t;
  RateLimitedLog failures(30s, t.Fn());
  SetLevel(Level::kError);
  EXPECT_FALSE(failures.Write(Level::kWarn, "x", "k", "hidden"));
  SetLevel(Level::kInfo);
  // Not counted as logged: the next one at an enabled level is written at once.
  EXPECT_TRUE(failures.Write(Level::kWarn, "x", "k", "shown"));
  auto lines = capture.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].Get("msg"), "shown");
}

TEST(RateLimitedLogTest, ManyKeysStayBoundedAndStillLog) {
  LogCapture capture;
  ManualTime t;
  RateLimitedLog failures(30s, t.Fn());
  for (int i = 0; i < 3000; ++i) {
    t.now += 1ms;
    EXPECT_TRUE(failures.Write(Level::kWarn, "x", "key" + std::to_string(i), "m"));
  }
  // key0 was evicted long ago, so it logs again at once.
  EXPECT_TRUE(failures.Write(Level::kWarn, "x", "key0", "m"));
  // A recent key is still limited.
  EXPECT_FALSE(failures.Write(Level::kWarn, "x", "key2999", "m"));
}

}  // namespace
}  // namespace berth::log
