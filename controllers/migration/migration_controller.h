// controllers/migration/migration_controller.h
//
// The PodMigrationJob controller (`--controllers` name `migration`): informers on
// podmigrationjobs, pods, reservations and poddisruptionbudgets map events to job names; each
// reconcile builds a JobSnapshot from the caches, asks reconcile::migration::DecideMigration and
// carries out its actions: a spec patch (podRef.uid, reservationRef), the Reservation's create or
// delete, the eviction (POST pods/<name>/eviction, policy/v1; a plain DELETE only under the
// Delete policy label), the job's status write and Events, the job's deletion when GC is due.
// Event-driven: a job wakes on its pod, its reservation, the replacement pod and its own updates;
// timers only for its deadline, its next eviction try and its GC.
// Failed writes follow controllers/common/write_errors (404 ends, the rest requeues with backoff).
#pragma once

#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "controllers/common/phase_gauge.h"
#include "controllers/migration/drain_controller.h"
#include "controllers/migration/migration_arbiter.h"
#include "reconcile/migration/job.h"
#include "reconcile/placement/prefer_avoid_pods.h"

namespace berth::controllers {

// Job indexes: the job's reservation name, and the pod its status credits ("ns/name").
inline constexpr char kMigrationPodIndex[] = "spec.podRef";  // "ns/name"
inline constexpr char kMigrationReservationIndex[] = "reservation";
inline constexpr char kMigrationNewPodIndex[] = "status.podRef";
inline constexpr char kMigrationPdbNamespaceIndex[] = "metadata.namespace";  // PDBs
inline constexpr char kReservationAllocatedAnnotation[] = "scheduling.koordinator.sh/reservation-allocated";

struct MigrationControllerOptions {
  reconcile::migration::MigrationOptions migration;  // ttl default 5m, evictability flags, scheduler names
  ArbitrationOptions arbitration;                    // koordinator's limits and eviction rate
  // Default: 2 (--migration-workers). Its reconciles mostly wait on API calls: with 4, a drain
  // bench's first wave (100 reservations created while the drain creates all its jobs) took
  // 0.6-0.7 s instead of 0.8-1.1 s.
  int workers = 2;
  // PreferAvoidPods recorded on the node an evicted pod left (prefer_avoid_hook.h); ttl 0: off.
  reconcile::placement::PreferAvoidOptions prefer_avoid;
};

class MigrationController {
 public:
  static Result<std::unique_ptr<MigrationController>> Setup(shim::Manager& manager, shim::RestClientPtr rest,
                                                           MigrationControllerOptions options);
  ~MigrationController();

  shim::ReconcileResult Reconcile(const std::string& name);

