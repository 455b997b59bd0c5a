// controllers/scheduler/scheduler_cache.h
//
// SchedulerCache: reconcile::placement::ClusterSnapshot behind one mutex, fed by the informer
// handlers and queried by the scheduling workers. A decision and its assumption happen under
// the same lock (ScheduleAndAssumePod / PlaceAndAssumeReservation), so two workers never book
// the same capacity: the second decision already sees the first one's assumed pod or
// reservation. The assumption lasts until the informer shows the write (confirm) or the worker
// reports the write failed (Forget*).
// Expiry: before every decision and every reservation update the snapshot's clock is moved to
// `now` (ClusterSnapshot::AdvanceClock), so a reservation is unusable from its deadline on even
// while its status still says Available (the lifecycle controller is slow, off, or just took
// over). The reservations that expired that way are kept for TakeExpired, so the controller can
// wake the pods parked on the capacity they held.
#pragma once

#include <functional>
#include <map>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/preemption.h"
#include "reconcile/placement/snapshot.h"

namespace berth::controllers {

class SchedulerCache {
 public:
  using NowFunction = std::function<reconcile::Time()>;
  // `now` is the wall clock of expiry deadlines. Default: std::chrono::system_clock::now.
  explicit SchedulerCache(reconcile::placement::SchedulerOptions options = {}, NowFunction now = {});

  // --- Informer feed (any thread) ---------------------------------------------------------
  // UpsertNode adds or replaces a node. Returns true when the node is new or its scheduling
  // view (labels, taints, unschedulable, allocatable) changed.
  bool UpsertNode(const reconcile::placement::NodeView& node);
  void RemoveNode(std::string_view name);
  // UpsertPod records a bound pod (a pod with node_name); a pod without node_name is only
  // passed on when it is assumed (it stays assumed).
  void UpsertPod(const reconcile::placement::PodSpecView& pod);
  // RemovePod forgets a deleted or terminal pod. Returns true when the cache counted it
  // (bound or assumed), i.e. capacity was freed.
  bool RemovePod(std::string_view uid);
  // UpsertReservation records a Reservation; a placement seen here (node name or a terminal
  // phase) ends its assumption.
  void UpsertReservation(const reconcile::placement::ReservationView& reservation);
  void RemoveReservation(std::string_view uid);
  // UpsertNamespace records a namespace's labels (pod affinity's namespaceSelector). Returns true
  // when they changed.
  bool UpsertNamespace(std::string_view name, const reconcile::placement::LabelMap& labels);
  void RemoveNamespace(std::string_view name);
  void UpsertResourcePolicy(const reconcile::placement::ResourcePolicyView& policy);
  void RemoveResourcePolicy(std::string_view namespace_name, std::string_view name);
  // HasResourcePolicies: any policy is known (pod label / deletion changes then matter).
  bool HasResourcePolicies() const { return policies_.load() > 0; }

  // --- Decisions (workers) ----------------------------------------------------------------
  // ScheduleAndAssumePod decides and, on success, assumes the pod on the chosen node (and
  // reservation) before the lock is released. Errors: the FitError of the decision.
  reconcile::placement::PodDecision ScheduleAndAssumePod(const reconcile::placement::PodSpecView& pod);
  // EvaluateOnNodes: the kube-scheduler extender's view (controllers/extender): the pod decided
  // on each of `nodes` alone (ClusterSnapshot::EvaluateOnNodes: the pod prepared once, then the
  // per-node filters and score), under one lock and clock, assuming nothing.
  std::vector<reconcile::placement::ClusterSnapshot::NodeEvaluation> EvaluateOnNodes(
      const reconcile::placement::PodSpecView& pod, const std::vector<std::string_view>& nodes);
  // FitsWithoutPods: the kube-scheduler extender's preempt verb: whether `pod`, pinned to `node`,
  // fits once `victim_uids` (those counted as bound on that node; others change nothing) are gone,
  // with berth's rules (capacity reservations hold for others stays held). Nothing changes.
  bool FitsWithoutPods(const reconcile::placement::PodSpecView& pod, const std::string& node,
                       const std::vector<std::string>& victim_uids);
  // AdoptBoundPod: for a pod another scheduler bound without a reservation (kube-scheduler using
  // the extender without bindVerb), the reservation on its node it would allocate, decided as if
  // berth had bound it there; the cache then counts the pod in that reservation (the caller writes
  // the annotation, or calls UpsertPod with `pod` again when that fails). nullopt: no reservation
  // fits, and the pod stays counted on its node as before.
  std::optional<reconcile::placement::ReservationRef> AdoptBoundPod(const reconcile::placement::PodSpecView& pod);
  // ForgetPod drops the assumption (the binding failed).
  void ForgetPod(std::string_view uid);
  // PlaceAndAssumeReservation decides where a Reservation goes and assumes it there. Pods that
  // already allocate it (bound into a placement another leader never wrote) pin it to their
  // node (ClusterSnapshot::PlaceReservationAroundItsPods).
  reconcile::placement::ReservationDecision PlaceAndAssumeReservation(
      const reconcile::placement::PodSpecView& template_pod,
      const reconcile::placement::ReservationView& reservation, bool pre_allocation);
  // PlacePreAllocationAndAssume places a preAllocation Reservation: with
  // options.prefer_no_pre_allocated_pods, first where it fits without pre-allocating; then on
  // the node of running pods it pre-allocates (ClusterSnapshot::PlacePreAllocation); when no
  // candidate covers it, like PlaceAndAssumeReservation with pre_allocation (Waiting for room).
  // The decision is assumed before the lock is released.
  reconcile::placement::ReservationDecision PlacePreAllocationAndAssume(
      const reconcile::placement::PodSpecView& template_pod,
      const reconcile::placement::ReservationView& reservation,
      const std::vector<reconcile::placement::PreAllocatablePod>& pods,
      const reconcile::placement::PreAllocationPolicy& policy,
      const reconcile::placement::PreAllocationOptions& options);
  // ForgetReservation drops the assumption (the reservation is gone).
  void ForgetReservation(std::string_view uid);
  // A failed placement write does not forget the assumption: owner pods may already be bound
  // into it on its node, so placing it again elsewhere would leave them off their reservation.
  // MarkPlacementUnwritten records the failure; UnwrittenPlacement then returns the assumed
  // placement to write again (nullopt when not assumed or its write did not fail). Both end
  // with the assumption (the informer shows the placement, or the reservation is removed).
  void MarkPlacementUnwritten(std::string_view uid);
  std::optional<reconcile::placement::ReservationPlacement> UnwrittenPlacement(std::string_view uid) const;

