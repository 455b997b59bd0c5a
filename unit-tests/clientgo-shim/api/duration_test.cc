#include "clientgo-shim/api/duration.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;

nanoseconds D(std::string_view s) {
  auto d = ParseDuration(s);
  EXPECT_TRUE(d.has_value()) << s << ": " << (d ? "" : d.error().message);
  return d ? *d : nanoseconds(-12345);
}

std::string Err(std::string_view s) {
  auto d = ParseDuration(s);
  EXPECT_FALSE(d.has_value()) << s;
  return d ? "" : d.error().message;
}

TEST(DurationTest, ParsesGoDurationSyntax) {
  EXPECT_EQ(D("24h"), 24h);
  EXPECT_EQ(D("1h30m"), 90min);
  EXPECT_EQ(D("90s"), 90s);
  EXPECT_EQ(D("1.5h"), 90min);
  EXPECT_EQ(D("300ms"), 300ms);
  EXPECT_EQ(D("2us"), 2us);
  EXPECT_EQ(D("1\xC2\xB5s"), 1us);  // U+00B5 micro sign
  EXPECT_EQ(D("1\xCE\xBCs"), 1us);  // U+03BC Greek mu
  EXPECT_EQ(D("-1m"), -1min);
  EXPECT_EQ(D("+5s"), 5s);
  EXPECT_EQ(D("0"), 0s);
  EXPECT_EQ(D("-0"), 0s);
  EXPECT_EQ(D("0s"), 0s);
  EXPECT_EQ(D("5ns"), 5ns);
  EXPECT_EQ(D(".5s"), 500ms);
  EXPECT_EQ(D("1.s"), 1s);
  EXPECT_EQ(D("2h45m30.5s"), 2h + 45min + 30500ms);
  EXPECT_EQ(D("1.0000000000000000000001s"), 1s);  // excess fraction digits are ignored
  EXPECT_EQ(D("9223372036854775807ns"), nanoseconds(INT64_MAX));
  EXPECT_EQ(D("-9223372036854775808ns"), nanoseconds(INT64_MIN));
}

TEST(DurationTest, RejectsMalformedDurationsWithGoMessages) {
  EXPECT_EQ(Err("x"), "time: invalid duration \"x\"");
  EXPECT_EQ(Err(""), "time: invalid duration \"\"");
  EXPECT_EQ(Err("-"), "time: invalid duration \"-\"");
  EXPECT_EQ(Err(".s"), "time: invalid duration \".s\"");
  EXPECT_EQ(Err("1d"), "time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_EQ(Err("1"), "time: missing unit in duration \"1\"");
  EXPECT_EQ(Err("1h1"), "time: missing unit in duration \"1h1\"");
  EXPECT_EQ(Err("1 s"), "time: unknown unit \" s\" in duration \"1 s\"");
  EXPECT_EQ(Err("9223372036854775808ns"), "time: invalid duration \"9223372036854775808ns\"");
  EXPECT_EQ(Err("3000000h"), "time: invalid duration \"3000000h\"");
  EXPECT_EQ(Err("1\"x"), "time: unknown unit \"\\\"x\" in duration \"1\\\"x\"");
  EXPECT_EQ(Err("1\xff"), "time: unknown unit \"\\xff\" in duration \"1\\xff\"");
  EXPECT_EQ(ParseDuration("1d").error().code, ErrorCode::kInvalidArgument);
}

TEST(DurationTest, FormatsLikeGoDurationString) {
  EXPECT_EQ(FormatDuration(0s), "0s");
  EXPECT_EQ(FormatDuration(1h), "1h0m0s");
  EXPECT_EQ(FormatDuration(90s), "1m30s");
  EXPECT_EQ(FormatDuration(1500ms), "1.5s");
  EXPECT_EQ(FormatDuration(300ms), "300ms");
  EXPECT_EQ(FormatDuration(2us), "2\xC2\xB5s");
  EXPECT_EQ(FormatDuration(1ns), "1ns");
  EXPECT_EQ(FormatDuration(1100ns), "1.1\xC2\xB5s");
  EXPECT_EQ(FormatDuration(2200us), "2.2ms");
  EXPECT_EQ(FormatDuration(-1min), "-1m0s");
  EXPECT_EQ(FormatDuration(26h + 3min + 4s + 5ms), "26h3m4.005s");
  EXPECT_EQ(FormatDuration(nanoseconds(INT64_MAX)), "2562047h47m16.854775807s");
  EXPECT_EQ(FormatDuration(nanoseconds(INT64_MIN)), "-2562047h47m16.854775808s");
}

TEST(DurationTest, FormatThenParseRoundTrips) {
  for (nanoseconds d : {nanoseconds(1), nanoseconds(1234567891011), nanoseconds(-5000),
                        nanoseconds(3600'000'000'000)}) {
    EXPECT_EQ(D(FormatDuration(d)), d);
  }
}

}  // namespace
}  // namespace berth::shim
