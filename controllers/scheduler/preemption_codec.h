// controllers/scheduler/preemption_codec.h
//
// The edge between API objects and reconcile/placement/preemption.h: a pod's priority fields,
// PodDisruptionBudgets, and the bodies of the writes preemption makes (the victim's
// DisruptionTarget condition, the preemptor's nominatedNodeName).
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "reconcile/placement/preemption.h"

namespace berth::controllers {

// ReadPodPriority: spec.priority (absent = 0), spec.preemptionPolicy, status.startTime,
// status.nominatedNodeName, and whether the pod is terminating as a preemption victim
// (deletionTimestamp and DisruptionTarget=True/PreemptionByScheduler). A priority that is not an
// int32 or a startTime that does not parse sets `error` naming the field.
reconcile::placement::PodPriority ReadPodPriority(const rapidjson::Value& pod);

// ReadStartTime fills priority.start_time from status.startTime's text (nullopt: absent), or
// priority.error naming the field when it does not parse.
void ReadStartTime(std::optional<std::string_view> text, reconcile::placement::PodPriority& priority);

// ReadPdbView: a policy/v1 PodDisruptionBudget: namespace, name, spec.selector (one that does not
// convert selects nothing, as in kube-scheduler), status.disruptionsAllowed, the names in
// status.disruptedPods.
reconcile::placement::PdbView ReadPdbView(const rapidjson::Value& pdb);

// DisruptionTargetPatch: the strategic merge patch of pods/status that kube-scheduler sends
// before deleting a victim: condition DisruptionTarget=True, reason PreemptionByScheduler,
// message "<schedulerName>: preempting to accommodate a higher priority pod".
std::string DisruptionTargetPatch(std::string_view scheduler_name, std::string_view now_rfc3339);

// PreemptionMessage: the condition's message.
std::string PreemptionMessage(std::string_view scheduler_name);

}  // namespace berth::controllers
