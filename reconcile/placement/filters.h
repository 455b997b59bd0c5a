// reconcile/placement/filters.h
//
// kube-scheduler's filter plugins as pure predicates over one pod view and one node view, with
// the plugins' failure reasons, and FitError, the "0/N nodes are available: ..." summary. The
// ClusterSnapshot runs them in kube-scheduler's default order (NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity, NodeResourcesFit) and stops at the first failing plugin per node.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// Failure reasons, worded exactly like the upstream plugins.
inline constexpr std::string_view kReasonNodeName = "node(s) didn't match the requested node name";
// koordinator's wording for a reservation whose template pins spec.nodeName (the reserve pod's
// node moves to an annotation there, checked by the Reservation plugin instead of NodeName).
inline constexpr std::string_view kReasonReservationNodeName =
    "node(s) didn't match the nodeName specified by reservation";
inline constexpr std::string_view kReasonUnschedulable = "node(s) were unschedulable";
inline constexpr std::string_view kReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kReasonTooManyPods = "Too many pods";
// koordinator's Reservation plugin: the pod matches reservations on the node but fits none.
inline constexpr std::string_view kReasonReservationInsufficient =
    "node(s) reservations insufficient resources";
// The taint the NodeUnschedulable plugin lets pods tolerate.
inline constexpr std::string_view kTaintUnschedulable = "node.kubernetes.io/unschedulable";

// ToleratesTaint is core/v1 Toleration.ToleratesTaint.
bool ToleratesTaint(const Toleration& toleration, const Taint& taint);
// ToleratesAll: every taint with effect NoSchedule or NoExecute is tolerated.
bool ToleratesAll(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints);
// FirstUntoleratedTaint: the first NoSchedule/NoExecute taint (in node order) no toleration
// tolerates; nullptr when all are tolerated.
const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                   const std::vector<Taint>& taints);
// UntoleratedTaintReason: "node(s) had untolerated taint {key: value}".
std::string UntoleratedTaintReason(const Taint& taint);

// PassesNodeUnschedulable: false when the node is unschedulable and the pod does not tolerate
// node.kubernetes.io/unschedulable:NoSchedule.
bool PassesNodeUnschedulable(const PodSpecView& pod, const NodeView& node);
// PassesNodeName: the pod pins no node, or pins this one.
bool PassesNodeName(const PodSpecView& pod, std::string_view node_name);
// MatchesNodeSelectorTerms: the terms are ORed (an empty list matches nothing).
bool MatchesNodeSelectorTerms(const std::vector<NodeSelectorTerm>& terms,
                              std::string_view node_name, const LabelMap& node_labels);
// PassesNodeAffinity: spec.nodeSelector (every pair equal) and the required node affinity terms.
bool PassesNodeAffinity(const PodSpecView& pod, std::string_view node_name,
                        const LabelMap& node_labels);
// InsufficientReason: "Too many pods" for "pods", otherwise "Insufficient <name>".
std::string InsufficientReason(std::string_view resource);

// FilterReasons: the reasons one node rejects the pod, from the first failing non-resource
// plugin (empty when all pass). NodeResourcesFit is left to the caller (it needs usage).
std::vector<std::string> NonResourceFilterReasons(const PodSpecView& pod, const NodeView& node);

// CopiesOnEmptyNode: how many copies of the pod the node could hold with nothing else on it:
// 0 when a non-resource filter rejects it, otherwise the least of allocatable / request over
// the pod's requests and one "pods" slot each (a resource the node lacks: 0; host ports: at
// most 1). An upper bound on what the node can ever hold for it.
int64_t CopiesOnEmptyNode(const PodSpecView& pod, const NodeView& node);

// FitError: why no node fits; kube-scheduler's framework.FitError.
struct FitError {
  int num_all_nodes = 0;
  // reason → number of nodes that gave it (a node may give several, e.g. cpu and memory).
  std::map<std::string, int, std::less<>> reasons;
  // A PreFilter rejection (kube-scheduler's Diagnosis.PreFilterMsg): replaces the per-node
  // histogram in the message.
  std::string pre_filter_message;
  // PostFilter reasons (koordinator's Reservation plugin), appended as one more sentence.
  std::vector<std::string> post_filter_reasons;
  // A scheduling error rather than a fit failure (e.g. an annotation or a quantity that does not
  // parse): the message is this text alone, with or without nodes.
  std::string error;

  // Message is FitError.Error() without the PostFilter part of preemption (the scheduler controller
  // appends it, reconcile/placement/preemption.h WithPostFilterMessage):
  // "0/3 nodes are available: 1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu."
  // The "<count> <reason>" strings are sorted as strings, like upstream. With no nodes at all it
  // is upstream's ErrNoNodesAvailable text, "no nodes available to schedule pods". With a
  // pre_filter_message: "0/3 nodes are available: <it>."; post_filter_reasons add
  // " <r1>, <r2>." (FitError.Error()'s PostFilterMsg).
  std::string Message() const;
  bool operator==(const FitError&) const = default;
};

}  // namespace berth::reconcile::placement