  // --- Expiry ---------------------------------------------------------------------------
  // TakeExpired moves the snapshot's clock to now() (as every decision does) and returns (and
  // clears) the uids of the reservations that expired since the last call while they held
  // capacity.
  std::vector<std::string> TakeExpired();
  // IsReservationExpired: known to the cache and past its deadline now.
  bool IsReservationExpired(std::string_view uid);
  std::optional<reconcile::Time> NextExpiry() const;

  // --- Queries ----------------------------------------------------------------------------
  bool IsPodAssumed(std::string_view uid) const;
  bool IsReservationAssumed(std::string_view uid) const;
  bool ReservationFitsNow(std::string_view uid);
  // DecideWaiting: the pre-allocated pods a Waiting reservation still waits for, or whether it
  // may turn Available (ClusterSnapshot::DecideWaiting).
  reconcile::placement::WaitingDecision DecideWaiting(std::string_view uid);
  std::optional<reconcile::placement::NodeUsage> Usage(std::string_view node) const;
  reconcile::ResourceAmounts Allocated(std::string_view reservation_uid) const;
  int NodeCount() const;

  // --- Preemption (scheduler_cache_preemption.cc) -----------------------------------------
  // Preempt runs DefaultPreemption (reconcile/placement/preemption.h) for a pod whose decision
  // failed with `error`, under the lock: the dry run removes pods from the snapshot itself and adds
  // them back (so every filter and the Reservation rules apply), leaving it as it was. Victims are
  // bound pods the informer has shown, never assumed ones. Nothing is assumed.
  // SetNomination records a pending pod's status.nominatedNodeName (node "" forgets it). Like
  // kube-scheduler's nominator, every decision and dry run counts the pods nominated to a node with
  // a priority at least the deciding pod's as if they ran there, so the room a preemption made is
  // not taken by a less important pod. A nomination ends when the pod is bound or removed.
  void SetNomination(const reconcile::placement::PodSpecView& pod, std::string_view node);
  bool IsNominated(std::string_view uid) const;
  // SetPodStartTime records a bound pod's status.startTime (nullopt: not started) for preemption's
  // order; one that does not parse marks the pod's priority unreadable (never a victim).
  void SetPodStartTime(std::string_view uid, std::optional<std::string_view> start_time);
  reconcile::placement::PreemptionOutcome Preempt(const reconcile::placement::PodSpecView& pod,
                                                  const reconcile::placement::FitError& error,
                                                  const std::vector<reconcile::placement::PdbView>& pdbs);

 private:
  class SnapshotFitOracle;  // scheduler_cache_preemption.cc
  // IsBoundLocked: the informer has shown the pod bound (counted and not assumed). The snapshot
  // is the only copy of the bound pods (compact entries; preemption's victims come from
  // ClusterSnapshot::VictimsOn). Callers hold mu_.
  bool IsBoundLocked(std::string_view uid) const;
  // AddNominatedLocked adds to the snapshot, as bound, the nominated pods that `pod` must respect
  // (priority >= its own, not itself, not counted already) and returns their uids;
  // RemoveNominatedLocked takes them out again. Callers hold mu_.
  std::vector<std::string> AddNominatedLocked(const reconcile::placement::PodSpecView& pod);
  void RemoveNominatedLocked(const std::vector<std::string>& uids);
  std::unordered_map<std::string, reconcile::placement::PodSpecView> nominated_;  // uid → pod on its node

  // AssumeLocked assumes a successful `decision` for `reservation`; a refused assume becomes a
  // FitError naming the reason. Callers hold mu_.
  reconcile::placement::ReservationDecision AssumeLocked(const reconcile::placement::ReservationView& reservation,
                                                         reconcile::placement::ReservationDecision decision);

  // AdvanceLocked moves the snapshot's clock to now_(), keeping what expired. Callers hold mu_.
  void AdvanceLocked();

  mutable std::mutex mu_;
  NowFunction now_;
  std::atomic<int> policies_{0};
  std::unordered_set<std::string> policy_keys_;  // "namespace/name", under mu_
  reconcile::placement::ScoringStrategy scoring_;
  reconcile::placement::ClusterSnapshot snapshot_;
  std::vector<std::string> expired_;  // for TakeExpired
  // Nodes as last seen, to tell real changes from status heartbeats.
  std::unordered_map<std::string, reconcile::placement::NodeView> nodes_;
  std::unordered_map<std::string, reconcile::placement::LabelMap> namespaces_;
  // Reservations assumed but not yet seen placed.
  std::unordered_set<std::string> assumed_reservations_;
  std::unordered_set<std::string> unwritten_reservations_;  // assumed, placement write failed
};

}  // namespace berth::controllers
