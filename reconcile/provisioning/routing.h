// reconcile/provisioning/routing.h
//
// Which ProvisioningRequests this berth-manager handles: the class must be one of
// --provisioning-classes, and Cluster Autoscaler's processor-instance routing
// (--check-capacity-processor-instance, the request parameter `processorInstance`) must point
// here, as upstream's SupportedProvisioningClass decides it:
//   - no instance configured: a check-capacity request naming any processorInstance belongs to
//     another instance; best-effort-atomic-scale-up ignores the parameter;
//   - an instance configured: only check-capacity requests naming exactly it are handled, and
//     best-effort-atomic-scale-up is not handled at all.
// Upstream's deprecated route (the instance as a prefix of the class name, "until CA 1.35") is not
// followed: such a class is not one berth implements.
// Example:
//   RouteRequest("check-capacity.autoscaling.x-k8s.io", "team-a", classes, "team-a") == Route::kHandled
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace berth::reconcile::provisioning {

inline constexpr std::string_view kParamProcessorInstance = "processorInstance";

enum class Route {
  kHandled,
  kClassNotHandled,        // not one of the handled classes
  kOtherProcessorInstance,  // check-capacity routed to another processor instance
  kScaleUpOffForInstance,   // best-effort-atomic-scale-up while an instance is configured
};

// RouteRequest: class_name is spec.provisioningClassName, processor_instance the request's
// parameters.processorInstance ("" when absent), classes the handled classes, instance
// --check-capacity-processor-instance ("" = none).
Route RouteRequest(std::string_view class_name, std::string_view processor_instance,
                   const std::vector<std::string>& classes, std::string_view instance);

// RouteMessage: why a request is not handled, for the log line ("" for kHandled).
std::string_view RouteMessage(Route route);

}  // namespace berth::reconcile::provisioning
