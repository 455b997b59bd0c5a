// e2e/kubesim/sim/default_scheduler_fit.h
//
// The filters kube-scheduler's default profile applies that kubesim simulates, as pure functions
// over pod and node JSON: NodeUnschedulable, TaintToleration (NoSchedule/NoExecute), NodeAffinity
// (spec.nodeSelector only) and NodeResourcesFit (requests against allocatable minus the requests of
// the pods bound there). A node stops at its first failing filter, as the framework does, and the
// fit error reads like kube-scheduler's ("0/3 nodes are available: 3 Insufficient cpu.").
// Kept apart from berth's own placement code so kubesim checks berth instead of agreeing with it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::scheduling {

// Resources: milli-units per resource name ("cpu", "memory", "pods", extended ones).
using Resources = std::map<std::string, int64_t>;

// PodRequests: max(sum of containers, each init container) + overhead, in milli-units, plus
// "pods" = 1000 (one pod). A quantity that does not parse is an error naming the field.
Result<Resources> PodRequests(const rapidjson::Value& pod);

// NodeState: one node as the filters see it.
struct NodeState {
  const rapidjson::Value* node = nullptr;
  std::string name;
  Resources allocatable;  // status.allocatable in milli-units
  Resources requested;    // sum of PodRequests of the non-terminal pods bound to it
};

// ParseNode reads name and allocatable; an unparsable quantity is an error.
Result<NodeState> ParseNode(const rapidjson::Value& node);

// Decision: the chosen node, or the fit error message when none fits.
struct Decision {
  std::optional<std::string> node;
  std::string message;  // "" when a node was chosen
};

// FilterNode returns nothing when the pod passes every filter on the node, else the reasons of
// the first failing filter in kube-scheduler's wording (NodeResourcesFit may give several:
// "Insufficient cpu", "Insufficient memory").
std::vector<std::string> FilterNode(const rapidjson::Value& pod, const Resources& requests, const NodeState& node);

// Schedule runs the filters on every node and picks, among the feasible ones, the least
// allocated (mean of the cpu and memory fractions requested after placing the pod; ties by
// name, so the choice is deterministic).
Decision Schedule(const rapidjson::Value& pod, const Resources& requests, const std::vector<NodeState>& nodes);

// FitErrorMessage formats kube-scheduler's FitError: "0/N nodes are available: " + the reasons
// as "<count> <reason>" sorted and joined by ", " + "."; with no nodes, ErrNoNodesAvailable's
// "no nodes available to schedule pods".
std::string FitErrorMessage(size_t node_count, const std::map<std::string, int>& reason_counts);

}  // namespace berth::kubesim::scheduling
