// reconcile/resourcepolicy/cost_annotations.h
//
// What berth writes on one pod for the deletion cost, given what the pod carries now. berth marks
// the pods it manages with berth.dev/deletion-cost-policy: <policy name>; it
//   - sets cost + marker on a matched pod that has no cost, or whose marker names this policy (or
//     a policy that no longer exists), and updates the cost only when the value differs;
//   - never touches a cost on a pod without the marker (the user's); a user cost that is not an
//     int32 is reported (an Event) and left alone;
//   - removes cost + marker from a pod its marker names when the policy no longer wants it there
//     (deleted policy, pod no longer matched, pod matched by several policies).
// Pure; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace berth::reconcile::resourcepolicy {

inline constexpr std::string_view kDeletionCostPolicyAnnotation = "berth.dev/deletion-cost-policy";

// PodCostAnnotations: the two annotations as the pod carries them now.
struct PodCostAnnotations {
  std::optional<std::string> cost;    // controller.kubernetes.io/pod-deletion-cost
  std::optional<std::string> marker;  // berth.dev/deletion-cost-policy
};

struct CostAnnotationDecision {
  enum class Kind {
    kUnchanged,      // nothing to write
    kSet,            // write cost (and the marker naming the policy)
    kRemove,         // delete cost and marker
    kUserOwned,      // a cost berth does not manage: left alone
    kOtherPolicy,    // the marker names another existing policy: that policy decides
  };
  Kind kind = Kind::kUnchanged;
  std::string cost;           // kSet: the canonical decimal
  std::string event_message;  // kUserOwned with a value that is not an int32: what to report
};

// DecideCostAnnotations: `desired_cost` is the policy's cost for the pod, nullopt when this
// policy should not (or no longer) mark it. `marker_policy_exists` tells whether the policy the
// marker names (when it names another) still exists in the pod's namespace.
CostAnnotationDecision DecideCostAnnotations(std::string_view policy_name, std::string_view pod_name,
                                             const PodCostAnnotations& current, std::optional<int32_t> desired_cost,
                                             bool marker_policy_exists);

// CostMergePatch: the JSON merge patch body for a decision (kSet or kRemove), e.g.
// {"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"5","berth.dev/deletion-cost-policy":"p"}}}
// or the same keys with null.
std::string CostMergePatch(const CostAnnotationDecision& decision, std::string_view policy_name);

}  // namespace berth::reconcile::resourcepolicy
