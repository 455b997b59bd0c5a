// controllers/scheduler/pre_allocation_codec.h
//
// The API edge of pre-allocation: spec.preAllocationPolicy, running pods as pre-allocation
// candidates, and the Reservation annotation in which berth records the pods a Reservation
// pre-allocates, so a berth-manager restart keeps the binding. koordinator publishes no wire
// format for this record, so it lives under berth's own domain:
//   berth.dev/pre-allocated-pods: [{"namespace":"default","name":"batch-job-1","uid":"…"}]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/pre_allocation.h"

namespace berth::controllers {

inline constexpr char kPreAllocatedPodsAnnotation[] = "berth.dev/pre-allocated-pods";

// ReadPreAllocationPolicy: spec.preAllocationPolicy.mode / enableMultiple (absent or malformed
// fields: mode Default, enableMultiple false).
reconcile::placement::PreAllocationPolicy ReadPreAllocationPolicy(const rapidjson::Value& reservation);

// ReadPreAllocationEnabled: spec.preAllocation is the boolean true.
bool ReadPreAllocationEnabled(const rapidjson::Value& reservation);

// ReadPreAllocatablePod: a pod as candidate selection sees it; `priority_annotation` names the
// annotation holding its pre-allocatable priority.
reconcile::placement::PreAllocatablePod ReadPreAllocatablePod(const rapidjson::Value& pod,
                                                              std::string_view priority_annotation);

// ParsePreAllocatedPods parses the annotation value. Entries without a uid are dropped.
// Errors: kInvalidArgument when the text is not a JSON array of objects.
Result<std::vector<reconcile::placement::PreAllocatedPod>> ParsePreAllocatedPods(std::string_view text);

// FormatPreAllocatedPods writes the annotation value (the inverse of ParsePreAllocatedPods).
std::string FormatPreAllocatedPods(const std::vector<reconcile::placement::PreAllocatedPod>& pods);

// ReadPreAllocatedPods: the Reservation's recorded pods; empty when the annotation is absent or
// malformed (then the reservation waits only for room on its node).
std::vector<reconcile::placement::PreAllocatedPod> ReadPreAllocatedPods(const rapidjson::Value& reservation);

}  // namespace berth::controllers
