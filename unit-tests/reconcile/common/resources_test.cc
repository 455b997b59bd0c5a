#include "reconcile/common/resources.h"

#include <gtest/gtest.h>

namespace berth::reconcile {
namespace {

TEST(EffectiveRequestsTest, SumsAppContainersAndAddsOverhead) {
  PodResources pod;
  pod.containers = {{{"cpu", 200}, {"memory", 1000}}, {{"cpu", 300}}};
  pod.overhead = {{"cpu", 10}};
  EXPECT_EQ(EffectiveRequests(pod), (ResourceAmounts{{"cpu", 510}, {"memory", 1000}}));
}

TEST(EffectiveRequestsTest, InitContainerPeakWinsWhenLarger) {
  PodResources pod;
  pod.containers = {{{"cpu", 200}}};
  pod.init_containers = {{{{"cpu", 1000}, {"memory", 5}}, false}};
  EXPECT_EQ(EffectiveRequests(pod), (ResourceAmounts{{"cpu", 1000}, {"memory", 5}}));
}

TEST(EffectiveRequestsTest, SidecarsAddToAppsAndToLaterInitContainers) {
  PodResources pod;
  pod.containers = {{{"cpu", 100}}};
  pod.init_containers = {{{{"cpu", 50}}, true}, {{{"cpu", 120}}, false}};
  // apps 100 + sidecar 50 = 150; the second init runs beside the sidecar: 170.
  EXPECT_EQ(EffectiveRequests(pod), (ResourceAmounts{{"cpu", 170}}));
}

TEST(ResourceAmountsTest, MaskKeepsOnlyNamedResourcesAndEqualTreatsMissingAsZero) {
  ResourceAmounts a{{"cpu", 1}, {"memory", 2}, {"nvidia.com/gpu", 3}};
  EXPECT_EQ(MaskTo(a, {{"cpu", 0}, {"memory", 0}}), (ResourceAmounts{{"cpu", 1}, {"memory", 2}}));
  EXPECT_TRUE(EqualAmounts({{"cpu", 0}}, {}));
  EXPECT_FALSE(EqualAmounts({{"cpu", 1}}, {}));
}

TEST(SaturatingAddTest, ClampsAtTheUnboundedAmountInsteadOfWrapping) {
  EXPECT_EQ(SaturatingAdd(1, 2), 3);
  EXPECT_EQ(SaturatingAdd(kUnboundedAmount, 1), kUnboundedAmount);
  EXPECT_EQ(SaturatingAdd(kUnboundedAmount, kUnboundedAmount), kUnboundedAmount);
  EXPECT_EQ(SaturatingAdd(kUnboundedAmount - 5, 10), kUnboundedAmount);
  EXPECT_EQ(SaturatingAdd(-kUnboundedAmount, -1), -kUnboundedAmount);
  EXPECT_EQ(SaturatingAdd(INT64_MIN, 0), -kUnboundedAmount);
  EXPECT_EQ(SaturatingAdd(kUnboundedAmount, -1), kUnboundedAmount - 1);
}

TEST(EffectiveRequestsTest, AnUnboundedRequestStaysUnboundedThroughSumsAndPeaks) {
  PodResources pod;
  pod.containers = {{{"cpu", kUnboundedAmount}}, {{"cpu", 300}}};
  pod.init_containers = {{{{"memory", kUnboundedAmount}}, true}, {{{"memory", 5}}, false}};
  pod.overhead = {{"cpu", 10}, {"memory", 10}};
  ResourceAmounts want{{"cpu", kUnboundedAmount}, {"memory", kUnboundedAmount}};
  EXPECT_EQ(EffectiveRequests(pod), want);
  EXPECT_TRUE(HasUnbounded(want));
  EXPECT_FALSE(HasUnbounded({{"cpu", kUnboundedAmount - 1}}));
  // Finite amounts whose sum passes the bound become unbounded too.
  PodResources big;
  big.containers = {{{"cpu", kUnboundedAmount / 2 + 1}}, {{"cpu", kUnboundedAmount / 2 + 1}}};
  EXPECT_EQ(EffectiveRequests(big).at("cpu"), kUnboundedAmount);
}

}  // namespace
}  // namespace berth::reconcile
