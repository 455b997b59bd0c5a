#include "clientgo-shim/api/quantity.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

using F = Quantity::Format;

constexpr const char* kRegexMessage =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

Quantity P(std::string_view s) {
  auto q = Quantity::Parse(s);
  EXPECT_TRUE(q.has_value()) << s << ": " << (q ? "" : q.error().message);
  return q ? *q : Quantity();
}

std::string Canon(std::string_view s) { return P(s).String(); }

// Nanos of a quantity, as an int64 for readable assertions (small values only).
int64_t N(std::string_view s) { return static_cast<int64_t>(P(s).Nanos()); }

TEST(QuantityTest, ParsesEveryNumberAndSuffixFormToTheExactValue) {
  EXPECT_EQ(N("500m"), 500'000'000);
  EXPECT_EQ(P("1Gi").Value(), int64_t{1} << 30);
  EXPECT_EQ(N("1.5"), 1'500'000'000);
  EXPECT_EQ(P("2e3").Value(), 2000);
  EXPECT_EQ(P("100Ki").Value(), 102400);
  EXPECT_EQ(P("1E").Value(), 1'000'000'000'000'000'000);
  EXPECT_EQ(P("-1").Value(), -1);
  EXPECT_EQ(N("0.1"), 100'000'000);
  EXPECT_EQ(P("+5").Value(), 5);
  EXPECT_EQ(N("1e-3"), 1'000'000);
  EXPECT_EQ(N("5n"), 5);
  EXPECT_EQ(N("4u"), 4000);
  EXPECT_EQ(P("8k").Value(), 8000);
  EXPECT_EQ(P("7M").Value(), 7'000'000);
  EXPECT_EQ(P("6G").Value(), 6'000'000'000);
  EXPECT_EQ(P("5T").Value(), 5'000'000'000'000);
  EXPECT_EQ(P("2P").Value(), 2'000'000'000'000'000);
  EXPECT_EQ(P("3Ei").Value(), int64_t{3} << 60);
  EXPECT_EQ(P("1.3E+6").Value(), 1'300'000);
  EXPECT_EQ(P("100.035k").Value(), 100'035);
  EXPECT_EQ(N(".001"), 1'000'000);
  EXPECT_EQ(P("1.").Value(), 1);
  EXPECT_EQ(P("1.G").Value(), 1'000'000'000);
  EXPECT_EQ(P("0.5Mi").Value(), 512 * 1024);
  EXPECT_EQ(N("100.035Ki"), 102435840000000);
}

TEST(QuantityTest, RemembersTheSuffixFamilyAsFormat) {
  EXPECT_EQ(P("1Ki").format(), F::kBinarySI);
  EXPECT_EQ(P("1k").format(), F::kDecimalSI);
  EXPECT_EQ(P("1").format(), F::kDecimalSI);
  EXPECT_EQ(P("1e3").format(), F::kDecimalExponent);
  EXPECT_EQ(P("0Ki").format(), F::kBinarySI);
  // A binary value below one unit becomes DecimalSI, as upstream avoids rounding it.
  EXPECT_EQ(P("0.000000000001Ki").format(), F::kDecimalSI);
}

TEST(QuantityTest, RoundsValuesFinerThanNanoAwayFromZero) {
  EXPECT_EQ(N("3.001n"), 4);
  EXPECT_EQ(N("1.1E-9"), 2);
  EXPECT_EQ(N("0.0000000001"), 1);
  EXPECT_EQ(N("0.00000000050"), 1);
  EXPECT_EQ(N("0.9n"), 1);
  EXPECT_EQ(N("0.00000012345"), 124);
  EXPECT_EQ(N("0.000000000001Ki"), 2);
  EXPECT_EQ(N("-0.9n"), -1);
  EXPECT_EQ(Canon("1e-12"), "1e-9");
}

TEST(QuantityTest, CapsBinaryQuantitiesAtMaxInt64) {
  EXPECT_EQ(P("9Ei").Value(), INT64_MAX);
  EXPECT_EQ(P("9223372036854775807Ki").Value(), INT64_MAX);
  EXPECT_EQ(P("-9Ei").Value(), -INT64_MAX);
}

TEST(QuantityTest, KeepsLargeDecimalValuesExactly) {
  Quantity q = P("18446744073709551616");
  EXPECT_EQ(q.String(), "18446744073709551616");
  EXPECT_GT(q, P("9223372036854775807"));
  EXPECT_EQ(P("12E").String(), "12E");
}

TEST(QuantityTest, PrintsTheCanonicalFormLikeApimachinery) {
  struct Case {
    const char* in;
    const char* want;
  };
  const Case cases[] = {
      {"1Ki", "1Ki"},         {"1024Mi", "1Gi"},     {"1000M", "1G"},
      {".001Ki", "1024m"},    {".000001Ki", "1024u"}, {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"}, {"1536Mi", "1536Mi"}, {"0.5Gi", "512Mi"},
      {"1.5Gi", "1536Mi"},    {"1.5", "1500m"},      {"2e3", "2e3"},
      {"1000m", "1"},         {"1024Ki", "1Mi"},     {"100m", "100m"},
      {"0", "0"},             {"0Mi", "0"},          {"0.0", "0"},
      {"1080m", "1080m"},     {"1.08", "1080m"},     {"1080000000n", "1080m"},
      {"0.5", "500m"},        {"1000u", "1m"},       {"0.001T", "1G"},
      {"5000m", "5"},         {"1025Ki", "1025Ki"},  {"0.5Ki", "512"},
      {"1.1Ki", "1126400m"},  {"1000E", "1e21"},     {"5000E", "5e21"},
      {"1000000E", "1e24"},   {"0.001e0", "1e-3"},   {"1000e-12", "1e-9"},
      {".001e12", "1e9"},     {"1.0e0", "1"},          {"10e3", "10e3"},
      {"0.5e-1", "50e-3"},    {"1.2e3", "1200"},     {"1.3E+6", "1300e3"},
      {"-1536Mi", "-1536Mi"}, {"-0.5", "-500m"},     {"-1.5Gi", "-1536Mi"},
      {"100.0351k", "100035100m"}, {"0.1", "100m"},       {"1e-3", "1e-3"},
      {"1E6", "1E6"},         {"3.001n", "4n"},      {"-1", "-1"},
      // Bytes that are no whole binary unit print with no suffix, as apimachinery's do; read back,
      // that text is a decimal quantity (the fuzz target's "62.50Ki").
      {"62.5Ki", "64000"},    {"64000", "64k"},      {"62.50Ki", "64000"},
  };
  for (const Case& c : cases) EXPECT_EQ(Canon(c.in), c.want) << c.in;
}

TEST(QuantityTest, ReusesInputStringsTheUpstreamFastPathJudgesCanonical) {
  // Upstream keeps the given text when the int64 fast path sees no reason to reformat it,
  // including these non-canonical spellings (kubernetes/kubernetes#138165).
  EXPECT_EQ(Canon("+5"), "+5");
  EXPECT_EQ(Canon("1.001"), "1.001");
  EXPECT_EQ(Canon("01"), "01");
  EXPECT_EQ(Canon("+1Ki"), "+1Ki");
  EXPECT_EQ(Canon("1E3"), "1E3");
  EXPECT_EQ(Canon("1e0"), "1e0");
  EXPECT_EQ(Canon("100.035k"), "100.035k");
  // ...but not these, which are re-canonicalised.
  EXPECT_EQ(Canon("1.500"), "1.500");
  EXPECT_EQ(Canon("1.000"), "1");
  EXPECT_EQ(Canon("0.5"), "500m");
  EXPECT_EQ(Canon("+0.5"), "500m");
  EXPECT_EQ(Canon("8Ki"), "8Ki");
  EXPECT_EQ(Canon("+8Ki"), "8Ki");
}

TEST(QuantityTest, ArithmeticDropsTheRememberedString) {
  Quantity q = P("+5");
  q.Add(P("0"));
  EXPECT_EQ(q.String(), "5");
}

TEST(QuantityTest, RejectsMalformedStringsWithTheApiserverMessages) {
  for (const char* bad : {"", "1.2.3", "1 Gi", "1Gb", " 1", "1 ", "aoeu", "1+1.0M", "1.1.M",
                          "0.1am", "1e3.5", "1Gi ", "\xff"}) {
    auto q = Quantity::Parse(bad);
    ASSERT_FALSE(q.has_value()) << bad;
    EXPECT_EQ(q.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(q.error().message, kRegexMessage) << bad;
  }
  for (const char* bad : {"--1", "0.1mi", "-3.01e-", ".5i", "1i", "-3.01i", "1e", "1EE",
                          "1e99999999999999999999", "1Mm"}) {
    auto q = Quantity::Parse(bad);
    ASSERT_FALSE(q.has_value()) << bad;
    EXPECT_EQ(q.error().message, "unable to parse quantity's suffix") << bad;
  }
}

TEST(QuantityTest, ParsesValuesBeyondTheNanoRangeExactlyAndSaturatesTheirIntegers) {
  // Valid for the apiserver; upstream's MilliValue() returns 0 for "1e30", berth saturates.
  Quantity q = P("1e30");
  EXPECT_TRUE(q.IsBeyondNanoRange());
  EXPECT_EQ(q.String(), "1e30");
  EXPECT_EQ(q.format(), F::kDecimalExponent);
  EXPECT_EQ(q.MilliValue(), INT64_MAX);
  EXPECT_EQ(q.Value(), INT64_MAX);
  EXPECT_EQ(q.Sign(), 1);
  EXPECT_FALSE(q.IsZero());
  Quantity neg = P("-1e30");
  EXPECT_EQ(neg.MilliValue(), INT64_MIN);
  EXPECT_EQ(neg.Value(), INT64_MIN);
  EXPECT_EQ(neg.String(), "-1e30");
  EXPECT_EQ(Canon("100000000000000000000000000000000000000000"), "100e39");
  EXPECT_EQ(Canon("999999999999999999E"), "999999999999999999E");  // reused as given
  EXPECT_EQ(Canon("1000e30"), "1e33");
  EXPECT_EQ(Canon("200000000000000000000000000000"), "200e27");  // 2e29: just past 128-bit nanos
  EXPECT_EQ(Canon("1e2147483647"), "10e2147483646");
  EXPECT_EQ(P("1e2147483647").MilliValue(), INT64_MAX);
  // Digits finer than a nano round up (away from zero), as for every parsed value.
  EXPECT_EQ(Canon("1000000000000000000000000000000.0000000001"), "1000000000000000000000000000000000000001n");
  EXPECT_EQ(Canon("-1000000000000000000000000000000.9999999999"), "-1000000000000000000000000000001");
  EXPECT_EQ(Canon("0e30"), "0");
  EXPECT_TRUE(P("0e30").IsZero());
}

TEST(QuantityTest, ComparesValuesBeyondTheNanoRangeExactly) {
  EXPECT_EQ(P("1e30"), P("1000e27"));
  EXPECT_EQ(P("1e30"), P("1000000000000000000000000000000"));
  EXPECT_LT(P("1e30"), P("1.000000000000000000000000000000000000000001e30"));
  EXPECT_LT(P("1e30"), P("2e30"));
  EXPECT_LT(P("9e30"), P("1e31"));
  EXPECT_GT(P("1e30"), P("100000000000E"));  // 1e29: in range
  EXPECT_GT(P("1e30"), P("9Ei"));
  EXPECT_LT(P("-1e31"), P("-1e30"));
  EXPECT_LT(P("-1e30"), P("-100000000000E"));
  EXPECT_LT(P("-1e30"), P("1e30"));
}

TEST(QuantityTest, ArithmeticBeyondTheNanoRangeNeverCollapsesToZero) {
  Quantity a = P("1e31");
  a.Sub(P("1e30"));  // inexact out there: saturated on the side of the larger magnitude
  EXPECT_EQ(a.Sign(), 1);
  EXPECT_EQ(a.MilliValue(), INT64_MAX);
  Quantity b = P("1e30");
  b.Sub(P("1e31"));
  EXPECT_EQ(b.Sign(), -1);
  Quantity c = P("1e30");
  c.Sub(P("1000e27"));
  EXPECT_TRUE(c.IsZero());  // exactly equal values do cancel
  Quantity d = P("0");
  d.Add(P("1e30"));
  EXPECT_EQ(d, P("1e30"));
  EXPECT_EQ(d.String(), "1e30");
  Quantity e = P("1e30");
  e.Add(P("1"));
  EXPECT_TRUE(e.IsBeyondNanoRange());
  EXPECT_EQ(e.Value(), INT64_MAX);
}

TEST(QuantityTest, MilliValueAtTheInt64Bound) {
  EXPECT_EQ(P("9223372036854775.806").MilliValue(), INT64_MAX - 1);
  EXPECT_EQ(P("9223372036854775.807").MilliValue(), INT64_MAX);
  EXPECT_EQ(P("9223372036854775807m").MilliValue(), INT64_MAX);
  EXPECT_EQ(P("9223372036854775.8061").MilliValue(), INT64_MAX);  // ceil
  EXPECT_EQ(P("9223372036854775808m").MilliValue(), INT64_MAX);   // saturates, never wraps
  EXPECT_EQ(P("9223372036854776").MilliValue(), INT64_MAX);
  EXPECT_EQ(P("8Ei").MilliValue(), INT64_MAX);
  EXPECT_EQ(P("-9223372036854775.807").MilliValue(), -INT64_MAX);
  EXPECT_EQ(P("-9223372036854775.808").MilliValue(), INT64_MIN);
  EXPECT_EQ(P("-9223372036854775.809").MilliValue(), INT64_MIN);
  EXPECT_EQ(P("9223372036854775807").Value(), INT64_MAX);
  EXPECT_EQ(P("9223372036854775808").Value(), INT64_MAX);
}

TEST(QuantityTest, BinaryValuesOfAnyLengthAreExact) {
  // A long fraction only matters through rounding up.
  EXPECT_EQ(N("0." + std::string(100, '0') + "1Ki"), 1);
  EXPECT_EQ(N("0." + std::string(100, '9') + "Ki"), int64_t{1024} * 1'000'000'000);
  EXPECT_EQ(Canon("0." + std::string(100, '9') + "Ki"), "1Ki");
  EXPECT_EQ(N("1." + std::string(200, '0') + "1Ki"), int64_t{1024} * 1'000'000'000 + 1);
  EXPECT_EQ(P("1." + std::string(5000, '0') + "Ei").Value(), int64_t{1} << 60);
  // A long integer part is capped like any other large binary value.
  EXPECT_EQ(P("1" + std::string(30, '0') + "Ki").Value(), INT64_MAX);
  EXPECT_EQ(P("1" + std::string(3000, '0') + ".5Mi").Value(), INT64_MAX);
  EXPECT_EQ(P("000000000000000000000000000000001Ki").Value(), 1024);
}

TEST(QuantityTest, AcceptsBareSuffixesAsZeroLikeUpstream) {
  EXPECT_TRUE(P("Mi").IsZero());
  EXPECT_TRUE(P("-").IsZero());
  EXPECT_TRUE(P(".").IsZero());
  EXPECT_EQ(Canon("Mi"), "0");
}

TEST(QuantityTest, ValueAndMilliValueRoundAwayFromZero) {
  EXPECT_EQ(P("9.01").Value(), 10);
  EXPECT_EQ(P("-9.01").Value(), -10);
  EXPECT_EQ(P("1n").MilliValue(), 1);
  EXPECT_EQ(P("-1n").MilliValue(), -1);
  EXPECT_EQ(P("100m").MilliValue(), 100);
  EXPECT_EQ(P("2").MilliValue(), 2000);
  EXPECT_EQ(P("1Gi").MilliValue(), (int64_t{1} << 30) * 1000);
  EXPECT_EQ(P("100E").MilliValue(), INT64_MAX);  // saturates
}

TEST(QuantityTest, FromMilliAndFromIntPrintLikeNewMilliQuantity) {
  EXPECT_EQ(Quantity::FromMilli(1).String(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).String(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).String(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, F::kBinarySI).String(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1000000, F::kDecimalExponent).String(), "1e3");
  EXPECT_EQ(Quantity::FromInt(1000).String(), "1k");
  EXPECT_EQ(Quantity::FromInt(1024, F::kBinarySI).String(), "1Ki");
  EXPECT_EQ(Quantity::FromInt(1000000, F::kDecimalExponent).String(), "1e6");
  EXPECT_EQ(Quantity::FromInt(1024 * 1024, F::kBinarySI).String(), "1Mi");
  EXPECT_EQ(Quantity::FromMilli(-9010).String(), "-9010m");
}

TEST(QuantityTest, AddAndSubAdoptTheOtherFormatWhenZero) {
  for (const char* v : {"100m", "1Gi"}) {
    Quantity zero = P("0");
    zero.Add(P(v));
    EXPECT_EQ(zero.String(), v);
    Quantity a = P(v);
    a.Add(P("0"));
    EXPECT_EQ(a.String(), v);
    Quantity z2 = P("0");
    z2.Sub(P(v));
    EXPECT_EQ(z2.String(), std::string("-") + v);
  }
  Quantity cpu = P("1");
  cpu.Add(P("500m"));
  EXPECT_EQ(cpu.String(), "1500m");
  cpu.Sub(P("2"));
  EXPECT_EQ(cpu.String(), "-500m");
  Quantity mem = P("1Gi");
  mem.Add(P("512Mi"));
  EXPECT_EQ(mem.String(), "1536Mi");
}

TEST(QuantityTest, ArithmeticSaturatesInsteadOfOverflowing) {
  Quantity big = P("100000000000E");  // 1e29, near the top of the range
  Quantity sum = big;
  sum.Add(big);
  sum.Add(big);
  EXPECT_GT(sum, big);
  Quantity neg = P("-100000000000E");
  neg.Sub(big);
  neg.Sub(big);
  EXPECT_LT(neg, P("-1"));
  EXPECT_FALSE(neg.String().empty());
  EXPECT_EQ(neg.Value(), INT64_MIN);
}

TEST(QuantityTest, ComparesByValueAcrossFormats) {
  EXPECT_EQ(P("1Ki"), P("1024"));
  EXPECT_LT(P("50m"), P("100m"));
  EXPECT_GT(P("10000T"), P("100Gi"));
  EXPECT_EQ(P("1000m") <=> P("1"), std::strong_ordering::equal);
  EXPECT_LT(P("-1"), P("0"));
}

TEST(ResourceListTest, ParsesStringAndNumberValuesFromJson) {
  auto doc = json::Parse(R"({"cpu":"500m","memory":1073741824,"x":0.5,"gpu":null})");
  ASSERT_TRUE(doc);
  auto list = ParseResourceList(*doc);
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->at("cpu").String(), "500m");
  EXPECT_EQ(list->at("memory").String(), "1073741824");
  EXPECT_EQ(list->at("x").String(), "500m");
}

TEST(ResourceListTest, RejectsBadValuesNamingTheKey) {
  auto doc = json::Parse(R"({"cpu":"1 core"})");
  auto list = ParseResourceList(*doc);
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().message, std::string("cpu: ") + kRegexMessage);
  auto doc2 = json::Parse(R"({"cpu":true})");
  EXPECT_FALSE(ParseResourceList(*doc2));
  auto doc3 = json::Parse(R"(["cpu"])");
  EXPECT_FALSE(ParseResourceList(*doc3));
}

TEST(ResourceListTest, AddSubAndFitsWorkPerKey) {
  ResourceList capacity{{"cpu", P("2")}, {"memory", P("4Gi")}};
  ResourceList used{{"cpu", P("1500m")}, {"memory", P("1Gi")}};
  ResourceList free = capacity;
  SubResources(free, used);
  EXPECT_EQ(free.at("cpu").String(), "500m");
  EXPECT_EQ(free.at("memory").String(), "3Gi");
  EXPECT_TRUE(Fits({{"cpu", P("500m")}}, free));
  EXPECT_FALSE(Fits({{"cpu", P("501m")}}, free));
  EXPECT_FALSE(Fits({{"nvidia.com/gpu", P("1")}}, free));
  EXPECT_TRUE(Fits({{"nvidia.com/gpu", P("0")}}, free));
  AddResources(free, used);
  EXPECT_EQ(free.at("cpu"), capacity.at("cpu"));
  EXPECT_EQ(free.at("memory").String(), "4Gi");
}

}  // namespace
}  // namespace berth::shim
