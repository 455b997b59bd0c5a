#include "e2e/kubesim/disruption/int_or_percent.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

Result<int64_t> Scaled(const char* value, int64_t total, bool round_up = true) {
  auto doc = json::Parse(value);
  EXPECT_TRUE(doc.has_value());
  return ScaledValueFromIntOrPercent(*doc, total, round_up);
}

TEST(IntOrPercent, IntegersAreTakenAsIs) {
  EXPECT_EQ(*Scaled("3", 10), 3);
  EXPECT_EQ(*Scaled("0", 10), 0);
}

TEST(IntOrPercent, PercentagesRoundUpOrDown) {
  EXPECT_EQ(*Scaled(R"("50%")", 3), 2);
  EXPECT_EQ(*Scaled(R"("50%")", 3, false), 1);
  EXPECT_EQ(*Scaled(R"("34%")", 3), 2);  // 1.02 -> 2
  EXPECT_EQ(*Scaled(R"("100%")", 7), 7);
  EXPECT_EQ(*Scaled(R"("0%")", 7), 0);
  EXPECT_EQ(*Scaled(R"("25%")", 0), 0);
}

TEST(IntOrPercent, MalformedValuesReportUpstreamErrors) {
  EXPECT_EQ(Scaled(R"("5")", 10).error().message,
            "invalid value for IntOrString: invalid type: string is not a percentage");
  EXPECT_EQ(Scaled(R"("abc%")", 10).error().message,
            "invalid value for IntOrString: invalid value \"abc%\": strconv.Atoi: parsing "
            "\"abc\": invalid syntax");
  EXPECT_EQ(Scaled("1.5", 10).error().message,
            "invalid value for IntOrString: invalid type: neither int nor percentage");
  EXPECT_FALSE(Scaled(R"("%")", 10).has_value());
  EXPECT_FALSE(Scaled("null", 10).has_value());
  EXPECT_FALSE(Scaled(R"("99999999999999999999%")", 10).has_value());
}

}  // namespace
}  // namespace berth::kubesim::disruption
