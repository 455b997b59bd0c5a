// clientgo-shim/client/conditions.h
//
// metav1.Condition helpers with apimachinery's meta.SetStatusCondition semantics, working on an
// object's status.conditions list in a RapidJSON document:
//   - a new condition gets lastTransitionTime = now;
//   - lastTransitionTime changes only when `status` changes; reason, message and
//     observedGeneration are updated in place without touching it;
//   - SetObservedGeneration copies metadata.generation to status.observedGeneration.
// Each mutator returns whether the object changed, so callers write only when something did.
// Pure functions; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"

namespace berth::shim {

struct Condition {
  std::string type;     // "Ready"
  std::string status;   // "True" | "False" | "Unknown"
  std::string reason;   // CamelCase
  std::string message;
  // observedGeneration to record; nullopt = the object's metadata.generation (if any).
  std::optional<int64_t> observed_generation;
  // false for condition types without observedGeneration (e.g. apps/v1 DeploymentCondition,
  // core/v1 PodCondition), which a strict server rejects. Default: true (metav1.Condition).
  bool record_observed_generation = true;
};

// SetStatusCondition adds or updates `condition` in object.status.conditions (creating status
// and the list when missing). Returns whether the object changed.
bool SetStatusCondition(json::Document& object, const Condition& condition, TimePoint now);

// RemoveStatusCondition drops the condition of `type`. Returns whether it was present.
bool RemoveStatusCondition(json::Value& object, std::string_view type);

// FindStatusCondition returns the condition object of `type`, or nullptr.
const json::Value* FindStatusCondition(const json::Value& object, std::string_view type);

// IsStatusConditionTrue: the condition exists and its status is "True".
bool IsStatusConditionTrue(const json::Value& object, std::string_view type);

// SetObservedGeneration sets status.observedGeneration = metadata.generation. Returns whether it
// changed (false also when the object has no generation).
bool SetObservedGeneration(json::Document& object);

}  // namespace berth::shim
