// e2e/kubesim/api/update_validation.h
//
// The apiserver's update-only validation of built-in kinds: fields that may be set at create time
// but not changed afterwards (ValidatePodUpdate's spec rule, workload selectors, a node's
// podCIDR). kubesim's own in-process writes (binding, eviction, the kubelet) skip it, as upstream
// they go through subresources that have their own rules.
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {

// ValidateBuiltinUpdate returns the causes that forbid updating `old_object` to `new_object`
// (both defaulted); empty when the update is allowed or `type` has no update rules.
std::vector<StatusCause> ValidateBuiltinUpdate(const ResourceType& type, const rapidjson::Value& new_object,
                                               const rapidjson::Value& old_object);

}  // namespace berth::kubesim
