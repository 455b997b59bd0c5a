#include "e2e/kubesim/table/time_format.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

namespace berth::kubesim::table {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

struct DurationCase {
  int64_t nanos;
  const char* want;
};

TEST(HumanDuration, MatchesApimachineryAcrossEveryBand) {
  const DurationCase cases[] = {
      {-2 * kSecond, "<invalid>"},
      {-1 * kSecond - 1, "0s"},  // int(-1.000000001) == -1: tolerated skew
      {-500'000'000, "0s"},
      {0, "0s"},
      {999'999'999, "0s"},
      {1 * kSecond, "1s"},
      {88 * kSecond, "88s"},
      {119 * kSecond + 999'999'999, "119s"},
      {2 * kMinute, "2m"},
      {5 * kMinute + 2 * kSecond, "5m2s"},
      {9 * kMinute + 59 * kSecond, "9m59s"},
      {10 * kMinute + 30 * kSecond, "10m"},
      {179 * kMinute, "179m"},
      {3 * kHour, "3h"},
      {3 * kHour + 45 * kMinute, "3h45m"},
      {7 * kHour + 59 * kMinute, "7h59m"},
      {8 * kHour + 30 * kMinute, "8h"},
      {47 * kHour, "47h"},
      {48 * kHour, "2d"},
      {2 * kDay + 3 * kHour, "2d3h"},
      {7 * kDay + 23 * kHour, "7d23h"},
      {8 * kDay, "8d"},
      {400 * kDay, "400d"},
      {729 * kDay, "729d"},
      {730 * kDay, "2y"},
      {760 * kDay, "2y30d"},
      {8 * 365 * kDay, "8y"},
      {10 * 365 * kDay + 100 * kDay, "10y"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(HumanDuration(c.nanos), c.want) << c.nanos;
  }
}

TEST(ShortHumanDuration, UsesOneUnit) {
  EXPECT_EQ(ShortHumanDuration(-5 * kSecond), "<invalid>");
  EXPECT_EQ(ShortHumanDuration(59 * kSecond), "59s");
  EXPECT_EQ(ShortHumanDuration(61 * kSecond), "1m");
  EXPECT_EQ(ShortHumanDuration(23 * kHour + 59 * kMinute), "23h");
  EXPECT_EQ(ShortHumanDuration(364 * kDay), "364d");
  EXPECT_EQ(ShortHumanDuration(800 * kDay), "2y");
}

TEST(ParseRfc3339, ReadsUtcOffsetsAndFractions) {
  auto utc = ParseRfc3339("2024-05-01T10:00:00Z");
  ASSERT_TRUE(utc);
  EXPECT_EQ(utc->seconds, 1714557600);
  EXPECT_EQ(utc->nanos, 0);

  auto offset = ParseRfc3339("2024-05-01T12:30:00+02:30");
  ASSERT_TRUE(offset);
  EXPECT_EQ(offset->seconds, 1714557600);

  auto micro = ParseRfc3339("2024-05-01T10:00:00.123456Z");
  ASSERT_TRUE(micro);
  EXPECT_EQ(micro->nanos, 123456000);

  auto leap = ParseRfc3339("2024-02-29T00:00:00Z");
  EXPECT_TRUE(leap);
}

TEST(ParseRfc3339, RejectsMalformedInputWithoutCrashing) {
  for (const char* bad : {"", "2024", "2024-05-01", "2024-05-01 10:00:00Z", "2024-05-01T10:00:00",
                          "2024-13-01T10:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z",
                          "2024-05-01T10:60:00Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+0200",
                          "2024-05-01T10:00:00Zjunk", "2024-05-0xT10:00:00Z", "null"}) {
    auto t = ParseRfc3339(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(FormatRfc3339Utc, PrintsUtcWithoutFraction) {
  auto t = ParseRfc3339("2024-05-01T12:30:00.9+02:30");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339Utc(*t), "2024-05-01T10:00:00Z");
  EXPECT_EQ(FormatRfc3339Utc(Timestamp{-62135596800, 0}), "0001-01-01T00:00:00Z");
}

TEST(TimestampSince, IsUnknownForMissingMalformedOrZeroTimestamps) {
  const TimePoint now = testing::At("2024-05-01T10:05:02Z");
  rapidjson::Value ok("2024-05-01T10:00:00Z");
  rapidjson::Value zero("0001-01-01T00:00:00Z");
  rapidjson::Value bad("yesterday");
  rapidjson::Value null_value(rapidjson::kNullType);
  EXPECT_EQ(TimestampSince(&ok, now), "5m2s");
  EXPECT_EQ(TimestampSince(nullptr, now), "<unknown>");
  EXPECT_EQ(TimestampSince(&null_value, now), "<unknown>");
  EXPECT_EQ(TimestampSince(&zero, now), "<unknown>");
  EXPECT_EQ(TimestampSince(&bad, now), "<unknown>");
}

TEST(NanosBetween, SaturatesLikeGoTimeSub) {
  const Timestamp zero{-62135596800, 0};
  const Timestamp now{1714557600, 0};
  EXPECT_EQ(NanosBetween(zero, now), INT64_MAX);
  EXPECT_EQ(NanosBetween(now, zero), INT64_MIN);
}

}  // namespace
}  // namespace berth::kubesim::table
