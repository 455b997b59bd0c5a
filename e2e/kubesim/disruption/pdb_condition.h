// e2e/kubesim/disruption/pdb_condition.h
//
// The PDB DisruptionAllowed condition (metav1.Condition) and apimachinery's SetStatusCondition
// rules: lastTransitionTime only moves when the status flips; reason, message and
// observedGeneration are always refreshed; other condition types are left untouched.
#pragma once

#include <cstdint>
#include <string_view>

#include <rapidjson/document.h>

#include "e2e/kubesim/disruption/time_format.h"

namespace berth::kubesim::disruption {

inline constexpr std::string_view kDisruptionAllowedCondition = "DisruptionAllowed";
inline constexpr std::string_view kSufficientPodsReason = "SufficientPods";
inline constexpr std::string_view kInsufficientPodsReason = "InsufficientPods";
inline constexpr std::string_view kSyncFailedReason = "SyncFailed";

// ConditionUpdate is the new value of one metav1.Condition.
struct ConditionUpdate {
  std::string_view type;
  std::string_view status;  // "True" / "False" / "Unknown"
  std::string_view reason;
  std::string_view message;
  int64_t observed_generation = 0;
};

// SetStatusCondition applies `update` to the `conditions` array (made an array if it is not).
// A new entry, or a status change, gets lastTransitionTime = now.
void SetStatusCondition(rapidjson::Value& conditions, const ConditionUpdate& update, TimePoint now,
                        rapidjson::Document::AllocatorType& alloc);

// UpdateDisruptionAllowedCondition sets DisruptionAllowed from status.disruptionsAllowed
// (True/SufficientPods when > 0, else False/InsufficientPods), observedGeneration taken from
// status.observedGeneration, as pdbhelper.UpdateDisruptionAllowedCondition does.
void UpdateDisruptionAllowedCondition(rapidjson::Value& status, TimePoint now,
                                      rapidjson::Document::AllocatorType& alloc);

// IntField reads an integer member (0 when absent or not an integer).
int64_t IntField(const rapidjson::Value& obj, std::string_view key);

}  // namespace berth::kubesim::disruption
