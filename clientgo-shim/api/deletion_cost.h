// clientgo-shim/api/deletion_cost.h
//
// The pod annotation controller.kubernetes.io/pod-deletion-cost (KEP-2255): a decimal int32.
// ParsePodDeletionCost is kube-apiserver's validation (GetDeletionCostFromPodAnnotations):
// no leading '+', no leading zeros ("008"), not empty, inside [-2147483648, 2147483647].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

inline constexpr std::string_view kPodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost";

// ParsePodDeletionCost returns the cost, or kInvalidArgument with the apiserver's wording
// ("invalid value \"+1\": must be a 32bit integer").
Result<int32_t> ParsePodDeletionCost(std::string_view text);

// FormatPodDeletionCost prints the canonical decimal (what ParsePodDeletionCost accepts).
std::string FormatPodDeletionCost(int32_t cost);

}  // namespace berth::shim
