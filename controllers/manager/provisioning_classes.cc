#include "controllers/manager/provisioning_classes.h"

#include <algorithm>
#include <array>
#include <utility>

namespace berth::controllers {
namespace {

// Upstream renamed its classes twice (Apr 2024 to *.autoscaling.x-k8s.io, May 2024 atomic to
// best-effort-atomic); Cluster Autoscaler ignores the old names, so berth refuses them loudly.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kRenamed = {{
    {"check-capacity.kubernetes.io", kCheckCapacityClass},
    {"atomic-scale-up.kubernetes.io", kBestEffortAtomicScaleUpClass},
    {"atomic-scale-up.autoscaling.x-k8s.io", kBestEffortAtomicScaleUpClass},
}};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Supported() {
  return std::string(kCheckCapacityClass) + ", " + std::string(kBestEffortAtomicScaleUpClass);
}

}  // namespace

std::vector<std::string> DefaultProvisioningClasses() {
  return {std::string(kCheckCapacityClass), std::string(kBestEffortAtomicScaleUpClass)};
}

Result<std::vector<std::string>> ParseProvisioningClasses(std::string_view value) {
  if (Trim(value).empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--provisioning-classes needs at least one class (supported: " + Supported() + ")");
  }
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view item = Trim(value.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--provisioning-classes has an empty item in \"" + std::string(value) + "\"");
    }
    for (const auto& [old_name, new_name] : kRenamed) {
      if (item == old_name) {
        return MakeError(ErrorCode::kInvalidArgument, "--provisioning-classes: \"" + std::string(item) +
                                                          "\" was renamed upstream; use \"" +
                                                          std::string(new_name) + "\"");
      }
    }
    if (item != kCheckCapacityClass && item != kBestEffortAtomicScaleUpClass) {
      return MakeError(ErrorCode::kInvalidArgument, "--provisioning-classes: berth does not implement class \"" +
                                                        std::string(item) + "\" (supported: " + Supported() + ")");
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
  }
  return out;
}

}  // namespace berth::controllers
