// reconcile/placement/pre_allocation.h
//
// koordinator's pre-allocation of running pods (spec.preAllocation with preAllocationPolicy):
// which bound pods a Reservation may pre-allocate, in which order, which of them on one node
// cover the reservation's requests, which node to take, and when a Waiting reservation may turn
// Available. Pure: the scheduler cache (snapshot_pre_allocation.cc) and the controller feed it.
//
// Rules (the user guide's "Field: preAllocationPolicy" and the three "Example: PreAllocation"):
//   - Candidates are bound, non-terminal, non-deleting pods that consume no reservation and are
//     not pre-allocated by another reservation. Mode Default (or no policy): the pod matches the
//     reservation's owners. Mode Cluster: the pod has the label
//     pod.koordinator.sh/is-pre-allocatable="true" (the key is configurable).
//   - Order: the numeric annotation pod.koordinator.sh/pre-allocatable-priority, higher first;
//     a missing or malformed value sorts after every valid one; ties by namespace, then name.
//   - enableMultiple false: one pod whose requests cover the reservation's requests (for every
//     resource the reservation requests). true: pods of one node taken in order (skipping pods
//     that add nothing still missing) until their requests together cover them.
//   - Node: the one whose first chosen pod has the highest priority, then fewer pods, then the
//     smallest node name; the node must pass the non-resource filters.
//   - Waiting → Available once every pre-allocated pod is gone and the node has room.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

inline constexpr std::string_view kPreAllocatableLabel = "pod.koordinator.sh/is-pre-allocatable";
inline constexpr std::string_view kPreAllocatablePriorityAnnotation =
    "pod.koordinator.sh/pre-allocatable-priority";

// PreAllocationMode: spec.preAllocationPolicy.mode.
enum class PreAllocationMode { kDefault, kCluster };

// ParsePreAllocationMode maps "Cluster" to kCluster and anything else ("", "Default", unknown)
// to kDefault (the CRD's enum refuses other values anyway).
PreAllocationMode ParsePreAllocationMode(std::string_view text);

// PreAllocationPolicy: spec.preAllocationPolicy (absent = mode Default, enableMultiple false).
struct PreAllocationPolicy {
  PreAllocationMode mode = PreAllocationMode::kDefault;
  bool enable_multiple = false;
};

// PreAllocationOptions: the scheduler-wide options (koordinator's ReservationArgs
// preAllocationConfig), berth-manager flags.
struct PreAllocationOptions {
  // enableClusterMode. When false, Cluster-mode reservations find no candidates (they fall back
  // to a plain preAllocation placement). Default: true (berth has no scheduler config file, and
  // the guide's Cluster example must work out of the box).
  bool enable_cluster_mode = true;
  std::string cluster_label_key = std::string(kPreAllocatableLabel);
  std::string cluster_priority_annotation_key = std::string(kPreAllocatablePriorityAnnotation);
  // preferNoPreAllocatedPods: place without pre-allocating when some node has the free room.
  bool prefer_no_pre_allocated_pods = false;
};

// PreAllocatablePod: a pod as candidate selection sees it.
struct PreAllocatablePod {
  PodSpecView pod;  // node_name: the node it is bound to ("" = not bound)
  // The value of the priority annotation (options.cluster_priority_annotation_key); nullopt
  // when absent.
  std::optional<std::string> priority;
  bool terminal = false;  // status.phase Succeeded or Failed
  bool deleting = false;  // metadata.deletionTimestamp set
};

// PreAllocationCandidate: an eligible pod with its parsed priority.
struct PreAllocationCandidate {
  const PreAllocatablePod* pod = nullptr;
  std::optional<int64_t> priority;  // nullopt: missing or malformed (sorts last)
};

// PreAllocationChoice: where the reservation goes and which pods it pre-allocates (in order).
struct PreAllocationChoice {
  std::string node_name;
  std::vector<PreAllocatedPod> pods;
  ResourceAmounts pod_requests;  // the chosen pods' requests summed
};

// ParsePreAllocatablePriority: a base-10 int64 with an optional sign ("100", "-5", "+7").
// Returns nullopt for empty text, spaces, fractions, exponents, other characters or overflow.
std::optional<int64_t> ParsePreAllocatablePriority(std::string_view text);

// IsPreAllocatable: the candidate rules above, except the "pre-allocated elsewhere" exclusion
// (see SelectPreAllocatable).
bool IsPreAllocatable(const PreAllocatablePod& pod, const std::vector<ReservationOwner>& owners,
                      const PreAllocationPolicy& policy, const PreAllocationOptions& options);

// CandidateBefore: the pre-allocation order (priority desc, missing last, namespace, name).
bool CandidateBefore(const PreAllocationCandidate& a, const PreAllocationCandidate& b);

// SelectPreAllocatable returns the eligible pods in pre-allocation order, leaving out the uids
// in `taken` (pods another active reservation already pre-allocates).
std::vector<PreAllocationCandidate> SelectPreAllocatable(
    const std::vector<PreAllocatablePod>& pods, const std::vector<ReservationOwner>& owners,
    const PreAllocationPolicy& policy, const PreAllocationOptions& options,
    const std::set<std::string, std::less<>>& taken = {});

// Covers: for every resource with a positive amount in `requests`, `have` holds at least as much.
bool Covers(const ResourceAmounts& have, const ResourceAmounts& requests);

// CoverOnNode picks, from candidates of one node already in order, the pods to pre-allocate:
// with enable_multiple false the first whose requests alone cover `requests`; with true a
// greedy prefix in order, skipping pods that add nothing to a resource still missing, until
// covered. Returns nullopt when they cannot cover `requests` (or `requests` is empty).
std::optional<std::vector<const PreAllocationCandidate*>> CoverOnNode(
    const std::vector<const PreAllocationCandidate*>& ordered, const ResourceAmounts& requests,
    bool enable_multiple);

// ChoosePreAllocation picks the node and pods (rules above) from candidates in order.
// `node_ok(name)` says whether the node exists and passes the non-resource filters.
// Returns nullopt when no node can be covered.
std::optional<PreAllocationChoice> ChoosePreAllocation(
    const std::vector<PreAllocationCandidate>& ordered, const ResourceAmounts& requests,
    bool enable_multiple, const std::function<bool(std::string_view)>& node_ok);

// WaitingState: what a Waiting reservation waits for.
enum class WaitingState {
  kPodsRunning,  // some pre-allocated pod is still there
  kNoRoom,       // the pods are gone (or there were none) but the node lacks free capacity
  kAvailable,    // it may turn Available
};

struct WaitingDecision {
  WaitingState state = WaitingState::kNoRoom;
  std::vector<PreAllocatedPod> running;  // the pre-allocated pods still there, in record order
};

// DecideWaiting: kPodsRunning while `running(pod)` holds for a recorded pod; otherwise
// kAvailable when `node_has_room`, else kNoRoom.
WaitingDecision DecideWaiting(const std::vector<PreAllocatedPod>& recorded,
                              const std::function<bool(const PreAllocatedPod&)>& running,
                              bool node_has_room);

}  // namespace berth::reconcile::placement
