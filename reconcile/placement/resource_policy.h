// reconcile/placement/resource_policy.h
//
// ResourcePolicy (scheduling.sigs.x-k8s.io/v1alpha1, the scheduler-plugins KEP-594 draft) as the
// scheduler sees it, and its pure rules. A policy selects pods of its namespace (podSelector),
// groups them by the values of matchLabelKeys (like PodTopologySpread) and orders them into units
// of nodes: a node of a unit whose group count reached maxCount is filtered out; a node in no
// unit passes under `prefer` (scoring below every unit) and fails under `required`; among the
// nodes that pass, the highest unit priority wins (score priority × 20, compared before the
// resource score). ClusterSnapshot keeps the counts incrementally (snapshot_resource_policy.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/api/label_selector.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// Filter reasons, in kube-scheduler's "node(s) ..." style.
inline constexpr std::string_view kReasonResourcePolicyUnits =
    "node(s) didn't match resource policy units";
inline constexpr std::string_view kReasonResourcePolicyMaxCount =
    "node(s) exceeded resource policy unit maxCount";

// UnitNodeSelector: units[].nodeSelector, matchLabels ANDed with matchExpressions (node-affinity
// operators). An empty selector selects every node.
struct UnitNodeSelector {
  LabelMap match_labels;
  std::vector<NodeSelectorRequirement> match_expressions;
};

struct ResourcePolicyUnit {
  std::string name;
  int32_t priority = 0;
  std::optional<int32_t> max_count;  // nullopt: unlimited
  UnitNodeSelector node_selector;
};

struct ResourcePolicyView {
  std::string namespace_name;
  std::string name;
  std::vector<std::string> match_label_keys;
  bool ignore_terminating_pod = false;
  shim::LabelSelector pod_selector;  // an absent podSelector selects every pod (Everything)
  bool required = false;             // strategy: required (false: prefer)
  std::vector<ResourcePolicyUnit> units;
};

// UnitMatchesNode: the unit's selector selects a node with these labels.
bool UnitMatchesNode(const UnitNodeSelector& selector, std::string_view node_name,
                     const LabelMap& node_labels);
// PolicySelectsPod: same namespace and the podSelector matches.
bool PolicySelectsPod(const ResourcePolicyView& policy, std::string_view pod_namespace,
                      const LabelMap& pod_labels);
// GroupKey: the pod's values for matchLabelKeys, "k1=v1,k2=v2" in key order of the spec. A key
// the pod lacks is left out; such a pod counts every group agreeing with it (GroupAgreesWithPod).
// "" without keys.
std::string GroupKey(const ResourcePolicyView& policy, const LabelMap& pod_labels);
// HasEveryMatchLabelKey: the pod has a value for each matchLabelKeys key (its group's counts
// are then exactly its own group's).
bool HasEveryMatchLabelKey(const ResourcePolicyView& policy, const LabelMap& pod_labels);
// GroupAgreesWithPod: the pods of `group` (a GroupKey) count for a pod with these labels, as
// PodTopologySpread's matchLabelKeys count: the group has the pod's value for every key the pod
// has; a key the pod lacks is left out of the pod's selector, so any value (or none) counts.
bool GroupAgreesWithPod(const ResourcePolicyView& policy, const LabelMap& pod_labels, std::string_view group);
// PriorityScore: the KEP's priority × 20 for a node of a unit; nodes in no unit score -1 so they
// rank after every unit (the KEP: "considered after all nodes match the units").
int64_t PriorityScore(std::optional<int32_t> unit_priority);
// NormalizeScores: kube-scheduler's DefaultNormalizeScore (score × 100 / max, negatives as 0).
void NormalizeScores(std::vector<int64_t>& scores);
// ConflictMessage: the PreFilter rejection of a pod selected by several policies, e.g.
// "pod is matched by more than one resource policy: ResourcePolicy/a, ResourcePolicy/b".
std::string ConflictMessage(const std::vector<std::string>& policy_names);

// --- Status (pure; the status writer or controller publishes it) -----------------------------
struct UnitGroupCount {
  std::string group;  // GroupKey
  int32_t pods = 0;
};
struct UnitStatus {
  std::string name;
  std::optional<int32_t> max_count;
  int32_t nodes = 0;
  std::vector<UnitGroupCount> groups;  // sorted by group
};
struct PolicyPodFacts {
  std::string namespace_name;
  std::string name;
  LabelMap labels;
  std::string node_name;  // "" when not bound
  bool terminating = false;
};
struct PolicyNodeFacts {
  std::string name;
  LabelMap labels;
};
struct ResourcePolicyStatus {
  int32_t matched_pods = 0;
  std::vector<UnitStatus> units;
  std::string unit_summary;  // "on-demand 4/4, spot 6" (the fullest group per unit)
  // Pods (namespace/name) that other policies of the namespace also select.
  std::vector<std::string> conflicting_pods;
  bool selects_no_pod = false;
  std::vector<std::string> units_without_nodes;
};
// ComputeResourcePolicyStatus: the counts the scheduler works with, computed from scratch.
// `others` are the other policies of the namespace (for the Conflict condition).
ResourcePolicyStatus ComputeResourcePolicyStatus(const ResourcePolicyView& policy,
                                                 const std::vector<const ResourcePolicyView*>& others,
                                                 const std::vector<PolicyPodFacts>& pods,
                                                 const std::vector<PolicyNodeFacts>& nodes);

}  // namespace berth::reconcile::placement
