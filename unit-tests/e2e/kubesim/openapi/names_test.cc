#include "e2e/kubesim/openapi/names.h"

#include <gtest/gtest.h>

namespace berth::kubesim::openapi {
namespace {

TEST(NamesTest, CrdDefinitionNameReversesTheGroup) {
  EXPECT_EQ(CrdDefinitionName("stable.example.com", "v1", "CronTab"), "com.example.stable.v1.CronTab");
  EXPECT_EQ(CrdDefinitionName("scheduling.koordinator.sh", "v1alpha1", "Reservation"),
            "sh.koordinator.scheduling.v1alpha1.Reservation");
  EXPECT_EQ(CrdDefinitionName("local", "v1", "K"), "local.v1.K");
}

TEST(NamesTest, GroupVersionPathsRoundTrip) {
  EXPECT_EQ(GroupVersionPath("", "v1"), "api/v1");
  EXPECT_EQ(GroupVersionPath("apps", "v1"), "apis/apps/v1");
  EXPECT_EQ(ParseGroupVersionPath("api/v1"), std::make_pair(std::string(), std::string("v1")));
  EXPECT_EQ(ParseGroupVersionPath("apis/x.io/v2"), std::make_pair(std::string("x.io"), std::string("v2")));
  EXPECT_EQ(ParseGroupVersionPath("apis/x.io"), std::nullopt);
  EXPECT_EQ(ParseGroupVersionPath("api/apps/v1"), std::nullopt);
  EXPECT_EQ(ParseGroupVersionPath("/api/v1"), std::nullopt);
  EXPECT_EQ(ParseGroupVersionPath("other/v1"), std::nullopt);
}

TEST(NamesTest, OperationIdsUseTheApiserverGroupSpelling) {
  EXPECT_EQ(OperationGroupVersion("", "v1"), "CoreV1");
  EXPECT_EQ(OperationGroupVersion("coordination.k8s.io", "v1"), "CoordinationV1");
  EXPECT_EQ(OperationGroupVersion("stable.example.com", "v1beta1"), "StableExampleComV1beta1");
}

}  // namespace
}  // namespace berth::kubesim::openapi
