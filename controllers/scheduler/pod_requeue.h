// controllers/scheduler/pod_requeue.h
//
// When a pod parked as unschedulable (waiting for a cluster change) is tried again because the
// pod itself changed, as kube-scheduler's scheduling queue does on a pod update.
#pragma once

#include "clientgo-shim/cache/cached_object.h"

namespace berth::controllers {

// PodChangedBeyondStatus: the update from `before` to `after` changed what a scheduling attempt
// reads of the pod itself: its spec (tolerations added, scheduling gates removed, a resized
// request) or its labels or annotations (its own spreading and affinity terms, the reservation
// annotations). Status writes (berth's own PodScheduled condition, the nomination) and the
// resourceVersion are not changes: kube-scheduler's isPodUpdated strips them the same way, so an
// unschedulable pod is not retried on its own status write.
bool PodChangedBeyondStatus(const shim::CachedObject& before, const shim::CachedObject& after);

// LabelsEqual compares metadata.labels of two cached objects (both absent counts as equal).
bool LabelsEqual(const shim::CachedObject& a, const shim::CachedObject& b);

}  // namespace berth::controllers
