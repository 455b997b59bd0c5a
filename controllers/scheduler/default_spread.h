// controllers/scheduler/default_spread.h
//
// kube-scheduler's PodTopologySpread system defaults need a selector for the pod's "workload":
// helper.DefaultSelector, the selectors of the Services in the pod's namespace that select it
// (merged as a label set), ANDed with the selector of its controller when that is an apps/v1
// ReplicaSet or StatefulSet (or a v1 ReplicationController). An empty result means no default
// constraints. The selector objects come from the caller's caches.
#pragma once

#include <memory>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/api/label_selector.h"
#include "reconcile/placement/types.h"

namespace berth::controllers {

// The kinds whose pods kube-scheduler spreads by default (besides Services).
enum class SpreadOwnerKind { kNone, kReplicaSet, kStatefulSet, kReplicationController };

// SpreadOwnerOf: the pod's controller reference when it is one of those kinds (apiVersion
// apps/v1 for ReplicaSet and StatefulSet, v1 for ReplicationController, as upstream's GVK match).
// `*owner` points into `pod`, so a temporary pod is refused at compile time.
SpreadOwnerKind SpreadOwnerOf(const reconcile::placement::PodSpecView& pod, const reconcile::placement::PodOwnerReference** owner);
SpreadOwnerKind SpreadOwnerOf(reconcile::placement::PodSpecView&& pod,
                              const reconcile::placement::PodOwnerReference** owner) = delete;

// DefaultSpreadSelector: `service_selectors` are the spec.selector values of the Services in the
// pod's namespace (absent or null ones are left out: they select nothing); `owner_selector` is
// the controller's spec.selector (nullptr when the pod has none or it is not cached; a
// metav1.LabelSelector for ReplicaSet/StatefulSet, a label map for ReplicationController).
// Returns null when the selector is empty (no default constraints apply). A selector that does not
// parse is left out, as upstream ignores it.
std::shared_ptr<const shim::LabelSelector> DefaultSpreadSelector(const reconcile::placement::LabelMap& pod_labels,
                                                                 const std::vector<const rapidjson::Value*>& service_selectors,
                                                                 SpreadOwnerKind owner_kind,
                                                                 const rapidjson::Value* owner_selector);

}  // namespace berth::controllers
