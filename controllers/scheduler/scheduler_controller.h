// controllers/scheduler/scheduler_controller.h
//
// berth-manager as a secondary scheduler (issue 5). Two controllers share one SchedulerCache fed
// by the manager's shared informers (nodes, all pods, reservations):
//   - "reservation-scheduler" places Pending Reservations whose template.spec.schedulerName is
//     one of the scheduler names: UpdateStatus with phase Available (or Waiting for
//     preAllocation without free capacity), nodeName, allocatable and the conditions
//     [Scheduled/True/Scheduled, Ready/True/Available]; Normal Event `Scheduled`. When no node
//     fits: Scheduled=False/Unschedulable with the fit error and a Warning `FailedScheduling`.
//     Waiting reservations turn Available once their node has room. A preAllocation
//     reservation pre-allocates running pods (Default mode: its owners; Cluster mode: pods
//     labelled pre-allocatable): it is placed on their node as Waiting, records them in the
//     annotation berth.dev/pre-allocated-pods, and turns Available once they are gone.
//   - "pod-scheduler" binds unscheduled pods of those scheduler names through pods/binding,
//     putting the reservation-allocated annotation on the Binding when a reservation is used.
//     The pod's reservation-affinity annotation and reservation-ignored label, and the
//     reservations' reservation-order label, steer which reservation (reservation_affinity.h).
//     Unschedulable pods get PodScheduled=False/Unschedulable and a `FailedScheduling` Event.
//     A failed binding drops the assumption and requeues the pod with backoff (it is decided
//     again from the cache); only "the pod is already assigned to a node" ends the attempt.
// A reservation past its expiry deadline (ttl/expires) is never allocated nor placed and holds
// no capacity, whatever its phase says (scheduler_cache.h); it is requeued at its deadline.
// Failed writes follow controllers/common/write_errors.h.
// The reservation half lives in reservation_placer.cc, the rest in scheduler_controller.cc.
// Every decision is assumed in the cache before the write (see scheduler_cache.h). Unschedulable
// keys are parked and re-queued only when the cluster changes (node added or changed, a counted
// pod deleted or finished, a reservation changed or deleted), never on a poll.
#pragma once

#include <map>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "controllers/scheduler/scheduler_cache.h"

namespace berth::controllers {

// SchedulerControllerOptions: each field says its default.
struct SchedulerControllerOptions {
  // --scheduler-names: the schedulerName values berth schedules. Default: {"koord-scheduler"}.
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
  // --scoring-strategy. Default: LeastAllocated.
  reconcile::placement::ScoringStrategy scoring = reconcile::placement::ScoringStrategy::kLeastAllocated;
  int pod_workers = 4;          // Default: 4.
  int reservation_workers = 2;  // Default: 2.
  // Emit the Normal `Scheduled` Event for every bound pod (kube-scheduler does). Default: true.
  bool pod_scheduled_events = true;
  // Pre-allocation of running pods (--pre-allocation-* flags). Defaults: see PreAllocationOptions.
  reconcile::placement::PreAllocationOptions pre_allocation;
  // --prefer-avoid-pods-ttl: how long a node's PreferAvoidPods entry keeps the evicted pod's
  // controller away (0: ignored). Default: 1h.
  reconcile::Duration prefer_avoid_ttl = std::chrono::hours(1);
  // Pods another scheduler bound without the reservation-allocated annotation (kube-scheduler
  // using berth's extender without bindVerb) are annotated into the reservation that fits them on
  // their node (adopt_bound_pod.cc). On with --extender-bind-address. Default: false.
  bool adopt_bound_pods = false;
};

// ParseSchedulerNames splits a comma-separated list, dropping empty items and spaces.
std::vector<std::string> ParseSchedulerNames(std::string_view text);

class SchedulerController {
 public:
  // Setup registers the informer handlers and both controllers with `manager`.
  // Errors: controller registration failures.
  static Result<std::unique_ptr<SchedulerController>> Setup(shim::Manager& manager,
                                                            shim::RestClientPtr rest,
                                                            SchedulerControllerOptions options);
  ~SchedulerController();