 private:
  MigrationController(shim::RestClientPtr rest, MigrationControllerOptions options);
  void Enqueue(const std::string& name);
  // EnqueueToEvict: a job that may evict now (a slot or a disruption may have freed for it) goes
  // before the routine updates in the queue (a drain's every job wakes ~12 times on its own
  // writes, its pod's and its reservation's events, and a drain creates all its jobs at once):
  // with the workers busy, FIFO order put each next eviction behind a wave's worth of them.
  void EnqueueToEvict(const std::string& name);
  // EnqueueJob: a job's own, its pod's or its reservation's event; EnqueueToEvict for a job
  // admitted whose eviction was not accepted yet (its reservation turning Available, its own
  // Running write: each is a step towards that eviction), Enqueue for the rest.
  void EnqueueJob(const shim::CachedObject& job);
  void EnqueueByIndex(const char* index, const std::string& value);
  // TrackPending keeps pending_ (the jobs in phase Pending, lowest pod priority then oldest first)
  // from the job events; EnqueuePending wakes the n first the arbiter has not admitted
  // (mig::HeldJobsToWake).
  void TrackPending(const shim::ObjectPtr& job, bool present);
  void EnqueuePending(size_t n);
  // Reserving a wave ahead (migration_reserve_ahead.cc, reconcile/migration/reserve_ahead.h):
  // TrackReserveAhead keeps each workload's held jobs in turn order (after TrackPending, from the
  // job events); ReserveAheadCandidates are the held jobs of a workload that should create their
  // reservation now; WakeReserveAhead enqueues them (after an admission grew the wave).
  void TrackReserveAhead(const shim::ObjectPtr& job, bool present);
  std::vector<std::string> ReserveAheadCandidates(const std::string& workload_uid);
  void WakeReserveAhead(const std::string& workload_uid);
  // ReservedAheadGoingFirst: the held jobs reserved ahead that a job without a reservation, whose
  // turn came, lets go first (mig::ReservedAheadGoFirst).
  std::vector<std::string> ReservedAheadGoingFirst(const std::string& job_name, const std::string& workload_uid,
                                                   const std::string& node_name);
  // Budgets less the evictions the API server accepted since the cached version was written:
  // without it, every job would see the same allowed disruption until the PDB's update arrives.
  void AdjustForAcceptedEvictions(std::vector<reconcile::migration::PdbFacts>& pdbs,
                                  const std::vector<std::pair<std::string, std::string>>& keys_and_versions,
                                  const std::string& job_uid);
  // ClaimDisruption takes one of the budget's disruptions for an eviction about to be sent (false:
  // the cached budget, less the claims on the same version, allows none); ReleaseDisruption gives
  // it back when the eviction was not accepted. A newer PDB version drops the claims.
  bool ClaimDisruption(const std::pair<std::string, std::string>& pdb, int64_t cached_allowed,
                       const std::string& job_uid);
  void ReleaseDisruption(const std::pair<std::string, std::string>& pdb, const std::string& job_uid);
  // AddWakeUpHandlers: the pod, reservation and budget handlers (migration_wakeups.cc).
  void AddWakeUpHandlers();
  // AddWorkloadReplacements fills job.workload_replacements (reconcile/migration/replacement.h)
  // for an evicted job whose own reservation has no owner, and keeps it among the bind waiters;
  // WakeBindWaiters enqueues those when a replacement may have become theirs to credit.
  void AddWorkloadReplacements(reconcile::migration::JobSnapshot& job);
  void ForgetBindWaiter(const std::string& name);
  void WakeBindWaiters();
  // A pod placed through a reservation no unfinished job has as its own: a bind waiter may credit it.
  void WakeBindWaitersForPod(const shim::CachedObject& pod);
  void CountPhase(const shim::ObjectPtr& old_object, const shim::ObjectPtr& new_object);
  // RecordEvents sends the job's Events (on its recorder's own queue).
  void RecordEvents(const std::string& job_uid, const std::string& job_name,
                    const std::vector<reconcile::EventNote>& events);
  reconcile::migration::EvictionOutcome Evict(const reconcile::migration::JobSnapshot& job,
                                              reconcile::migration::EvictionPolicy policy);
  std::string Strategy(const shim::CachedObject& job) const;

  MigrationControllerOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> jobs_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> reservations_;
  std::shared_ptr<shim::SharedInformer> pdbs_;
  std::shared_ptr<shim::SharedInformer> replicasets_;
  std::shared_ptr<shim::SharedInformer> nodes_;  // PreferAvoidPods reads the node from it
  std::unique_ptr<MigrationArbiter> arbiter_;
  std::unique_ptr<DrainController> drain_;  // node drain by label, on the same caches
  shim::Controller* controller_ = nullptr;

  shim::CounterFamily* evicted_total_ = nullptr;
  PhaseGauge phases_;
  shim::HistogramFamily* retry_seconds_ = nullptr;
  std::mutex mu_;
  std::unordered_map<std::string, reconcile::migration::EvictionTries> tries_;  // job uid →
  // job name → the resourceVersion our last spec/status write replaced, until the cache moves on
  std::unordered_map<std::string, std::string> unseen_writes_;
  // reservation name → when we created it, until the reservations cache shows it
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> created_reservations_;
  // PDB "ns/name" → {resourceVersion of the cached PDB, the jobs holding one of its disruptions:
  // evictions about to be sent or accepted against that version}
  std::unordered_map<std::string, std::pair<std::string, std::set<std::string>>> disruption_claims_;
  std::set<std::string> bind_waiters_;  // job names (AddWorkloadReplacements)
  std::mt19937_64 random_{std::random_device{}()};
  std::mutex pending_mu_;  // taken before the arbiter's lock (EnqueuePending), never with mu_
  std::set<reconcile::migration::HeldJob> pending_;
  // Held jobs woken per change that may free a slot: bounded, so a change costs a few
  // arbitrations, not one per held job.
  static constexpr size_t kWakeOnChange = 4;
  std::unordered_map<std::string, reconcile::migration::HeldJob> pending_by_name_;
  // Reserving ahead, under pending_mu_: each held job's workload (its pod's controller uid), the
  // workloads' held jobs in turn order, and how many of those hold a reservation already.
  struct HeldOfWorkload {
    std::string workload;
    reconcile::migration::HeldJob order;
    bool has_reservation = false;
    std::string node_name;  // its pod's
    bool paused = false;
  };
  std::unordered_map<std::string, HeldOfWorkload> held_workload_;  // job name →
  std::unordered_map<std::string, std::set<reconcile::migration::HeldJob>> held_by_workload_;
  std::unordered_map<std::string, int64_t> reserved_while_held_;  // workload uid →
  std::unordered_map<std::string, std::string> held_uid_to_name_;  // job uid → name
};

}  // namespace berth::controllers
