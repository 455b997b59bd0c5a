// controllers/scheduler/pod_constraints_codec.h
//
// Reads what InterPodAffinity, PodTopologySpread and NodeAffinity scoring need from a pod spec:
// spec.affinity.{podAffinity,podAntiAffinity} (required and preferred terms),
// spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution and
// spec.topologySpreadConstraints. matchLabelKeys / mismatchLabelKeys are merged into the label
// selector with the pod's own label values (key In / NotIn (value); keys the pod lacks are
// skipped), as the API server does; merging again what it already merged changes nothing.
// A field that does not convert (an invalid selector, maxSkew < 1, an unknown
// whenUnsatisfiable or policy, a weight outside 1-100, a node selector requirement the
// apiserver's validation refuses, a value of the wrong JSON type) is appended to `errors` with
// the apiserver's field path and wording, and the term or constraint is left out: the scheduler
// then reports the errors (condition, Event, log) instead of placing the pod. Nothing malformed
// is skipped silently.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "reconcile/placement/types.h"

namespace berth::controllers {

// ReadPodConstraints fills view.pod_affinity, view.preferred_node_affinity and
// view.topology_spread from `spec` (the pod's spec, at field path `path`), using
// view.namespace_name and view.labels (read first).
// ReadNodeSelectorTerm: one v1.NodeSelectorTerm (matchExpressions, matchFields) at `path`,
// checked as the apiserver's ValidateNodeSelectorTerm (plus Gt/Lt values that must be integers,
// as the scheduler parses them); nullopt with the errors appended when any part is malformed.
std::optional<reconcile::placement::NodeSelectorTerm> ReadNodeSelectorTerm(const rapidjson::Value& term,
                                                                           const std::string& path,
                                                                           std::vector<std::string>& errors);

void ReadPodConstraints(const rapidjson::Value& spec, std::string_view path, reconcile::placement::PodSpecView& view,
                        std::vector<std::string>& errors);

}  // namespace berth::controllers