  // ReconcilePod schedules one unbound pod of ours (scheduler_controller.cc). A ResourcePolicy
  // selecting it steers the choice (reconcile/placement/resource_policy.h); a third controller,
  // "resourcepolicy-status", writes the policies' status (resource_policy_status.cc).
  shim::ReconcileResult ReconcilePod(const std::string& key);
  // ReconcileReservation places a Pending reservation of ours or promotes a Waiting one
  // (reservation_placer.cc).
  shim::ReconcileResult ReconcileReservation(const std::string& name);
  SchedulerCache& cache() { return cache_; }
  // BindPodToNode is the kube-scheduler extender's bind (controllers/extender, implemented in
  // extender_bind.cc): the pod (from the informer, `uid` checked when given) is decided on `node`
  // alone and assumed under the cache lock, so two concurrent binds can never take the same
  // reservation capacity, then bound exactly as ReconcilePod binds (the reservation-allocated
  // annotation on the Binding when it uses a reservation). Returns "" once bound, otherwise why
  // not (the fit error, the pod unknown or already bound, the failed API write); nothing stays
  // assumed after a failure.
  std::string BindPodToNode(const std::string& namespace_name, const std::string& name, const std::string& uid,
                            const std::string& node);
  // ApplyDefaultSpread sets view.default_spread_selector for a pod without
  // topologySpreadConstraints from the cached Services of its namespace and its ReplicaSet or
  // StatefulSet (default_spread.h), so PodTopologySpread's system defaults score it as
  // kube-scheduler would. The extender's answers use it too.
  void ApplyDefaultSpread(reconcile::placement::PodSpecView& view) const;

 private:
  SchedulerController(shim::RestClientPtr rest, SchedulerControllerOptions options);
  // AdoptBoundPod writes the reservation-allocated annotation on a pod another scheduler bound,
  // when a reservation on its node matches it and has room (adopt_bound_pod.cc).
  shim::ReconcileResult AdoptBoundPod(const shim::ObjectPtr& cached);
  bool IsOurs(std::string_view scheduler_name) const;
  // RetryParked re-queues every parked key: the cluster changed.
  void RetryParked();
  // WakeOnExpiry retries the parked keys when a reservation holding capacity has expired.
  void WakeOnExpiry();
  // Park keeps a key until the next cluster change, unless one happened since `seen`. A pod
  // whose failure names pod affinity or spreading (`waits_on_pods`) also retries when a pod
  // lands (RetryParkedOnPods), and is not parked when one landed since `seen_arrivals`.
  void ParkPod(const std::string& key, uint64_t seen, uint64_t seen_arrivals = 0, bool waits_on_pods = false);
  // RetryParkedOnPods re-queues the parked pods that wait on other pods (a pod just landed).
  void RetryParkedOnPods();
  void ParkReservation(const std::string& key, uint64_t seen);
  // ---- Informer handlers (scheduler_controller.cc) ----
  void OnPod(const shim::ObjectPtr& old_object, const shim::ObjectPtr& object);
  // ---- Added pods (initial_pods.cc) ----
  // An added pod's handling in two steps: PrepareAddedPod reads the pod (no controller state, so
  // the first list's pods are prepared on several threads), ApplyAddedPod updates the cache and
  // queues in event order. OnPod(nullptr, pod) is the two in a row.
  struct PreparedPod {
    enum class Kind { kIgnore, kQueue, kTerminal, kBound } kind = Kind::kIgnore;
    reconcile::placement::PodSpecView view;  // kTerminal (its uid), kBound
    bool adopt = false;                      // kBound: bound by another scheduler, to adopt
  };
  PreparedPod PrepareAddedPod(const shim::CachedObject& pod) const;
  void ApplyAddedPod(const shim::CachedObject& pod, PreparedPod& prepared);
  // OnInitialPods: the pods informer's first list, prepared in chunks on ConcurrentThreads().
  void OnInitialPods(const std::vector<shim::ObjectPtr>& pods);
  void OnPodDeleted(const shim::ObjectPtr& object);
  void OnResourcePolicy(const shim::ObjectPtr& object);
  void OnNodeChanged();
  // ---- ResourcePolicy status (resource_policy_status.cc) ----
  // EnqueuePolicyStatus queues the namespace's policies ("" = every namespace), after a short
  // delay when `batch` so a burst of pod events costs one status computation.
  void EnqueuePolicyStatus(std::string_view namespace_name, bool batch);
  shim::ReconcileResult ReconcilePolicyStatus(const std::string& key);
  void OnReservation(const rapidjson::Document& reservation, const std::string& name, bool changed);
  // ---- Pods (scheduler_controller.cc) ----
  // Bind writes the Binding; its Events name scheduler_name as their source. `not_bound`, when
  // given, is set to why the pod did not end up on placement.node_name (gone, or assigned
  // elsewhere) when the result is Done anyway.
  shim::ReconcileResult Bind(std::string_view scheduler_name, const reconcile::placement::PodSpecView& view,
                             const reconcile::placement::PodPlacement& placement, std::string* not_bound = nullptr);
  // MarkPodUnschedulable writes PodScheduled=False/Unschedulable with `message` (and, when
  // `nomination` is set, status.nominatedNodeName: a node name, or "" to clear it) in one status
  // patch, emits FailedScheduling and parks the pod (`waits_on_pods`: also woken when a pod lands).
  shim::ReconcileResult MarkPodUnschedulable(const rapidjson::Value& pod, const std::string& key,
                                             const std::string& message, const std::optional<std::string>& nomination,
                                             uint64_t seen, uint64_t seen_arrivals, bool waits_on_pods);
  // ---- Preemption (preemptor.cc) ----
  // HandleUnschedulable runs DefaultPreemption for a pod that fits nowhere. On a chosen node each
  // victim not already terminating gets DisruptionTarget=True/PreemptionByScheduler and is deleted
  // (uid precondition), with a Normal `Preempted` Event; then the pod is nominated to the node and
  // retried when the capacity frees. A failed patch or delete requeues the pod with backoff
  // (decided again from the cache). Without a node, the PostFilter message joins the fit error.
  shim::ReconcileResult HandleUnschedulable(const rapidjson::Value& pod, const std::string& key,
                                            const reconcile::placement::PodSpecView& view,
                                            const reconcile::placement::FitError& error, uint64_t seen,
                                            uint64_t seen_arrivals);
  // CurrentPdbs: the PodDisruptionBudgets from the informer.
  std::vector<reconcile::placement::PdbView> CurrentPdbs() const;
  // ---- Reservations (reservation_placer.cc) ----
  shim::ReconcileResult PlaceReservation(rapidjson::Document& doc, const std::string& name, uint64_t seen);
  shim::ReconcileResult PromoteWaiting(rapidjson::Document& doc, const std::string& name, uint64_t seen);
  // PreAllocatablePods: the bound pods from the informer that may be candidates for `policy`
  // (a cheap label pre-filter in Cluster mode; the rules are applied by the cache).
  std::vector<reconcile::placement::PreAllocatablePod> PreAllocatablePods(
      const reconcile::placement::PreAllocationPolicy& policy) const;
  // WaitingMessage: the Ready=False/Waiting message naming the pre-allocated pods still running
  // and what they request.
  std::string WaitingMessage(const std::vector<reconcile::placement::PreAllocatedPod>& running) const;

