#include "clientgo-shim/base/go_format.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace berth {
namespace {

TEST(GoFormatTest, JoinIsStringsJoin) {
  EXPECT_EQ(GoJoin({}, ", "), "");
  EXPECT_EQ(GoJoin({"a"}, ", "), "a");
  EXPECT_EQ(GoJoin({"a", "", "c"}, "; "), "a; ; c");
  EXPECT_EQ(GoJoin({"x", "y"}, ""), "xy");
}

// Moved from unit-tests/e2e/kubesim/schema/go_format_test.cc.
TEST(GoFormatTest, FloatsPrintLikeGoPercentV) {
  EXPECT_EQ(FormatFloatG(1.5), "1.5");
  EXPECT_EQ(FormatFloatG(10), "10");
  EXPECT_EQ(FormatFloatG(100000), "100000");
  EXPECT_EQ(FormatFloatG(1e6), "1e+06");
  EXPECT_EQ(FormatFloatG(1234567), "1.234567e+06");
  EXPECT_EQ(FormatFloatG(0.0001), "0.0001");
  EXPECT_EQ(FormatFloatG(0.00001), "1e-05");
  EXPECT_EQ(FormatFloatG(-2.25), "-2.25");
  EXPECT_EQ(FormatFloatG(0.1), "0.1");
  EXPECT_EQ(FormatFloatG(1e100), "1e+100");
}

TEST(GoFormatTest, QuoteEscapesLikeStrconvQuote) {
  EXPECT_EQ(GoQuote("plain"), R"("plain")");
  EXPECT_EQ(GoQuote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(GoQuote("tab\there\nnl"), R"("tab\there\nnl")");
  EXPECT_EQ(GoQuote(std::string("\x01", 1)), R"("\x01")");
  EXPECT_EQ(GoQuote("\xff"), R"("\xff")");
  EXPECT_EQ(GoQuote("héllo"), "\"héllo\"");
}

// Moved from unit-tests/e2e/kubesim/table/go_format_test.cc.
TEST(GoFormatTest, FloatsMatchFmtPrintOfFloat64) {
  EXPECT_EQ(FormatFloatG(0.5), "0.5");
  EXPECT_EQ(FormatFloatG(21.0), "21");
  EXPECT_EQ(FormatFloatG(123456.0), "123456");
  EXPECT_EQ(FormatFloatG(1234567.0), "1.234567e+06");
  EXPECT_EQ(FormatFloatG(1e21), "1e+21");
  EXPECT_EQ(FormatFloatG(0.0001), "0.0001");
  EXPECT_EQ(FormatFloatG(0.00001), "1e-05");
  EXPECT_EQ(FormatFloatG(-2.5), "-2.5");
  EXPECT_EQ(FormatFloatG(0.0), "0");
}

TEST(GoFormatTest, FloatSpecialValuesPrintLikeGo) {
  EXPECT_EQ(FormatFloatG(-0.0), "-0");
  EXPECT_EQ(FormatFloatG(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatFloatG(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatFloatG(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatFloatG(5e-324), "5e-324");
  EXPECT_EQ(FormatFloatG(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(FormatFloatG(123456.7), "123456.7");
  EXPECT_EQ(FormatFloatG(0.000123), "0.000123");
}

TEST(GoFormatTest, Float32UsesTheShortestFloat32Digits) {
  EXPECT_EQ(FormatFloat32G(0.1f), "0.1");
  EXPECT_EQ(FormatFloatG(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(FormatFloat32G(1e6f), "1e+06");
  EXPECT_EQ(FormatFloat32G(-2.5f), "-2.5");
  EXPECT_EQ(FormatFloat32G(-0.0f), "-0");
}

TEST(GoFormatTest, ShortestDigitsDropTheSignAndTrailingZeros) {
  const ShortestDecimal d = ShortestDigits(-1500.0);
  EXPECT_EQ(d.digits, "15");
  EXPECT_EQ(d.exponent, 3);
  EXPECT_EQ(FormatDecimalE(d), "1.5e+03");
  EXPECT_EQ(FormatDecimalF(d), "1500");
  EXPECT_EQ(FormatDecimalF(ShortestDigits(0.0025)), "0.0025");
  EXPECT_EQ(FormatDecimalE(ShortestDigits(1e-7)), "1e-07");
}

TEST(GoFormatTest, QuoteEscapesControlsUnicodeAndInvalidUtf8LikeStrconv) {
  EXPECT_EQ(GoQuote(""), R"("")");
  EXPECT_EQ(GoQuote("\a\b\f\v"), R"("\a\b\f\v")");
  EXPECT_EQ(GoQuote("\x7f"), R"("\x7f")");
  EXPECT_EQ(GoQuote("\xc2\x85"), R"("\u0085")");            // NEL, a C1 control
  EXPECT_EQ(GoQuote("\xe2\x80\xa8"), R"("\u2028")");        // line separator
  EXPECT_EQ(GoQuote("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // emoji printed as is
  EXPECT_EQ(GoQuote("\xe2\x80"), R"("\xe2\x80")");          // truncated sequence
  EXPECT_EQ(GoQuote("\xed\xa0\x80"), R"("\xed\xa0\x80")");  // surrogate half
  EXPECT_EQ(GoQuote("\xc0\xaf"), R"("\xc0\xaf")");          // overlong '/'
}

}  // namespace
}  // namespace berth
