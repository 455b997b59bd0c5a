// e2e/kubesim/api/pod_conditions.h
//
// The one place kubesim finds a pod condition to write: the binding storage (PodScheduled=True),
// the simulated default scheduler (PodScheduled=False) and the kubelet (Ready, ...) all go
// through it.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

namespace berth::kubesim {

// ConditionOfType returns status.conditions[i] with the given type in `status` (a pod's status
// object), appending {"type": type} when there is none (and the conditions array when it is
// missing or not an array). The reference is valid until the array is next modified.
rapidjson::Value& ConditionOfType(rapidjson::Value& status, std::string_view type,
                                  rapidjson::Document::AllocatorType& alloc);

// ApplySchedulingGatedCondition is the pod strategy's PrepareForCreate step of that name: a pod
// created with a non-empty spec.schedulingGates and no PodScheduled condition gets
// PodScheduled=False, reason SchedulingGated, "Scheduling is blocked due to non-empty scheduling
// gates" (what `kubectl get pod` shows as its status). Create only: an update never adds it.
void ApplySchedulingGatedCondition(rapidjson::Value& pod, rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::kubesim
