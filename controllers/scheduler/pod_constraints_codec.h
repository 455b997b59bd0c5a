// controllers/scheduler/pod_constraints_codec.h
//
// Reads what InterPodAffinity, PodTopologySpread and NodeAffinity scoring need from a pod spec:
// spec.affinity.{podAffinity,podAntiAffinity} (required and preferred terms),
// spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution and
// spec.topologySpreadConstraints. matchLabelKeys / mismatchLabelKeys are merged into the label
// selector with the pod's own label values (key In / NotIn (value); keys the pod lacks are
// skipped), as the API server does; merging again what it already merged changes nothing.
// A field that does not convert (an invalid selector, maxSkew < 1, an unknown
// whenUnsatisfiable or policy) is appended to `errors` naming it, and the term or constraint
// is left out: the scheduler then reports the errors instead of placing the pod.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "reconcile/placement/types.h"

namespace berth::controllers {

// ReadPodConstraints fills view.pod_affinity, view.preferred_node_affinity and
// view.topology_spread from `spec` (the pod's spec, at field path `path`), using
// view.namespace_name and view.labels (read first).
void ReadPodConstraints(const rapidjson::Value& spec, std::string_view path, reconcile::placement::PodSpecView& view,
                        std::vector<std::string>& errors);

}  // namespace berth::controllers
