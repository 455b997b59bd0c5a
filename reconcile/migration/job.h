// reconcile/migration/job.h
//
// The PodMigrationJob state machine as pure functions: snapshot + now in; status, Events, API
// actions and the next deadline out. The controller runs the actions in order and stops at the
// first failure; an eviction's answer comes back through DecideAfterEviction.
//
// ReservationFirst (the default): Pending → Running (the pod must exist and be evictable) →
// create a Reservation for it (name = job uid, allocateOnce, owned by the job) → wait until it is
// scheduled on another node and Available → evict the pod → wait until a replacement consumes the
// reservation → wait until that pod is Ready → Succeeded. EvictDirectly: evict → Succeeded.
// Failures (phase Failed, a condition with the reason, a Warning Event): Timeout (ttl, default
// 5m, counted from creation; the job's reservation is deleted), MissingPod, InvalidPodRef,
// InvalidSpec, ForbiddenMigratePod (not evictable, or the reservation landed on the pod's node),
// MissingReservation, ReservationExpired, FailedCreateReservation, FailedEvict.
// Terminal jobs are deleted at creation + ttl + 5m (30m when ttl is 0), as koordinator's scavenger.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reconcile/migration/evictability.h"
#include "reconcile/migration/types.h"

namespace berth::reconcile::migration {

struct MigrationOptions {
  Duration default_ttl = std::chrono::minutes(5);        // koordinator's DefaultJobTTL
  Duration gc_after_ttl = std::chrono::minutes(5);       // the scavenger's ttl + 5m
  Duration gc_without_ttl = std::chrono::minutes(30);    // the scavenger's 30m for ttl 0
  JobMode default_mode = JobMode::kReservationFirst;
  EvictabilityOptions evictability;
  // ReservationFirst needs the replacement scheduled by berth (the reservation's scheduler).
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
  // Eviction retries (429 and transient errors): initial * 2^(n-1), capped, ±jitter. kubectl
  // drain waits 5 s between tries.
  Duration eviction_backoff_initial = std::chrono::seconds(5);
  Duration eviction_backoff_max = std::chrono::seconds(60);
  double eviction_backoff_jitter = 0.2;
  // A job whose eviction the cached budget holds back is woken by the budget's update; this
  // recheck covers an update the cache missed.
  Duration pdb_precheck_recheck = std::chrono::seconds(30);
  // A job an arbitration limit holds back is woken when another job ends (the oldest few); this
  // recheck covers the rest and what no job's end announces (a workload's pod turning Ready).
  // koordinator arbitrates every 500ms.
  Duration arbitration_recheck = std::chrono::seconds(5);
  // A held job gets its Arbitration=False condition once it has waited this long since its
  // creation: most jobs of a drain wait a few seconds for their turn, and writing each of them a
  // status at once is a burst of writes that delays the migrations under way.
  Duration held_condition_after = std::chrono::seconds(10);
  // A running job's status change that neither changes its phase nor comes with an Event (the
  // waits between eviction and the replacement's readiness: PodBoundReservation/BoundPodReady
  // False, ReservationBound True) is written only once the last write is this old, so the short
  // waits of a migration merge into the next write instead of one status write each. 0: off.
  Duration status_coalesce = std::chrono::seconds(2);
  // An evicted job waiting for a replacement is woken by the workload's pods and jobs; this
  // recheck covers a wake-up that did not come (replacement.h).
  Duration bind_recheck = std::chrono::seconds(5);
  // How long after its eviction an evicted job whose own reservation is still unconsumed starts
  // looking for a replacement placed through another reservation of its workload.
  Duration sibling_replacement_after = std::chrono::seconds(2);
};

enum class ActionKind {
  kRecordPodUid,         // spec.podRef.uid = the pod's uid (a replaced pod is then noticed)
  kCreateReservation,    // the controller builds it (BuildMigrationReservation)
  kRecordReservationRef, // spec.reservationOptions.reservationRef = {name}
  kDeleteReservation,
  kEvict,
  kDeleteJob,
};

struct Action {
  ActionKind kind;
  std::string reservation_name;
  EvictionPolicy policy = EvictionPolicy::kEviction;
  bool operator==(const Action&) const = default;
};

struct PhaseChange {
  JobPhase from;
  JobPhase to;
  std::string reason;
};

struct MigrationDecision {
  std::vector<Action> actions;
  std::optional<JobStatus> status;  // set only when it differs from the observed status
  std::vector<EventNote> events;
  std::optional<PhaseChange> transition;
  std::optional<Duration> requeue_after;  // the job's deadline, the next eviction try, or GC
  // The PDB pre-check held the eviction: nothing was sent, but a budget blocked it as surely as a
  // 429 would have (berth_pods_evicted_total{result="blocked_by_pdb"} counts both, so its alert fires).
  bool eviction_held_by_pdb = false;
};

// EffectiveTtl: spec.ttl, or the default when absent. 0 means no timeout.
Duration EffectiveTtl(const JobSnapshot& job, const MigrationOptions& options);
// EffectiveMode: spec.mode or the default; nullopt for a mode berth does not know.
std::optional<JobMode> EffectiveMode(const JobSnapshot& job, const MigrationOptions& options);
// JobDeadline: creation + ttl, nullopt for ttl 0.
std::optional<Time> JobDeadline(const JobSnapshot& job, const MigrationOptions& options);
// GcDeadline: when a terminal job is deleted.
Time GcDeadline(const JobSnapshot& job, const MigrationOptions& options);
// ReservationName: the job's reservation: spec.reservationOptions.reservationRef.name, else the
// name in spec.reservationOptions.template.metadata, else the job uid (koordinator's choice).
std::string ReservationName(const JobSnapshot& job);
// Policy: the pod's koordinator.sh/evict-policy label wins over the job's; default Eviction.
EvictionPolicy PolicyFor(const JobSnapshot& job);

MigrationDecision DecideMigration(const JobSnapshot& job, Time now, const MigrationOptions& options);

// PdbPrecheck: why the Eviction API would surely refuse (429) the pod's eviction now, read from
// berth's cached PodDisruptionBudget facts (exactly one matching budget allowing no disruption,
// the pod Running, Ready and not terminating); nullopt when the eviction may be sent. The API
// server's answer stays the authority: a stale cache only delays the try until the budget's update.
std::optional<std::string> PdbPrecheck(const JobSnapshot& job);

// EvictionOutcome: what the API server answered to the eviction (or delete).
enum class EvictionResult {
  kAccepted,      // 200/201: the pod is being deleted
  kPodGone,       // 404
  kBlockedByPdb,  // 429 "Cannot evict pod as it would violate the pod's disruption budget."
  kMultiplePdbs,  // 500: several PDBs select the pod, which the Eviction API refuses
  kRetryable,     // 409, a throttling 429 (API Priority and Fairness, max-in-flight), 5xx, timeouts, no answer
  kRejected,      // any other 4xx
};
struct EvictionOutcome {
  EvictionResult result;
  int http_status = 0;
  std::string message;  // the API server's
  // Retry-After (or Status details.retryAfterSeconds): the next try waits at least this long.
  std::optional<Duration> retry_after = std::nullopt;
};

// ClassifyEviction maps an answer to a result: 2xx accepted, 404 gone, 429 whose message is the
// Eviction API's budget refusal blocked, 500 naming "more than one PodDisruptionBudget" terminal,
// other 429 (throttling: no budget said no), other 5xx, 409 and 0 retryable, other 4xx rejected.
// The budget's 429 and a throttling 429 share code and reason (TooManyRequests); only the
// budget's carries kEvictionBudgetMessage (and the DisruptionBudget cause, which the client's
// error does not keep).
inline constexpr std::string_view kEvictionBudgetMessage =
    "Cannot evict pod as it would violate the pod's disruption budget.";
EvictionResult ClassifyEviction(int http_status, std::string_view message);

struct EvictionDecision {
  JobStatus status;
  std::vector<EventNote> events;
  std::vector<Action> actions;  // kDeleteReservation when the job failed
  std::optional<PhaseChange> transition;
  std::optional<Duration> requeue_after;
  EvictionTries tries;
  std::optional<Duration> retry_delay;  // the backoff chosen, for berth_eviction_retry_seconds
};

// DecideAfterEviction: the job after the eviction answered. `status` is the decision's status
// (or the observed one); `jitter_unit` in [0, 1) picks the jitter (the controller draws it).
EvictionDecision DecideAfterEviction(const JobSnapshot& job, const JobStatus& status,
                                     const EvictionOutcome& outcome, Time now, const MigrationOptions& options,
                                     double jitter_unit);

// EvictionBackoff: the wait before try `attempts + 1` after `attempts` failed ones.
Duration EvictionBackoff(int attempts, const MigrationOptions& options, double jitter_unit);

// FailJob marks `status` Failed with `reason`/`message` on condition `condition_type` and returns
// the Warning Event; used by the controller when creating the reservation is refused for good.
EventNote FailJob(JobStatus& status, std::string_view condition_type, std::string_view reason,
                  const std::string& message, Time now);

// UpsertCondition sets a condition: unchanged when status, reason and message are; a new
// lastTransitionTime only when status changes. The type, reason and message are copied into
// status.status/reason/message (koordinator does). Returns whether anything changed.
bool UpsertCondition(JobStatus& status, std::string_view type, std::string_view cond_status,
                     std::string_view reason, const std::string& message, Time now);

const Condition* FindCondition(const JobStatus& status, std::string_view type);

}  // namespace berth::reconcile::migration
