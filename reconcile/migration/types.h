// reconcile/migration/types.h
//
// The PodMigrationJob as the migration logic sees it: plain structs the controller builds from
// its caches (no JSON, no I/O). Field names, phases, condition types and reasons are koordinator's
// (scheduling.koordinator.sh/v1alpha1, upstream-facts/koordinator-reservation.md §3).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/migration/arbitration.h"
#include "reconcile/reservation/types.h"

namespace berth::reconcile::migration {

enum class JobPhase { kPending, kRunning, kSucceeded, kFailed, kAborted };
std::string_view JobPhaseName(JobPhase phase);
// ParseJobPhase maps "" to Pending (a new job); nullopt for unknown values.
std::optional<JobPhase> ParseJobPhase(std::string_view text);
inline bool IsTerminal(JobPhase p) {
  return p == JobPhase::kSucceeded || p == JobPhase::kFailed || p == JobPhase::kAborted;
}

enum class JobMode { kReservationFirst, kEvictDirectly };
inline constexpr std::string_view kModeReservationFirst = "ReservationFirst";
inline constexpr std::string_view kModeEvictDirectly = "EvictDirectly";

// How the pod is removed: the Eviction API (PDBs enforced by the API server), or, only when a job
// or pod asks for it with label koordinator.sh/evict-policy: Delete, a plain delete.
enum class EvictionPolicy { kEviction, kDelete };
inline constexpr std::string_view kEvictPolicyLabel = "koordinator.sh/evict-policy";

// Condition types.
inline constexpr std::string_view kCondReservationCreated = "ReservationCreated";
inline constexpr std::string_view kCondReservationScheduled = "ReservationScheduled";
inline constexpr std::string_view kCondEviction = "Eviction";
inline constexpr std::string_view kCondPodBoundReservation = "PodBoundReservation";
inline constexpr std::string_view kCondBoundPodReady = "BoundPodReady";
inline constexpr std::string_view kCondReservationBound = "ReservationBound";
inline constexpr std::string_view kCondPodScheduled = "PodScheduled";

// Reasons.
inline constexpr std::string_view kReasonTimeout = "Timeout";
inline constexpr std::string_view kReasonFailedCreateReservation = "FailedCreateReservation";
inline constexpr std::string_view kReasonReservationExpired = "ReservationExpired";
inline constexpr std::string_view kReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kReasonForbiddenMigratePod = "ForbiddenMigratePod";
inline constexpr std::string_view kReasonMissingPod = "MissingPod";
inline constexpr std::string_view kReasonMissingReservation = "MissingReservation";
inline constexpr std::string_view kReasonEvicting = "Evicting";
inline constexpr std::string_view kReasonFailedEvict = "FailedEvict";
inline constexpr std::string_view kReasonEvictComplete = "EvictComplete";
inline constexpr std::string_view kReasonWaitForPodBindReservation = "WaitForPodBindReservation";
inline constexpr std::string_view kReasonWaitForBoundPodReady = "WaitForBoundPodReady";
inline constexpr std::string_view kReasonInvalidPodRef = "InvalidPodRef";
// berth's: a spec berth cannot read (a ttl that does not parse, an unknown mode or policy).
inline constexpr std::string_view kReasonInvalidSpec = "InvalidSpec";
// Status values copied into status.status.
inline constexpr std::string_view kStatusComplete = "Complete";

// PodFacts: what the migration and the evictability rules read of a pod.
struct PodFacts {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string node_name;
  std::string scheduler_name;
  std::string phase;  // status.phase
  bool deleting = false;
  bool ready = false;  // condition Ready=True
  // Pending with PodScheduled=False: the scheduler tried and found no node. koordinator migrates
  // such a pod by reserving for the pod itself (an object owner), with no eviction.
  bool unschedulable = false;
  std::string unschedulable_message;  // that condition's message
  std::optional<int64_t> priority;
  bool mirror = false;         // annotation kubernetes.io/config.mirror
  bool static_pod = false;     // annotation kubernetes.io/config.source other than "api"
  bool has_controller = false; // an ownerReference with controller: true
  std::string controller_kind;
  std::string controller_name;
  std::string controller_uid;
  bool local_storage = false;  // an emptyDir or hostPath volume
  bool evict_annotation = false;  // descheduler.alpha.kubernetes.io/evict
  std::optional<EvictionPolicy> evict_policy;  // its koordinator.sh/evict-policy label
  std::string evict_policy_error;              // that label with a value berth does not know
};

// ReservationFacts: the job's Reservation as the lifecycle and scheduler left it.
struct ReservationFacts {
  std::string name;
  std::string uid;
  Phase phase = Phase::kPending;
  std::string node_name;
  bool created_by_job = false;  // its controller ownerReference is this job
  bool scheduled_false = false; // condition Scheduled=False
  std::string unschedulable_message;
  bool expired = false;         // Failed (expired, or its node deleted)
  std::string failed_reason;
  std::vector<OwnerRef> current_owners;
  // The uids of spec.owners entries that name only an object (a pod). One that is the job's own
  // pod makes this koordinator's pending-pod migration (MigratesPendingPod): the job waits for the
  // pod to be scheduled instead of evicting anything.
  std::vector<std::string> object_owner_uids;
  std::vector<std::string> owner_controller_uids;  // spec.owners[].controller.uid: the workload
  // Label reservation-order "1": the controller set it right before sending the pod's eviction
  // (and removes it after a refusal), so it records an eviction whose "Evicting" status write
  // failed or was lost with the process.
  bool marked_for_eviction = false;
};

// The reservation-order value of a reservation whose pod is being evicted (its replacement
// prefers it: the scheduler takes the lowest non-zero order first).
inline constexpr std::string_view kEvictingReservationOrder = "1";

// WorkloadReplacement: a pod of the job's workload (the controller its reservation is owned by)
// that a reservation other than the job's placed (annotation reservation-allocated), as the
// controller found it in its caches; see replacement.h.
struct WorkloadReplacement {
  PodFacts pod;
  Time creation_time;
  std::string reservation_name;
  // A job that has not ended (not this one) has that reservation as its own: it credits the pod.
  bool reservation_awaited_by_other_job = false;
  // Another job's status.podRef names the pod.
  bool credited_to_other_job = false;
};

// PdbFacts: a PodDisruptionBudget in the pod's namespace whose selector matches the pod.
struct PdbFacts {
  std::string name;
  int64_t disruptions_allowed = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
};

struct JobStatus {
  JobPhase phase = JobPhase::kPending;
  std::string status;
  std::string reason;
  std::string message;
  std::vector<Condition> conditions;
  std::string node_name;
  std::optional<OwnerRef> new_pod;  // status.podRef
  bool operator==(const JobStatus&) const = default;
};

// EvictionTries: the controller's memory of eviction attempts of one job (lost on restart, which
// only restarts the backoff).
struct EvictionTries {
  int attempts = 0;
  std::optional<Time> next_attempt;
  // The API server accepted an eviction of the pod: it counts as started even when the status
  // that says so has not been written (or read back) yet, and the pod is never evicted again.
  bool accepted = false;
  // The last refusal was a budget's (429 DisruptionBudget): the budget's update may end the
  // backoff early. A 5xx or throttling refusal had the budget's leave, so its backoff holds.
  bool refused_by_budget = false;
};

struct JobSnapshot {
  std::string name;
  std::string uid;
  Time creation_time;
  bool paused = false;
  std::optional<Duration> ttl;  // nullopt: absent (the default applies)
  std::string ttl_text;
  std::string mode_text;        // as written; "" means the default
  std::optional<EvictionPolicy> job_evict_policy;
  std::string pod_namespace, pod_name, pod_uid;  // spec.podRef
  std::string reservation_ref_name;              // spec.reservationOptions.reservationRef.name
  std::string template_reservation_name;         // spec.reservationOptions.template.metadata.name
  std::string evict_reason;                      // annotation koordinator.sh/evict-reason ("" when absent)
  // spec.deleteOptions.gracePeriodSeconds, passed on with the eviction (or delete); nullopt: the
  // pod's own terminationGracePeriodSeconds.
  std::optional<int64_t> grace_period_seconds;
  std::vector<std::string> spec_errors;          // found while reading the spec
  JobStatus status;
  // world
  std::optional<PodFacts> pod;                   // the pod spec.podRef names (by namespace/name)
  std::optional<ReservationFacts> reservation;   // the job's reservation
  std::optional<PodFacts> bound_pod;             // the reservation's first current owner
  // Filled only while an evicted job's own reservation has no owner (replacement.h).
  std::vector<WorkloadReplacement> workload_replacements;
  std::vector<PdbFacts> pdbs;                    // PDBs selecting the pod
  EvictionTries eviction;
  // The arbitration limit holding a Pending job back (the controller arbitrates against the other
  // jobs; reconcile/migration/arbitration); nullopt when it may start.
  std::optional<LimitHit> held_by_limit;
  // Held, and among the first in line of its workload while a wave is under way: it may create its
  // Reservation now, before admission (reserve_ahead.h); it still evicts only once admitted.
  bool reserve_ahead = false;
};

// EventNote is reconcile's: {type, reason, message}.
using reconcile::EventNote;

}  // namespace berth::reconcile::migration
