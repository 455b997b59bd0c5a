// controllers/common/pod_cache.h
//
// What berth-manager caches of a pod. Every controller shares one pods informer, so this is the
// union of what they read; berth-manager installs it for "/api/v1/pods" (main.cc), whichever
// controller asks for the informer first.
#pragma once

#include <string>
#include <vector>

#include "clientgo-shim/cache/transform.h"

namespace berth::controllers {

// PodStatusRead: the status members some controller reads. phase: every controller (terminal
// and running pods); conditions: Ready (migration, drain, ResourcePolicy, workload tallies),
// PodScheduled (pending-pod migration), DisruptionTarget (preemption victims); startTime and
// nominatedNodeName: the scheduler's preemption order and nominations. containerStatuses, the
// IPs, qosClass, reason and message are read by none.
const std::vector<std::string>& PodStatusRead();

// PodCacheTransform: shim::DefaultTransform keeping of status only PodStatusRead(); metadata
// (less managedFields and last-applied) and spec stay whole (a migration copies a pod's spec
// into its Reservation's template).
shim::Transform PodCacheTransform();

}  // namespace berth::controllers
