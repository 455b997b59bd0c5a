#include "e2e/kubesim/disruption/time_format.h"

#include <gtest/gtest.h>

namespace berth::kubesim::disruption {
namespace {

TEST(TimeFormat, FormatWritesUtcWholeSeconds) {
  auto t = ParseRfc3339("2024-02-29T23:59:58.75Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339(*t), "2024-02-29T23:59:58Z");
  EXPECT_EQ(FormatRfc3339(TimePoint{}), "1970-01-01T00:00:00Z");
}

TEST(TimeFormat, ParseAppliesNumericOffsets) {
  auto a = ParseRfc3339("2024-05-01T12:00:00+02:00");
  auto b = ParseRfc3339("2024-05-01T10:00:00Z");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(FormatRfc3339(*ParseRfc3339("2024-01-01T00:30:00-01:00")), "2024-01-01T01:30:00Z");
}

TEST(TimeFormat, ParseRoundTripsAcrossCenturies) {
  for (const char* s : {"1999-12-31T23:59:59Z", "2000-03-01T00:00:00Z", "2100-02-28T12:34:56Z",
                        "1969-07-20T20:17:40Z"}) {
    auto t = ParseRfc3339(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(FormatRfc3339(*t), s);
  }
}

TEST(TimeFormat, ParseRejectsMalformedInput) {
  for (const char* s : {"", "2024-05-01", "2024-05-01T10:00:00", "2024-13-01T00:00:00Z",
                        "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01 10:00:00Z",
                        "2024-05-01T10:00:00Zjunk", "2024-05-01T10:00:00.Z",
                        "2024-05-01T10:00:00+0200", "abcd-05-01T10:00:00Z", "2024-05-01t10:00:00z"}) {
    EXPECT_FALSE(ParseRfc3339(s).has_value()) << s;
  }
}

}  // namespace
}  // namespace berth::kubesim::disruption
