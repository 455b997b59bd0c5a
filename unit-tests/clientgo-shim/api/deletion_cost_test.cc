#include "clientgo-shim/api/deletion_cost.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

TEST(PodDeletionCostTest, AcceptsCanonicalInt32Decimals) {
  EXPECT_EQ(ParsePodDeletionCost("0").value(), 0);
  EXPECT_EQ(ParsePodDeletionCost("7").value(), 7);
  EXPECT_EQ(ParsePodDeletionCost("-25").value(), -25);
  EXPECT_EQ(ParsePodDeletionCost("2147483647").value(), 2147483647);
  EXPECT_EQ(ParsePodDeletionCost("-2147483648").value(), INT32_MIN);
  // Go's ParseInt after upstream's first-digit check: a zero after '-' passes.
  EXPECT_EQ(ParsePodDeletionCost("-08").value(), -8);
}

TEST(PodDeletionCostTest, RejectsWhatTheApiserverRejectsWithItsWording) {
  for (std::string_view bad : {"", "+1", "008", "00", "1.5", "abc", "1 ", " 1", "-", "2147483648", "-2147483649",
                               "99999999999999999999", "0x10", "1e3"}) {
    auto r = ParsePodDeletionCost(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error().message, "invalid value \"" + std::string(bad) + "\": must be a 32bit integer");
  }
}

TEST(PodDeletionCostTest, FormatRoundTrips) {
  for (int32_t v : {0, 1, -1, INT32_MAX, INT32_MIN, 1000000}) {
    EXPECT_EQ(ParsePodDeletionCost(FormatPodDeletionCost(v)).value(), v);
  }
}

}  // namespace
}  // namespace berth::shim