  SchedulerControllerOptions options_;
  shim::RestClientPtr rest_;
  shim::ObjectClient client_;
  SchedulerCache cache_;
  // One recorder per served scheduler name, as kube-scheduler has one per profile: an Event's
  // source component is the schedulerName of the pod or reservation it is about.
  std::map<std::string, std::unique_ptr<shim::EventRecorder>, std::less<>> recorders_;
  shim::EventRecorder& RecorderFor(std::string_view scheduler_name);
  std::shared_ptr<shim::SharedInformer> reservations_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  std::shared_ptr<shim::SharedInformer> namespaces_;  // labels for pod affinity's namespaceSelector
  std::shared_ptr<shim::SharedInformer> resource_policies_;
  std::shared_ptr<shim::SharedInformer> pdbs_;  // preemption counts PodDisruptionBudgets
  // PodTopologySpread's system defaults: the workloads selecting a pod (read at decision time).
  std::shared_ptr<shim::SharedInformer> services_;
  std::shared_ptr<shim::SharedInformer> replicasets_;
  std::shared_ptr<shim::SharedInformer> statefulsets_;
  shim::Controller* pod_controller_ = nullptr;
  shim::Controller* reservation_controller_ = nullptr;
  shim::Controller* status_controller_ = nullptr;

  std::mutex parked_mu_;
  std::atomic<uint64_t> cluster_generation_{0};
  std::set<std::string> parked_pods_;
  std::atomic<uint64_t> pod_arrivals_{0};  // bumped when a pod lands on a node
  std::set<std::string> parked_on_pods_;   // parked pods that wait on pod affinity/spreading
  std::set<std::string> parked_reservations_;

  shim::CounterFamily* attempts_ = nullptr;
  shim::CounterFamily* transitions_ = nullptr;  // berth_reservation_transitions_total
};

}  // namespace berth::controllers
