// controllers/rescheduler/rescheduler_job.h
//
// The PodMigrationJob the rescheduler creates for one move: generateName berth-rescheduler-,
// koord-descheduler's annotations (koordinator.sh/evict-trigger = the strategy, evict-reason,
// job-created-by = berth-rescheduler), mode ReservationFirst, podRef with the uid, and
// spec.reservationOptions.template = the pod's labels and spec (nodeName cleared) with
// `metadata.name In [targets]` appended to every required node-affinity term (one added when
// there is none), so the migration's reservation can only land on a node the decision chose.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "reconcile/rescheduler/selection.h"

namespace berth::controllers {

inline constexpr char kEvictReasonAnnotation[] = "koordinator.sh/evict-reason";
inline constexpr char kEvictTriggerAnnotation[] = "koordinator.sh/evict-trigger";
inline constexpr char kJobCreatedByAnnotation[] = "koordinator.sh/job-created-by";
inline constexpr char kCreatedBy[] = "berth-rescheduler";

// BuildReschedulingJob: the job for `move` of `pod` (the pod object as JSON). Errors
// (kInvalidArgument): the pod has no spec, or an affinity, nodeAffinity, required node affinity or
// node selector term that is not an object.
Result<rapidjson::Document> BuildReschedulingJob(const reconcile::rescheduler::Move& move, const rapidjson::Value& pod);

}  // namespace berth::controllers
