// controllers/extender/extender_codec.h
//
// kube-scheduler's HTTP extender wire format (k8s.io/kube-scheduler/extender/v1). The Go structs
// carry no json tags, so the keys are the Go field names; kube-scheduler's encoding/json matches
// keys case-insensitively (an exact match preferred), so the decoders here do too, and the
// encoders write the exact names. Every field is written (Go has no omitempty there), nil as null.
//   ExtenderArgs         {"Pod": v1.Pod, "Nodes": v1.NodeList|null, "NodeNames": [string]|null}
//   ExtenderFilterResult {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}
//   HostPriorityList     [{"Host": string, "Score": int64 0..10}]
//   ExtenderBindingArgs  {"PodName", "PodNamespace", "PodUID", "Node"}
//   ExtenderBindingResult{"Error"}
//   ExtenderPreemptionArgs   {"Pod", "NodeNameToVictims": {node: {"Pods": [v1.Pod], "NumPDBViolations"}}|null,
//                             "NodeNameToMetaVictims": {node: {"Pods": [{"UID"}], "NumPDBViolations"}}|null}
//   ExtenderPreemptionResult {"NodeNameToMetaVictims": {...}} (always the UID form)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::controllers::extender {

inline constexpr int64_t kMinExtenderPriority = 0;
inline constexpr int64_t kMaxExtenderPriority = 10;
// kMaxNestingDepth: a request body nesting arrays and objects deeper is refused (400), as Go's
// encoding/json refuses it ("exceeded max depth", its maxNestingDepth), so that no walk over a
// decoded body (echoing Nodes, reading the pod) recurses without bound on the server's thread.
inline constexpr int kMaxNestingDepth = 10000;

// ExtenderArgs: a filter or prioritize request. `pod` is the Pod object; the candidate nodes are
// `node_names` in order, from NodeNames (nodeCacheCapable) or from Nodes.items[].metadata.name.
struct ExtenderArgs {
  rapidjson::Document document;   // owns the parsed body
  const rapidjson::Value* pod = nullptr;
  // True when the nodes came as a NodeList (nodeCacheCapable: false): the filter answers with
  // Nodes then, and with NodeNames otherwise.
  bool nodes_as_list = false;
  // Views into `document`'s strings (stable while the ExtenderArgs lives, moves included: the
  // values live in the document's allocator), so 5,000 names cost no copies.
  std::vector<std::string_view> node_names;
  // nodes_as_list only: node_items[i] is the Node object of node_names[i], echoed in the answer.
  std::vector<const rapidjson::Value*> node_items;
};

// DecodeExtenderArgs parses a request body.
// Errors: kInvalidArgument naming what is wrong (not JSON, nested deeper than kMaxNestingDepth,
// not an object, Pod missing or not an
// object, Nodes/NodeNames of the wrong type, a node without metadata.name).
Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body);

// ExtenderFilterResult: the filter answer. `passed` are names of nodes that pass.
struct ExtenderFilterResult {
  std::vector<std::string_view> passed;
  std::map<std::string, std::string> failed;                 // FailedNodes
  std::map<std::string, std::string> failed_unresolvable;    // FailedAndUnresolvableNodes
  std::string error;
};

// EncodeFilterResult writes the answer in the request's mode: NodeNames (and Nodes null), or,
// for a NodeList request, Nodes holding the passing items of `args` (and NodeNames null).
std::string EncodeFilterResult(const ExtenderFilterResult& result, const ExtenderArgs* args);

struct HostPriority {
  std::string_view host;
  int64_t score = 0;
};
// EncodeHostPriorityList writes [{"Host":..,"Score":..}, ...].
std::string EncodeHostPriorityList(const std::vector<HostPriority>& list);

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};
// DecodeBindingArgs parses a bind request. Errors: kInvalidArgument (not a JSON object, a field
// that is not a string, PodName or Node empty or missing).
Result<ExtenderBindingArgs> DecodeBindingArgs(std::string_view body);
// EncodeBindingResult writes {"Error": error}.
std::string EncodeBindingResult(std::string_view error);

// MetaVictims: one candidate node of a preempt request: the victims' UIDs in the request's order.
struct MetaVictims {
  std::vector<std::string> pod_uids;
  int64_t num_pdb_violations = 0;
};

// ExtenderPreemptionArgs: a preempt request. Candidates come from NodeNameToMetaVictims
// (nodeCacheCapable) or, failing that, from NodeNameToVictims (full pods: metadata.uid is read).
struct ExtenderPreemptionArgs {
  rapidjson::Document document;  // owns the parsed body
  const rapidjson::Value* pod = nullptr;
  std::map<std::string, MetaVictims> candidates;
};

// DecodePreemptionArgs parses a preempt request. Errors: kInvalidArgument (not a JSON object, Pod
// missing, a victims map or entry of the wrong type, a victim without a UID, NumPDBViolations not
// an integer).
Result<ExtenderPreemptionArgs> DecodePreemptionArgs(std::string_view body);
// EncodePreemptionResult writes {"NodeNameToMetaVictims": {node: {"Pods": [{"UID"}], "NumPDBViolations"}}}.
std::string EncodePreemptionResult(const std::map<std::string, MetaVictims>& candidates);

// EncodeError: the body of a 400 answer, {"Error": message}; it decodes as an
// ExtenderFilterResult or ExtenderBindingResult with Error set.
std::string EncodeError(std::string_view message);

// FindKey: the value for `key` in `object`, keys compared ignoring ASCII case. Go's decoder maps
// every case variant to the one field and assigns them in order, so the last such member wins.
// nullptr when none.
const rapidjson::Value* FindKey(const rapidjson::Value& object, std::string_view key);

}  // namespace berth::controllers::extender
