// reconcile/provisioning/routing.cc
#include "reconcile/provisioning/routing.h"

#include <algorithm>

#include "reconcile/provisioning/types.h"

namespace berth::reconcile::provisioning {

Route RouteRequest(std::string_view class_name, std::string_view processor_instance,
                   const std::vector<std::string>& classes, std::string_view instance) {
  if (std::find(classes.begin(), classes.end(), class_name) == classes.end()) return Route::kClassNotHandled;
  if (class_name == kClassBestEffortAtomicScaleUp) {
    return instance.empty() ? Route::kHandled : Route::kScaleUpOffForInstance;
  }
  // check-capacity: the request's instance must equal ours, both possibly empty.
  return processor_instance == instance ? Route::kHandled : Route::kOtherProcessorInstance;
}

std::string_view RouteMessage(Route route) {
  switch (route) {
    case Route::kHandled: return "";
    case Route::kClassNotHandled: return "ignoring a ProvisioningRequest of a class berth does not handle";
    case Route::kOtherProcessorInstance:
      return "ignoring a ProvisioningRequest whose processorInstance is not this instance's";
    case Route::kScaleUpOffForInstance:
      return "ignoring a best-effort-atomic-scale-up ProvisioningRequest: a processor instance is set";
  }
  return "";
}

}  // namespace berth::reconcile::provisioning
