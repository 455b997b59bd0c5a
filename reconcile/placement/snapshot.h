// reconcile/placement/snapshot.h
//
// ClusterSnapshot: the secondary scheduler's cache and decision logic. The controller feeds it
// nodes, bound pods and Reservations from its informers (incrementally, O(1)-ish per event), asks
// it to place a Reservation or schedule a pod, and records each decision with Assume* until the
// write shows up in the watch, so two decisions never book the same capacity. Pure and
// single-threaded: the controller holds one lock around Schedule*/Place* + Assume*.
//
// Accounting per node, for each resource (milli-units):
//   requested = sum of the effective requests of bound and assumed pods ("pods": 1000 each)
//   held      = sum over active reservations (Available or Waiting, or assumed, and not past
//               their expiry deadline) of
//               max(0, allocatable - allocated), where allocated sums the requests (masked to
//               allocatable) of the pods whose reservation-allocated uid names the reservation
//   free      = allocatable - requested - held          (what a non-owner pod may use)
// An owner pod may additionally use the remainder of one reservation it may allocate
// (CanAllocate): Aligned takes from the reservation first and the rest from `free`; Restricted
// takes the resources the reservation reserves only from it, the others from `free`.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/placement/filters.h"
#include "reconcile/placement/preemption.h"
#include "reconcile/placement/pre_allocation.h"
#include "reconcile/placement/resource_policy.h"
#include "reconcile/placement/scoring.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

struct SchedulerOptions {
  ScoringStrategy scoring = ScoringStrategy::kLeastAllocated;
};

// PodPlacement: where a pod goes. from_reservation + from_node == the pod's requests (per
// resource); from_reservation is empty without a reservation.
struct PodPlacement {
  std::string node_name;
  std::optional<ReservationRef> reservation;
  ResourceAmounts from_reservation;
  ResourceAmounts from_node;
};
using PodDecision = std::expected<PodPlacement, FitError>;

// ReservationPlacement: where a Reservation goes. phase is Available, or Waiting when
// preAllocation placed it on a node without enough free capacity.
struct ReservationPlacement {
  std::string node_name;
  ResourceAmounts allocatable;  // the template's effective requests (PodSpecView::requests)
  Phase phase = Phase::kAvailable;
  // The running pods it pre-allocates (phase Waiting); empty for an ordinary placement.
  std::vector<PreAllocatedPod> pre_allocated;
};
using ReservationDecision = std::expected<ReservationPlacement, FitError>;

// NodeUsage: one node's accounting, for tests, metrics and debugging.
struct NodeUsage {
  ResourceAmounts allocatable;
  ResourceAmounts requested;
  ResourceAmounts held;
  ResourceAmounts free;  // allocatable - requested - held (may be negative when overcommitted)
  int reservations = 0;  // reservations on the node that hold capacity
};

class ClusterSnapshot {
 public:
  explicit ClusterSnapshot(SchedulerOptions options = {});
  ~ClusterSnapshot();
  ClusterSnapshot(ClusterSnapshot&&) noexcept;
  ClusterSnapshot& operator=(ClusterSnapshot&&) noexcept;
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;

  // --- Informer events -------------------------------------------------------------------
  // UpsertNode adds or replaces a node (pods and reservations already on it stay counted).
  void UpsertNode(const NodeView& node);
  // RemoveNode drops the node; pods/reservations naming it are kept and count again if a node
  // of that name comes back.
  void RemoveNode(std::string_view name);
  // UpsertPod records a pod by uid. Pods with node_name set are counted on that node (bound).
  // A pod with no node_name is not counted, except that an assumed pod stays assumed (the watch
  // may deliver updates written before the binding). Once the pod is seen bound, its assumption
  // is confirmed. The controller must call RemovePod for terminal (Succeeded/Failed) pods.
  void UpsertPod(const PodSpecView& pod);
  // RemovePod forgets the pod entirely (deleted or terminal), assumed or not.
  void RemovePod(std::string_view uid);
  // UpsertReservation adds or replaces a Reservation by uid. It holds capacity on node_name when
  // its phase is Available or Waiting. If it was assumed and the view has no node_name yet, the
  // assumed node is kept until the view shows a placement or a terminal phase.
  void UpsertReservation(const ReservationView& reservation);
  // RemoveReservation forgets the reservation (its pods stay counted as ordinary pods).
  void RemoveReservation(std::string_view uid);
  // UpsertResourcePolicy adds or replaces a ResourcePolicy (by namespace/name) and recounts its
  // pods (bound and assumed) once; later pod and node events update the counts incrementally.
  void UpsertResourcePolicy(const ResourcePolicyView& policy);
  void RemoveResourcePolicy(std::string_view namespace_name, std::string_view name);
  // OutsideRequiredPolicyUnits: the one policy selecting `pod` is `required` and no unit of it
  // selects the node (its Filter's "not match any unit": UnschedulableAndUnresolvable, so
  // preemption skips the node). False without such a policy, or with several (the PreFilter
  // rejects the pod then) or for an unknown node.
  bool OutsideRequiredPolicyUnits(const PodSpecView& pod, std::string_view node_name) const;
  // ResourcePolicyCounts: pods per unit (spec order) of one matchLabelKeys group (GroupKey);
  // empty for an unknown policy.
  std::vector<int32_t> ResourcePolicyCounts(std::string_view namespace_name, std::string_view name,
                                            std::string_view group) const;

