// controllers/manager/provisioning_classes.h
//
// berth-manager's --provisioning-classes: which ProvisioningRequest classes berth handles. A
// request of any other class is never touched, booked or garbage-collected, so berth can share a
// cluster with Cluster Autoscaler or a cloud provider's class. Only the classes berth implements
// are accepted; the pre-2024 names (renamed upstream) are refused with the current name.
// Example:
//   auto classes = ParseProvisioningClasses("check-capacity.autoscaling.x-k8s.io");
//   if (!classes) { std::cerr << classes.error().message; return 2; }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::controllers {

inline constexpr std::string_view kCheckCapacityClass = "check-capacity.autoscaling.x-k8s.io";
inline constexpr std::string_view kBestEffortAtomicScaleUpClass = "best-effort-atomic-scale-up.autoscaling.x-k8s.io";

// DefaultProvisioningClasses: both classes berth implements (the flag's default).
std::vector<std::string> DefaultProvisioningClasses();

// ParseProvisioningClasses splits a comma-separated list (spaces around items ignored, duplicates
// dropped, order kept). Errors (kInvalidArgument, ready for the command line): an empty list or
// item, a class berth does not implement (naming the supported ones), an old upstream name
// (naming its replacement).
Result<std::vector<std::string>> ParseProvisioningClasses(std::string_view value);

}  // namespace berth::controllers
