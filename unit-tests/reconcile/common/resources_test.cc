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

}  // namespace
}  // namespace berth::reconcile
