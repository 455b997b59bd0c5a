// unit-tests/e2e/kubesim/patch/patch_type_test.cc
#include "e2e/kubesim/patch/patch_type.h"

#include <gtest/gtest.h>

namespace berth::kubesim::patch {
namespace {

TEST(PatchTypeFromContentType, MapsEachPatchMediaTypeToItsPatchType) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/json-patch+json"), PatchType::kJson);
  EXPECT_EQ(PatchTypeFromContentType("application/strategic-merge-patch+json"),
            PatchType::kStrategic);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+yaml"), PatchType::kApply);
}

TEST(PatchTypeFromContentType, IgnoresParametersWhitespaceAndCase) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json; charset=utf-8"),
            PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType("  Application/Strategic-Merge-Patch+JSON ;charset=UTF-8"),
            PatchType::kStrategic);
}

TEST(PatchTypeFromContentType, RejectsEveryOtherMediaType) {
  EXPECT_EQ(PatchTypeFromContentType("application/json"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(""), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(";"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+jsonx"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+json"), std::nullopt);
}

TEST(PatchTypeName, RoundTripsThroughPatchTypeFromContentType) {
  for (PatchType t : {PatchType::kMerge, PatchType::kJson, PatchType::kStrategic,
                      PatchType::kApply}) {
    EXPECT_EQ(PatchTypeFromContentType(PatchTypeName(t)), t);
  }
}

}  // namespace
}  // namespace berth::kubesim::patch
