#include "clientgo-shim/api/timestamp.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

using namespace std::chrono;

TimePoint T(std::string_view s) {
  auto t = ParseTimestamp(s);
  EXPECT_TRUE(t.has_value()) << s << ": " << (t ? "" : t.error().message);
  return t ? *t : TimePoint{};
}

TEST(TimestampTest, ParsesUtcAndOffsetsKeepingNanoseconds) {
  EXPECT_EQ(T("1970-01-01T00:00:00Z").time_since_epoch(), nanoseconds(0));
  EXPECT_EQ(T("2024-05-01T12:00:00Z").time_since_epoch(), seconds(1714564800));
  EXPECT_EQ(T("2024-05-01T14:00:00+02:00"), T("2024-05-01T12:00:00Z"));
  EXPECT_EQ(T("2024-05-01T07:30:00-04:30"), T("2024-05-01T12:00:00Z"));
  EXPECT_EQ(T("2024-05-01T12:00:00.5Z") - T("2024-05-01T12:00:00Z"), milliseconds(500));
  EXPECT_EQ(T("2024-05-01T12:00:00.123456789Z") - T("2024-05-01T12:00:00Z"),
            nanoseconds(123456789));
  // Digits past nanoseconds are truncated, as Go does.
  EXPECT_EQ(T("2024-05-01T12:00:00.1234567899Z") - T("2024-05-01T12:00:00Z"),
            nanoseconds(123456789));
  EXPECT_EQ(T("2024-02-29T00:00:00Z") + hours(24), T("2024-03-01T00:00:00Z"));
  EXPECT_EQ(T("1969-12-31T23:59:59Z").time_since_epoch(), seconds(-1));
}

TEST(TimestampTest, RejectsMalformedTimestampsWithClearErrors) {
  for (const char* bad :
       {"", "2024-05-01", "2024-05-01 12:00:00Z", "2024-05-01T12:00:00", "2024-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z",
        "2024-05-01T12:00:60Z", "2024-05-01t12:00:00z", "2024-05-01T12:00:00+0200",
        "2024-05-01T12:00:00+24:00", "2024-05-01T12:00:00.Z", "24-05-01T12:00:00Z",
        "2024-05-01T12:00:00ZZ", "2024-05-01T12:00:00 Z", "x024-05-01T12:00:00Z"}) {
    auto t = ParseTimestamp(bad);
    ASSERT_FALSE(t.has_value()) << bad;
    EXPECT_EQ(t.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(t.error().message.rfind(std::string("parsing time \"") + bad +
                                          "\" as \"2006-01-02T15:04:05Z07:00\": ",
                                      0),
              0u)
        << t.error().message;
  }
  EXPECT_NE(ParseTimestamp("2023-02-29T00:00:00Z").error().message.find("day out of range"),
            std::string::npos);
}

TEST(TimestampTest, MicroTimeNeedsExactlySixFractionDigits) {
  auto ok = ParseMicroTimestamp("2024-05-01T12:00:00.000001Z");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok - T("2024-05-01T12:00:00Z"), microseconds(1));
  for (const char* bad : {"2024-05-01T12:00:00Z", "2024-05-01T12:00:00.12345Z",
                          "2024-05-01T12:00:00.1234567Z"}) {
    auto t = ParseMicroTimestamp(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_NE(t.error().message.find("2006-01-02T15:04:05.000000Z07:00"), std::string::npos);
  }
}

TEST(TimestampTest, FormatsLikeMetav1TimeAndMicroTime) {
  TimePoint t = T("2024-05-01T14:03:04.123456789+02:00");
  EXPECT_EQ(FormatTimestamp(t), "2024-05-01T12:03:04Z");
  EXPECT_EQ(FormatMicroTimestamp(t), "2024-05-01T12:03:04.123456Z");
  EXPECT_EQ(FormatTimestamp(TimePoint{}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatMicroTimestamp(TimePoint{}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatTimestamp(T("1969-12-31T23:59:59.5Z")), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatTimestamp(T("2261-12-31T23:59:59Z")), "2261-12-31T23:59:59Z");
  EXPECT_FALSE(ParseTimestamp("9999-12-31T23:59:59Z"));
  EXPECT_FALSE(ParseTimestamp("0001-01-01T00:00:00Z"));
}

TEST(TimestampTest, FormatThenParseRoundTrips) {
  TimePoint t = T("2031-07-15T08:09:10.654321Z");
  EXPECT_EQ(*ParseMicroTimestamp(FormatMicroTimestamp(t)), t);
  EXPECT_EQ(*ParseTimestamp(FormatTimestamp(t)), T("2031-07-15T08:09:10Z"));
}

TEST(TimestampTest, UnixTimeHoldsGoZeroTimeAndEveryFourDigitYear) {
  auto zero = ParseUnixTime("0001-01-01T00:00:00Z");
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, (UnixTime{-62135596800, 0}));
  EXPECT_EQ(FormatUnixTime(*zero), "0001-01-01T00:00:00Z");
  auto last = ParseUnixTime("9999-12-31T23:59:59.999999999Z");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->nanos, 999999999);
  EXPECT_EQ(FormatUnixTime(*last), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatUnixTime(*ParseUnixTime("0000-03-01T00:00:00+01:00")), "0000-02-29T23:00:00Z");
  EXPECT_EQ(FormatUnixTime(UnixTime{-1, 500000000}), "1969-12-31T23:59:59Z");
}

TEST(TimestampTest, UnixTimeAgreesWithTimePointInsideItsRange) {
  auto u = ParseUnixTime("2024-05-01T14:03:04.123456789+02:00");
  ASSERT_TRUE(u.has_value());
  const TimePoint t = T("2024-05-01T14:03:04.123456789+02:00");
  EXPECT_EQ(u->seconds, duration_cast<seconds>(t.time_since_epoch()).count());
  EXPECT_EQ(u->nanos, 123456789);
  EXPECT_EQ(FormatUnixTime(*u), FormatTimestamp(t));
}

TEST(TimestampTest, UnixTimeRejectsWhatParseTimestampRejectsWithTheSameMessage) {
  for (const char* bad : {"", "2024-05-01T12:00:00", "2023-02-29T00:00:00Z", "2024-05-01T12:00:00.Z",
                          "2024-05-01T12:00:00+0200", "2024-05-01T12:00:00ZZ"}) {
    auto u = ParseUnixTime(bad);
    ASSERT_FALSE(u.has_value()) << bad;
    EXPECT_EQ(u.error().message, ParseTimestamp(bad).error().message) << bad;
  }
}

TEST(TimestampTest, CommaIsADecimalMarkExceptInTheMicroLayout) {
  EXPECT_EQ(T("2024-05-01T12:00:00,25Z"), T("2024-05-01T12:00:00.25Z"));
  EXPECT_EQ(ParseUnixTime("2024-05-01T12:00:00,5Z")->nanos, 500000000);
  EXPECT_FALSE(ParseMicroTimestamp("2024-05-01T12:00:00,123456Z").has_value());
  EXPECT_FALSE(ParseTimestamp("2024-05-01T12:00:00,Z").has_value());
}

}  // namespace
}  // namespace berth::shim
