// Tests for reconcile/provisioning/routing.h: upstream's SupportedProvisioningClass
// (provisioningrequest/supported_class_test.go) with berth's class list in front.
#include "reconcile/provisioning/routing.h"

#include <gtest/gtest.h>

#include "reconcile/provisioning/types.h"

namespace berth::reconcile::provisioning {
namespace {

const std::vector<std::string> kBoth = {std::string(kClassCheckCapacity), std::string(kClassBestEffortAtomicScaleUp)};

TEST(RouteRequest, CheckCapacityWithoutInstancesIsHandled) {
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "", kBoth, ""), Route::kHandled);
}

TEST(RouteRequest, CheckCapacityNamingAnInstanceBelongsToThatInstance) {
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "team-a", kBoth, ""), Route::kOtherProcessorInstance);
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "team-a", kBoth, "team-a"), Route::kHandled);
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "team-b", kBoth, "team-a"), Route::kOtherProcessorInstance);
  // An instance takes only the requests that name it.
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "", kBoth, "team-a"), Route::kOtherProcessorInstance);
  // Case matters, as in upstream's string comparison.
  EXPECT_EQ(RouteRequest(kClassCheckCapacity, "Team-A", kBoth, "team-a"), Route::kOtherProcessorInstance);
}

TEST(RouteRequest, BestEffortAtomicIgnoresTheParameterAndIsOffWhenAnInstanceIsSet) {
  EXPECT_EQ(RouteRequest(kClassBestEffortAtomicScaleUp, "", kBoth, ""), Route::kHandled);
  EXPECT_EQ(RouteRequest(kClassBestEffortAtomicScaleUp, "team-a", kBoth, ""), Route::kHandled);
  EXPECT_EQ(RouteRequest(kClassBestEffortAtomicScaleUp, "", kBoth, "team-a"), Route::kScaleUpOffForInstance);
  EXPECT_EQ(RouteRequest(kClassBestEffortAtomicScaleUp, "team-a", kBoth, "team-a"), Route::kScaleUpOffForInstance);
}

TEST(RouteRequest, ClassesOutsideTheListAreNeverHandled) {
  const std::vector<std::string> check_only = {std::string(kClassCheckCapacity)};
  EXPECT_EQ(RouteRequest(kClassBestEffortAtomicScaleUp, "", check_only, ""), Route::kClassNotHandled);
  EXPECT_EQ(RouteRequest("queued-provisioning.gke.io", "", kBoth, ""), Route::kClassNotHandled);
  EXPECT_EQ(RouteRequest("", "", kBoth, ""), Route::kClassNotHandled);
  // Upstream's deprecated prefixed class ("<instance>check-capacity...") is not followed.
  EXPECT_EQ(RouteRequest("team-acheck-capacity.autoscaling.x-k8s.io", "", kBoth, "team-a"), Route::kClassNotHandled);
}

TEST(RouteRequest, EveryRouteButHandledHasALogMessage) {
  EXPECT_EQ(RouteMessage(Route::kHandled), "");
  for (Route r : {Route::kClassNotHandled, Route::kOtherProcessorInstance, Route::kScaleUpOffForInstance}) {
    EXPECT_FALSE(RouteMessage(r).empty());
  }
}

}  // namespace
}  // namespace berth::reconcile::provisioning