  // UpsertNamespace records a namespace's labels (InterPodAffinity's namespaceSelector; an
  // unknown namespace has none).
  void UpsertNamespace(std::string_view name, const LabelMap& labels);
  void RemoveNamespace(std::string_view name);

  // --- Time ------------------------------------------------------------------------------
  // AdvanceClock moves the snapshot's clock to `now` (never backwards). A reservation whose
  // expiry_deadline is <= the clock is expired: no pod may allocate it, it holds no capacity
  // and it cannot be assumed placed, whatever its phase. Returns the uids that expired with
  // this call (those that held capacity or could be allocated until now). The controller calls
  // it before every decision, so expiry is exact and needs no status write.
  std::vector<std::string> AdvanceClock(Time now);
  // NextExpiry: the earliest deadline of a reservation not yet expired, or nullopt.
  std::optional<Time> NextExpiry() const;
  // IsExpired: the reservation is known and past its deadline at the snapshot's clock.
  bool IsExpired(std::string_view uid) const;

  // --- Decisions (const: they do not change the cache) ------------------------------------
  // SchedulePod picks a node (and possibly a reservation) for a pod. Filters, in order:
  // NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit (with
  // reservations as described above). As in koordinator, on a node where the pod matches
  // reservations (CanAllocate) it must fit through one of them (no fallback to the node alone);
  // a reservation is nominated only if the pod takes something from it. Nodes with a nominated
  // reservation are preferred; among them the one whose reservation ends up most allocated;
  // then the node score (SchedulerOptions::scoring); ties go to the smallest node name. On the
  // node, the reservation that ends up most allocated is chosen (ties: smallest name).
  // Errors: FitError with every node's reasons; a node whose matched reservations all fail
  // gives "node(s) reservations insufficient resources".
  // Reservation steering (reservation_affinity.h): a lower non-zero reservation-order label wins
  // before the most-allocated preference (on a node and across nodes); a pod with a reservation
  // affinity must go through a reservation it selects (nodes without one give "node(s) no
  // reservations match reservation affinity", plus koordinator's PostFilter reasons), and one
  // whose annotation did not parse is unschedulable with the parse error; a reservation-ignored
  // pod uses no reservation but may take what reservations hold unallocated on the node.
  PodDecision SchedulePod(const PodSpecView& pod) const;
  // EvaluateOnNodes answers, for each of `nodes` in order, what SchedulePod would decide with the
  // pod pinned to that node alone (its own spec.nodeName is ignored): the kube-scheduler
  // extender's filter and prioritize. The pod is compiled and its reservations gathered once, so
  // each node costs one index lookup and the per-node filters, not a decision. A failing node's
  // FitError has that node's reasons alone (num_all_nodes 1), or the pod-level error.
  struct NodeEvaluation {
    bool known = false;  // the snapshot has the node
    bool fits = false;
    std::optional<ReservationRef> reservation;  // fits through this reservation (nominated)
    // fits: the node score (0..kMaxNodeScore) of SchedulerOptions::scoring with the pod added,
    // reservations' holds counted as used (what SchedulePod ranks nodes by).
    int64_t score = 0;
    // fits: the node's total in SchedulePod's ranking (Σ plugin score × kube-scheduler's default
    // weight, the normalised plugins normalised over this call's fitting nodes), of at most
    // max_combined_score.
    int64_t combined_score = 0;
    int64_t max_combined_score = 0;
    FitError error;  // known and not fits
  };
  std::vector<NodeEvaluation> EvaluateOnNodes(const PodSpecView& pod, const std::vector<std::string_view>& nodes) const;
  // PlaceReservation places a Reservation as a pod built from its template (`template_pod`:
  // requests = the template's effective requests, node_name = template.spec.nodeName). With
  // pre_allocation, NodeResourcesFit is skipped: nodes where it fits are still preferred, and
  // the outcome phase is Waiting when the chosen node lacks the free capacity.
  ReservationDecision PlaceReservation(const PodSpecView& template_pod, bool pre_allocation) const;
  // PlaceReservationAroundItsPods: PlaceReservation for a Pending reservation that pods already
  // allocate (bound into a placement whose status write never landed, e.g. by a leader killed
  // right after the bindings): it goes to their node (NodeOfAllocatedPods), where only the part
  // of its size those pods do not use must be free; allocatable stays the template's. Placing it
  // elsewhere would leave the pods off their reservation's node. Without such pods, or when the
  // template names another node, PlaceReservation.
  ReservationDecision PlaceReservationAroundItsPods(const PodSpecView& template_pod,
                                                    std::string_view reservation_uid,
                                                    bool pre_allocation) const;
  // NodeOfAllocatedPods: the node of the pods (bound or assumed) whose reservation-allocated uid
  // is `reservation_uid` (the one with most of them, then the smallest name); nullopt if none.
  std::optional<std::string> NodeOfAllocatedPods(std::string_view reservation_uid) const;

