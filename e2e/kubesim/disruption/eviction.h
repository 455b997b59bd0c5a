// e2e/kubesim/disruption/eviction.h
//
// The decision part of POST /api/v1/namespaces/{ns}/pods/{name}/eviction, following
// kube-apiserver's eviction REST handler: which requests are rejected (and with which exact
// metav1.Status), which bypass the PodDisruptionBudget, and which consume one disruption. The
// caller performs the writes the decision asks for (PDB status update, DisruptionTarget
// condition, pod delete) and sends the bodies returned here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/disruption/time_format.h"

namespace berth::kubesim::disruption {

// kMaxDisruptedPodSize: above this many disruptedPods entries evictions are refused (403).
inline constexpr size_t kMaxDisruptedPodSize = 2000;

// EvictionReject is an error response.
struct EvictionReject {
  int http_code = 0;
  rapidjson::Document status;               // complete metav1.Status body
  std::optional<int> retry_after_seconds;   // Retry-After header; set only when > 0
};

// EvictionAllow means: (optionally) write the PDB status, then delete the pod.
struct EvictionAllow {
  bool decrement_pdb = false;              // write updated_pdb_status first (never in dry-run)
  std::string pdb_name;                    // the guarding PDB ("" when none applied)
  rapidjson::Document updated_pdb_status;  // new PDB status when a disruption was consumed
  bool add_disruption_target_condition = false;  // false in dry-run
  bool dry_run = false;                    // effective: URL dryRun or body deleteOptions.dryRun
  rapidjson::Document delete_options;      // metav1.DeleteOptions to delete the pod with
  // When the delete fails with a Conflict (resourceVersion precondition added here), answer
  // with TooManyRequestsWhilePdbProcessing(pdb_name) instead, so clients retry.
  bool conflict_means_too_many_requests = false;
  rapidjson::Document success_status;      // body for the 201 response
  int http_code = 201;
};

using EvictionDecision = std::variant<EvictionReject, EvictionAllow>;

// DecideEviction decides an eviction of `pod` requested with `eviction_body` at URL name
// `url_name`; `matching_pdbs` are the PDBs of the pod's namespace that select it (see
// PdbSelectsPod); `dry_run` is the URL's dryRun=All.
EvictionDecision DecideEviction(const rapidjson::Value& pod,
                                const std::vector<const rapidjson::Value*>& matching_pdbs,
                                const rapidjson::Value& eviction_body, std::string_view url_name,
                                bool dry_run, TimePoint now);

// PdbSelectsPod is the eviction handler's PDB filter: same namespace, a valid selector that
// matches the pod's labels (an empty selector matches all; a missing or invalid one, nothing).
bool PdbSelectsPod(const rapidjson::Value& pdb, const rapidjson::Value& pod);

// TooManyRequestsWhilePdbProcessing is the 429 (Retry-After 10) "still being processed" reject.
EvictionReject TooManyRequestsWhilePdbProcessing(std::string_view pdb_name);

// DisruptionTargetCondition returns the pod condition the eviction adds before deleting:
// {type DisruptionTarget, status True, lastProbeTime null, lastTransitionTime now,
//  reason EvictionByEvictionAPI, message "Eviction API: evicting"}.
rapidjson::Document DisruptionTargetCondition(TimePoint now);

// ApplyDisruptionTargetCondition sets that condition on `pod` (status.conditions), keeping the
// existing lastTransitionTime when the condition is already True (UpdatePodCondition rules).
void ApplyDisruptionTargetCondition(rapidjson::Value& pod, TimePoint now,
                                    rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::kubesim::disruption