  // --- Pre-allocation of running pods (snapshot_pre_allocation.cc) -------------------------
  // PlacePreAllocation chooses a node and running pods for a preAllocation Reservation with the
  // rules of pre_allocation.h: pods another Waiting reservation pre-allocates are left out, and
  // the node must be known and pass the template's non-resource filters (NodeName, unschedulable,
  // taints, affinity). The placement has phase Waiting, allocatable = the template's requests
  // and the chosen pods. Returns nullopt when no node's candidates cover the requests.
  std::optional<ReservationPlacement> PlacePreAllocation(const PodSpecView& template_pod,
                                                         const ReservationView& reservation,
                                                         const std::vector<PreAllocatablePod>& pods,
                                                         const PreAllocationPolicy& policy,
                                                         const PreAllocationOptions& options) const;
  // DecideWaiting: for a placed reservation, which of its pre-allocated pods the cache still
  // counts (bound or assumed), and whether its node has room (ReservationFitsNow).
  WaitingDecision DecideWaiting(std::string_view reservation_uid) const;

  // --- Assumptions ---------------------------------------------------------------------
  // AssumePod counts the pod on placement.node_name (and against placement.reservation) right
  // away, as if bound. Errors: kInvalidArgument when the pod has no uid or the node is unknown.
  Status AssumePod(const PodSpecView& pod, const PodPlacement& placement);
  // ForgetPod drops an assumption (binding failed); a pod already seen bound is left alone.
  void ForgetPod(std::string_view uid);
  // AssumeReservation makes the reservation hold placement.allocatable on placement.node_name
  // until UpsertReservation shows the placement. Errors: kInvalidArgument for an empty uid, an
  // unknown node, or a reservation past its expiry deadline.
  Status AssumeReservation(const ReservationView& reservation,
                           const ReservationPlacement& placement);
  // ForgetReservation drops an assumed placement (the reservation is gone).
  void ForgetReservation(std::string_view uid);
  // AssumedPlacement: the placement an assumed reservation holds (node, phase, allocatable,
  // pre-allocated pods), so a failed status write can be retried with the same placement;
  // nullopt when the reservation is not assumed.
  std::optional<ReservationPlacement> AssumedPlacement(std::string_view uid) const;

  // --- Queries ---------------------------------------------------------------------------
  // ReservationFitsNow: for a placed (e.g. Waiting) reservation, true when its node is not
  // overcommitted in any resource the reservation holds (free >= 0 with its hold counted),
  // i.e. it may turn Available. False for unknown or unplaced reservations.
  bool ReservationFitsNow(std::string_view uid) const;
  // Usage: the accounting of one node; nullopt for an unknown node.
  std::optional<NodeUsage> Usage(std::string_view node_name) const;
  // Allocated: what the cache counts as allocated from a reservation (masked to allocatable).
  ResourceAmounts Allocated(std::string_view reservation_uid) const;
  int NodeCount() const;
  // PodSlots: status.allocatable.pods summed over the nodes (the cluster's pod capacity).
  int64_t PodSlots() const;
  // CopiesOnEmptyNodes: the sum of CopiesOnEmptyNode over the nodes, ignoring every pod and
  // reservation: more copies than this never fit on these nodes.
  int64_t CopiesOnEmptyNodes(const PodSpecView& pod) const;
  bool IsAssumed(std::string_view pod_uid) const;
  // IsCounted: the pod is counted on a node, bound or assumed.
  bool IsCounted(std::string_view pod_uid) const;

  // --- Preemption (snapshot_preemption.cc) -------------------------------------------------
  // The snapshot keeps what DefaultPreemption reads of a bound pod (name, priority, start time),
  // so the scheduler needs no copy of the pods of its own.
  // VictimsOn: the pods counted on `node` as bound (not assumed) whose priority is readable, as
  // preemption's possible victims, in no particular order.
  std::vector<VictimPod> VictimsOn(std::string_view node) const;
  // SetPodStartTime records a counted pod's status.startTime (nullopt: not started); readable
  // false (a start time that does not parse) makes it never a victim from then on.
  void SetPodStartTime(std::string_view pod_uid, std::optional<Time> start_time, bool readable);
  // DetachPod takes a counted pod out of every count and keeps it aside (false: not counted);
  // ReattachPod counts it again exactly as it was. A preemption dry run removes and restores
  // victims this way.
  bool DetachPod(std::string_view pod_uid);
  void ReattachPod(std::string_view pod_uid);

  // State: the snapshot's data, opaque outside reconcile/placement (snapshot_state.h; public only
  // so that the decision helpers in schedule_internal.h can take it).
  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace berth::reconcile::placement
