#include "reconcile/migration/job.h"

#include "reconcile/migration/job_internal.h"
#include "reconcile/migration/replacement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace berth::reconcile::migration {
namespace {

using job_internal::EvictedMessage;
using job_internal::PodKey;
using job_internal::Quoted;
using job_internal::ReservationToFree;

bool ConditionIs(const JobStatus& s, std::string_view type, std::string_view status) {
  const Condition* c = FindCondition(s, type);
  return c && c->status == status;
}

// The step a running job is waiting on, for the condition a timeout is recorded on.
std::string_view WaitingStep(const JobStatus& s, JobMode mode) {
  if (mode == JobMode::kReservationFirst) {
    if (!ConditionIs(s, kCondReservationCreated, "True")) return kCondReservationCreated;
    if (!ConditionIs(s, kCondReservationScheduled, "True")) return kCondReservationScheduled;
  }
  if (!ConditionIs(s, kCondEviction, "True")) return kCondEviction;
  if (!ConditionIs(s, kCondReservationBound, "True")) return kCondPodBoundReservation;
  return kCondBoundPodReady;
}

bool EvictionStarted(const JobStatus& s, const EvictionTries& tries, const std::optional<ReservationFacts>& r) {
  if (tries.accepted) return true;
  // This process's memory (tries) is lost on a restart and the status may not have been written
  // (409/5xx) before it: the label on the job's own reservation is what is left of the eviction.
  if (r && r->created_by_job && r->marked_for_eviction) return true;
  const Condition* c = FindCondition(s, kCondEviction);
  return c && (c->reason == kReasonEvicting || c->reason == kReasonEvictComplete);
}

// LastStatusWrite: the newest time on the job's conditions, when its status was last written.
std::optional<Time> LastStatusWrite(const JobStatus& s) {
  std::optional<Time> last;
  for (const Condition& c : s.conditions) {
    for (const auto& t : {c.last_transition_time, c.last_probe_time}) {
      if (t && (!last || *t > *last)) last = t;
    }
  }
  return last;
}


class Builder {
 public:
  Builder(const JobSnapshot& job, Time now, const MigrationOptions& options)
      : job_(job), now_(now), options_(options), status_(job.status) {}

  // Fail: the job fails with koordinator's `message` (its condition and status); `detail`, berth's
  // explanation, goes only into the Warning Event.
  void Fail(std::string_view type, std::string_view reason, const std::string& message, const std::string& detail = "") {
    events_.push_back(FailJob(status_, type, reason, message, now_));
    events_.back().message += detail;
    if (ReservationToFree(job_)) actions_.push_back({ActionKind::kDeleteReservation, job_.reservation->name});
  }
  void HeldByPdb() { held_by_pdb_ = true; }
  void Set(std::string_view type, std::string_view cond_status, std::string_view reason, const std::string& message,
           std::optional<EventNote> event = std::nullopt) {
    if (UpsertCondition(status_, type, cond_status, reason, message, now_) && event) events_.push_back(*event);
  }

  MigrationDecision Finish(std::optional<Duration> requeue) {
    MigrationDecision d;
    d.eviction_held_by_pdb = held_by_pdb_;
    d.actions = std::move(actions_);
    d.events = std::move(events_);
    if (status_ != job_.status) d.status = status_;
    if (d.status && d.events.empty() && d.actions.empty() && status_.phase == job_.status.phase &&
        status_.phase == JobPhase::kRunning) {
      if (auto last = LastStatusWrite(job_.status); last && *last <= now_ && now_ - *last < options_.status_coalesce) {
        d.status.reset();  // recomputed from the facts when the coalescing interval ends
        const Duration wait = *last + options_.status_coalesce - now_;
        requeue = requeue ? std::min(*requeue, wait) : wait;
      }
    }
    if (status_.phase != job_.status.phase) d.transition = PhaseChange{job_.status.phase, status_.phase, status_.reason};
    if (!IsTerminal(status_.phase)) {
      d.requeue_after = requeue;
      if (auto deadline = JobDeadline(job_, options_)) {
        Duration left = std::max<Duration>(*deadline - now_, Duration::zero());
        d.requeue_after = d.requeue_after ? std::min(*d.requeue_after, left) : left;
      }
    } else {
      d.requeue_after = std::max<Duration>(GcDeadline(job_, options_) - now_, Duration::zero());
    }
    return d;
  }

  JobStatus& status() { return status_; }
  Time now() const { return now_; }
  const MigrationOptions& options() const { return options_; }
  std::vector<Action>& actions() { return actions_; }
  std::vector<EventNote>& events() { return events_; }

 private:
  const JobSnapshot& job_;
  Time now_;
  const MigrationOptions& options_;
  JobStatus status_;
  std::vector<Action> actions_;
  std::vector<EventNote> events_;
  bool held_by_pdb_ = false;
};

bool SchedulerKnown(const std::string& name, const MigrationOptions& o) {
  return std::find(o.scheduler_names.begin(), o.scheduler_names.end(), name) != o.scheduler_names.end();
}

// NextReservationName: the name of the job's next reservation after `current` ("<uid>" →
// "<uid>-1" → … "<uid>-3"), or nullopt when the job did not name its reservations itself or has
// made kMaxReservations already.
constexpr int kMaxReservations = 4;
std::optional<std::string> NextReservationName(const JobSnapshot& job, const std::string& current) {
  if (!job.reservation || !job.reservation->created_by_job) return std::nullopt;
  if (current == job.uid) return job.uid + "-1";
  const std::string prefix = job.uid + "-";
  if (current.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string suffix = current.substr(prefix.size());
  if (suffix.empty() || suffix.size() > 2 || !std::all_of(suffix.begin(), suffix.end(), ::isdigit)) return std::nullopt;
  const int n = std::stoi(suffix);
  if (n + 1 >= kMaxReservations) return std::nullopt;
  return prefix + std::to_string(n + 1);
}

// ForbiddenMessage: koordinator's status message for a pod its filters refuse (arbitrator
// updateFailedJob); berth's reason goes into the Warning Event only.
std::string ForbiddenMessage(const std::string& key) {
  return "Pod " + Quoted(key) + " is forbidden to migrate because it does not meet the requirements";
}

// Start: the checks of a Pending job; true when it may run.
bool Start(const JobSnapshot& job, JobMode mode, const MigrationOptions& o, Builder& b) {
  const std::string key = PodKey(job);
  if (!job.pod) {
    b.Fail(kCondEviction, kReasonMissingPod, "Abort job caused by missing Pod " + Quoted(key));
    return false;
  }
  const PodFacts& pod = *job.pod;
  if (!job.pod_uid.empty() && pod.uid != job.pod_uid) {
    b.Fail(kCondEviction, kReasonMissingPod,
           "Pod " + key + " not found (uid " + job.pod_uid + " is gone; the pod of that name is " + pod.uid + ")");
    return false;
  }
  if (!pod.evict_policy_error.empty()) {
    b.Fail(kCondEviction, kReasonInvalidSpec, "Pod " + key + ": " + pod.evict_policy_error);
    return false;
  }
  if (auto why = NotEvictableReason(pod, o.evictability)) {
    b.Fail(kCondEviction, kReasonForbiddenMigratePod, ForbiddenMessage(key), ": " + *why);
    return false;
  }
  if (pod.deleting || pod.phase == "Succeeded" || pod.phase == "Failed") {
    b.Fail(kCondEviction, kReasonForbiddenMigratePod, ForbiddenMessage(key),
           std::string(": it is ") + (pod.deleting ? "terminating" : "finished (" + pod.phase + ")"));
    return false;
  }
  // An unschedulable Pending pod is migrated by reserving for it (koordinator's pending-pod
  // migration); one the scheduler has not tried yet has nothing to migrate from.
  if (pod.node_name.empty() && !(mode == JobMode::kReservationFirst && pod.unschedulable)) {
    b.Fail(kCondEviction, kReasonForbiddenMigratePod, ForbiddenMessage(key), ": it is not scheduled to a node yet");
    return false;
  }
  if (mode == JobMode::kReservationFirst && !SchedulerKnown(pod.scheduler_name, o)) {
    b.Fail(kCondEviction, kReasonForbiddenMigratePod, ForbiddenMessage(key),
           ": with ReservationFirst: its schedulerName \"" + pod.scheduler_name +
               "\" is not berth's, so its replacement could not use the reservation (use mode EvictDirectly)");
    return false;
  }
  if (job.held_by_limit) {
    if (job.reserve_ahead && mode == JobMode::kReservationFirst && job.reservation_ref_name.empty()) {
      // Reserved a wave ahead (reserve_ahead.h): no status change, the job still waits for
      // arbitration; once admitted it evicts as soon as this reservation is Available. The pod's
      // uid is recorded now too, one write fewer between admission and eviction. (A reservation
      // already there is one whose spec patch failed after its create: only the patch is redone.)
      const std::string reservation = ReservationName(job);
      if (job.pod_uid.empty()) b.actions().push_back({ActionKind::kRecordPodUid, ""});
      if (!job.reservation) {
        b.actions().push_back({ActionKind::kCreateReservation, reservation});
        b.events().push_back(EventNote{"Normal", std::string(kCondReservationCreated),
                                       "Reservation " + reservation + " created ahead for Pod " + key +
                                           ", which waits for arbitration"});
      }
      b.actions().push_back({ActionKind::kRecordReservationRef, reservation});
    }
    // A held job's limit can change with every migration that starts or ends (maxMigrating ↔
    // maxUnavailable): the condition shows the limit that held it last, rewritten at most once per
    // arbitration_recheck so waiting jobs do not each write their status on every change.
    const Condition* held = FindCondition(b.status(), kCondArbitration);
    if (held && held->status == "False" && held->last_probe_time &&
        b.now() - *held->last_probe_time < o.arbitration_recheck) return false;
    if ((!held || held->status != "False") && b.now() - job.creation_time < o.held_condition_after) return false;
    b.Set(kCondArbitration, "False", job.held_by_limit->reason,
          "Pod " + key + " waits: " + job.held_by_limit->message);
    return false;
  }
  if (const Condition* c = FindCondition(b.status(), kCondArbitration); c && c->status == "False") {
    b.Set(kCondArbitration, "True", kReasonPassedArbitration, "Pod " + key + " passed arbitration");
  }
  b.status().phase = JobPhase::kRunning;
  if (job.pod_uid.empty()) b.actions().push_back({ActionKind::kRecordPodUid, ""});
  return true;
}

// EvictOrWait: the eviction step; returns the requeue for a try that must wait for its backoff.
std::optional<Duration> EvictOrWait(const JobSnapshot& job, Time now, Builder& b) {
  const PodFacts& pod = *job.pod;
  // Evicted and terminating: its delete event follows.
  if (pod.deleting && EvictionStarted(b.status(), job.eviction, job.reservation)) return std::nullopt;
  if (job.eviction.accepted) {
    // Accepted: the pod is being deleted, whatever a cache behind that says. Its delete event
    // wakes the job; the recheck covers an event the cache missed. A second eviction would
    // only be a second, unbudgeted delete of the same pod.
    return b.options().eviction_backoff_initial;
  }
  if (job.eviction.next_attempt && *job.eviction.next_attempt > now) {
    // After tries a budget refused, a budget that now allows a disruption (its update woke the
    // job) need not be waited out. After a 5xx or a throttling 429 the budget allowed it all
    // along: the backoff holds, or every wake-up of the job would be another try.
    const bool budget_allows =
        job.eviction.refused_by_budget && !job.pdbs.empty() &&
        std::all_of(job.pdbs.begin(), job.pdbs.end(), [](const PdbFacts& p) { return p.disruptions_allowed > 0; });
    if (!budget_allows) return *job.eviction.next_attempt - now;
  }
  if (auto held = PdbPrecheck(job)) {
    // berth's own PDB cache says the API server would answer 429: no request. The budget's update
    // wakes the job; the fallback recheck covers a cache that missed it.
    b.Set(kCondEviction, "False", kReasonEvicting, *held);
    b.HeldByPdb();
    return b.options().pdb_precheck_recheck;
  }
  b.actions().push_back({ActionKind::kEvict, "", PolicyFor(job)});
  return std::nullopt;
}

// MigratesPendingPod: the reservation is owned by the job's pod itself (an object owner with its
// uid), as the one a job makes for an unschedulable Pending pod: koordinator's pending-pod
// migration. A reservation (e.g. a user's, through reservationRef) whose object owner is another
// pod, or names one by name only (a StatefulSet pod's replacement keeps the name), is an
// ordinary migration target: the pod is evicted and its replacement takes it.
bool MigratesPendingPod(const JobSnapshot& job, const ReservationFacts& r) {
  const std::string& uid = !job.pod_uid.empty() ? job.pod_uid : job.pod ? job.pod->uid : job.pod_uid;
  return !uid.empty() && std::find(r.object_owner_uids.begin(), r.object_owner_uids.end(), uid) != r.object_owner_uids.end();
}

// WaitForPendingPodScheduled: koordinator's waitForPendingPodScheduled. The reservation (owner: the
// pod itself) is scheduled; the job succeeds once the pod is on a node. Nothing is evicted.
std::optional<Duration> WaitForPendingPodScheduled(const JobSnapshot& job, const ReservationFacts& r, Builder& b) {
  const std::string key = PodKey(job);
  if (!job.pod || (!job.pod_uid.empty() && job.pod->uid != job.pod_uid)) {
    b.Fail(kCondPodScheduled, kReasonMissingPod, "Abort job caused by missing Pod " + Quoted(key));
    return std::nullopt;
  }
  const PodFacts& pod = *job.pod;
  if (pod.node_name.empty()) {
    if (r.phase == Phase::kSucceeded && !r.current_owners.empty() && r.current_owners.front().uid != pod.uid) {
      const auto& o = r.current_owners.front();
      b.Fail(kCondPodScheduled, kReasonForbiddenMigratePod, "Reservation is already bound by another Pod",
             " (" + o.namespace_name + "/" + o.name + ")");
      return std::nullopt;
    }
    // The pod's own updates wake the job.
    b.Set(kCondPodScheduled, "False", kReasonUnschedulable, pod.unschedulable_message);
    return std::nullopt;
  }
  const std::string message = "Assign Pod " + Quoted(key) + " to node " + Quoted(pod.node_name);
  b.Set(kCondPodScheduled, "True", "", "");
  b.status().phase = JobPhase::kSucceeded;
  b.status().status = std::string(kStatusComplete);
  b.status().reason.clear();
  b.status().message = message;
  b.events().push_back({"Normal", std::string(kStatusComplete), message});
  return std::nullopt;
}

}  // namespace

std::string_view JobPhaseName(JobPhase phase) {
  switch (phase) {
    case JobPhase::kPending: return "Pending";
    case JobPhase::kRunning: return "Running";
    case JobPhase::kSucceeded: return "Succeeded";
    case JobPhase::kFailed: return "Failed";
    case JobPhase::kAborted: return "Aborted";
  }
  return "Pending";
}

std::optional<JobPhase> ParseJobPhase(std::string_view text) {
  if (text.empty() || text == "Pending") return JobPhase::kPending;
  if (text == "Running") return JobPhase::kRunning;
  if (text == "Succeeded") return JobPhase::kSucceeded;
  if (text == "Failed") return JobPhase::kFailed;
  if (text == "Aborted") return JobPhase::kAborted;
  return std::nullopt;
}

const Condition* FindCondition(const JobStatus& status, std::string_view type) {
  for (const auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool UpsertCondition(JobStatus& status, std::string_view type, std::string_view cond_status,
                     std::string_view reason, const std::string& message, Time now) {
  auto it = std::find_if(status.conditions.begin(), status.conditions.end(),
                         [&](const Condition& c) { return c.type == type; });
  if (it != status.conditions.end() && it->status == cond_status && it->reason == reason && it->message == message) {
    return false;
  }
  if (it == status.conditions.end()) {
    status.conditions.push_back(Condition{std::string(type), std::string(cond_status), std::string(reason), message,
                                          now, now});
  } else {
    if (it->status != cond_status) it->last_transition_time = now;
    it->status = std::string(cond_status);
    it->reason = std::string(reason);
    it->message = message;
    it->last_probe_time = now;
  }
  status.status = std::string(type);
  status.reason = std::string(reason);
  status.message = message;
  return true;
}

EventNote FailJob(JobStatus& status, std::string_view condition_type, std::string_view reason,
                  const std::string& message, Time now) {
  UpsertCondition(status, condition_type, "False", reason, message, now);
  status.phase = JobPhase::kFailed;
  return EventNote{"Warning", std::string(reason), message};
}

Duration EffectiveTtl(const JobSnapshot& job, const MigrationOptions& options) {
  return job.ttl ? *job.ttl : options.default_ttl;
}

std::optional<JobMode> EffectiveMode(const JobSnapshot& job, const MigrationOptions& options) {
  if (job.mode_text.empty()) return options.default_mode;
  if (job.mode_text == kModeReservationFirst) return JobMode::kReservationFirst;
  if (job.mode_text == kModeEvictDirectly) return JobMode::kEvictDirectly;
  return std::nullopt;
}

std::optional<Time> JobDeadline(const JobSnapshot& job, const MigrationOptions& options) {
  Duration ttl = EffectiveTtl(job, options);
  if (ttl <= Duration::zero()) return std::nullopt;
  return job.creation_time + ttl;
}

Time GcDeadline(const JobSnapshot& job, const MigrationOptions& options) {
  Duration ttl = EffectiveTtl(job, options);
  return job.creation_time + (ttl > Duration::zero() ? ttl + options.gc_after_ttl : options.gc_without_ttl);
}

std::string ReservationName(const JobSnapshot& job) {
  if (!job.reservation_ref_name.empty()) return job.reservation_ref_name;
  // koordinator's CreateOrUpdateReservationOptions: the template's name, else the job's uid.
  return job.template_reservation_name.empty() ? job.uid : job.template_reservation_name;
}

EvictionPolicy PolicyFor(const JobSnapshot& job) {
  if (job.pod && job.pod->evict_policy) return *job.pod->evict_policy;
  return job.job_evict_policy.value_or(EvictionPolicy::kEviction);
}

MigrationDecision DecideMigration(const JobSnapshot& job, Time now, const MigrationOptions& options) {
  Builder b(job, now, options);
  if (IsTerminal(job.status.phase)) {
    // A failed job's reservation (or one a job that credited a sibling's left unconsumed) is deleted
    // after its status is written; a delete that failed then is repeated here.
    if (ReservationToFree(job) &&
        (job.status.phase != JobPhase::kSucceeded || job.reservation->phase != Phase::kSucceeded)) {
      b.actions().push_back({ActionKind::kDeleteReservation, job.reservation->name});
    }
    if (now >= GcDeadline(job, options)) b.actions().push_back({ActionKind::kDeleteJob, ""});
    return b.Finish(std::nullopt);
  }
  if (job.paused) {
    MigrationDecision d;  // a paused job does nothing, not even time out (koordinator's no-op)
    return d;
  }
  const std::string key = PodKey(job);
  if (job.pod_namespace.empty() || job.pod_name.empty()) {
    b.Fail(kCondEviction, kReasonInvalidPodRef, "spec.podRef needs namespace and name");
    return b.Finish(std::nullopt);
  }
  auto mode = EffectiveMode(job, options);
  if (!job.spec_errors.empty() || !mode) {
    std::string message;
    for (const auto& e : job.spec_errors) message += (message.empty() ? "" : "; ") + e;
    if (!mode) {
      message += std::string(message.empty() ? "" : "; ") + "spec.mode: unsupported value \"" + job.mode_text +
                 "\" (ReservationFirst, EvictDirectly)";
    }
    b.Fail(kCondReservationCreated, kReasonInvalidSpec, message);
    return b.Finish(std::nullopt);
  }
  if (auto deadline = JobDeadline(job, options); deadline && now >= *deadline) {
    std::string_view step = WaitingStep(job.status, *mode);
    std::string detail;
    if (const Condition* c = FindCondition(job.status, step); c && !c->message.empty()) {
      detail = " (" + std::string(step) + ": " + c->message + ")";
    }
    b.Fail(step, kReasonTimeout, "Abort job caused by timeout", detail);
    return b.Finish(std::nullopt);
  }
  // A Pending job whose eviction went out while none of its status writes got through (the API
  // server refused them, or the process died first): its pod is terminating or gone by now, which
  // Start would take for a pod that may not be migrated. It resumes where it is.
  const bool evicted_while_pending =
      job.status.phase == JobPhase::kPending && EvictionStarted(job.status, job.eviction, job.reservation) &&
      (!job.pod || job.pod->deleting || (!job.pod_uid.empty() && job.pod->uid != job.pod_uid));
  if (evicted_while_pending) {
    b.status().phase = JobPhase::kRunning;
  } else if (job.status.phase == JobPhase::kPending && !Start(job, *mode, options, b)) {
    const bool held = b.status().phase == JobPhase::kPending;
    return b.Finish(held ? std::optional<Duration>(options.arbitration_recheck) : std::nullopt);
  }

  const std::string pod_uid = job.pod_uid.empty() && job.pod ? job.pod->uid : job.pod_uid;
  const bool pod_present = job.pod && job.pod->uid == pod_uid;
  bool evicted = ConditionIs(b.status(), kCondEviction, "True");
  if (pod_present && !evicted && job.pod->deleting && EvictionStarted(b.status(), job.eviction, job.reservation)) {
    // Evicted and terminating: its controller has already made the replacement, which may bind
    // the reservation before the old pod is gone.
    b.Set(kCondEviction, "True", kReasonEvictComplete, EvictedMessage(key),
          EventNote{"Normal", std::string(kReasonEvictComplete), EvictedMessage(key)});
    evicted = true;
  }
  if (!pod_present && !evicted) {
    if (!EvictionStarted(b.status(), job.eviction, job.reservation)) {
      b.Fail(kCondEviction, kReasonMissingPod, "Abort job caused by missing Pod " + Quoted(key));
      return b.Finish(std::nullopt);
    }
    b.Set(kCondEviction, "True", kReasonEvictComplete, EvictedMessage(key),
          EventNote{"Normal", std::string(kReasonEvictComplete), EvictedMessage(key)});
    evicted = true;
  }

  if (*mode == JobMode::kEvictDirectly) {
    if (evicted) {
      b.status().phase = JobPhase::kSucceeded;
      b.status().status = std::string(kStatusComplete);
      b.events().push_back({"Normal", std::string(kStatusComplete), EvictedMessage(key)});
      return b.Finish(std::nullopt);
    }
    return b.Finish(EvictOrWait(job, now, b));
  }

  // ReservationFirst.
  const std::string reservation = ReservationName(job);
  if (!job.reservation) {
    if (!ConditionIs(b.status(), kCondReservationCreated, "True") && job.reservation_ref_name.empty() && !evicted) {
      b.actions().push_back({ActionKind::kCreateReservation, reservation});
      b.actions().push_back({ActionKind::kRecordReservationRef, reservation});
      std::string message = "Successfully create Reservation " + Quoted(reservation);
      b.Set(kCondReservationCreated, "True", "", message, EventNote{"Normal", std::string(kCondReservationCreated), message});
      return b.Finish(std::nullopt);
    }
    b.Fail(kCondReservationScheduled, kReasonMissingReservation,
           "Abort job caused by missing Reservation " + Quoted(reservation));
    return b.Finish(std::nullopt);
  }
  const ReservationFacts& r = *job.reservation;
  const bool pending_pod = MigratesPendingPod(job, r);
  if (job.reservation_ref_name.empty() && r.created_by_job) {
    // The spec patch naming it went out after its create and failed (409/5xx): the create got
    // through, so the next pass finds it under the default name and would never name it again.
    b.actions().push_back({ActionKind::kRecordReservationRef, reservation});
  }
  if (!ConditionIs(b.status(), kCondReservationCreated, "True")) {
    b.Set(kCondReservationCreated, "True", "", "Reservation " + reservation + " is used for Pod " + key);
  }
  if (r.expired) {
    b.Fail(kCondReservationScheduled, kReasonReservationExpired, "Reservation expired",
           " (Reservation " + reservation + (r.failed_reason.empty() ? "" : ", " + r.failed_reason) + ")");
    return b.Finish(std::nullopt);
  }
  // Before the node check: a reservation another pod took while the scheduler's placement write was
  // still on its way may have no node (the lifecycle now records the owner's, but older ones lack it).
  if (!evicted && !pending_pod && r.phase == Phase::kSucceeded && !r.current_owners.empty()) {
    const auto& o = r.current_owners.front();
    // The owners are the pod's whole controller, so another migration's replacement may have
    // taken it. That pod got its place; this one gets a new reservation (a bounded number of
    // times) instead of failing as koordinator does.
    if (auto next = NextReservationName(job, reservation)) {
      b.actions().push_back({ActionKind::kCreateReservation, *next});
      b.actions().push_back({ActionKind::kRecordReservationRef, *next});
      std::string message = "Successfully create Reservation " + Quoted(*next) + " (Reservation " + reservation +
                            " was bound by another Pod " + o.namespace_name + "/" + o.name + ")";
      b.Set(kCondReservationCreated, "True", "", message,
            EventNote{"Normal", std::string(kCondReservationCreated), message});
      b.Set(kCondReservationScheduled, "False", "", "Reservation " + *next + " waits to be scheduled");
      b.status().node_name.clear();
      return b.Finish(std::nullopt);
    }
    // koordinator's abortJobByReservationBound message; which reservation and pod, in the Event.
    b.Fail(kCondEviction, kReasonForbiddenMigratePod, "Reservation is already bound by another Pod",
           " (Reservation " + reservation + ", Pod " + o.namespace_name + "/" + o.name + ")");
    return b.Finish(std::nullopt);
  }
  if (r.node_name.empty()) {
    if (r.scheduled_false) {
      b.Set(kCondReservationScheduled, "False", kReasonUnschedulable, r.unschedulable_message,
            EventNote{"Warning", std::string(kReasonUnschedulable),
                      "Reservation " + reservation + " is unschedulable: " + r.unschedulable_message});
    }
    return b.Finish(std::nullopt);  // the reservation's next update wakes the job
  }
  // (A pending pod has no node to leave; once scheduled into the reservation it shares its node.)
  if (!evicted && pod_present && !pending_pod && r.node_name == job.pod->node_name) {
    b.Fail(kCondReservationScheduled, kReasonForbiddenMigratePod,
           "Scheduler assignes the Reservation " + Quoted(reservation) + " on the same node as the Pod",
           " (node " + r.node_name + ", Pod " + key + ")");
    return b.Finish(std::nullopt);
  }
  if (!ConditionIs(b.status(), kCondReservationScheduled, "True")) {
    std::string message = "Assigned Reservation " + Quoted(reservation) + " to node " + Quoted(r.node_name);
    b.Set(kCondReservationScheduled, "True", "", message,
          EventNote{"Normal", std::string(kCondReservationScheduled), message});
  }
  b.status().node_name = r.node_name;
  if (r.phase == Phase::kWaiting || r.phase == Phase::kPending) return b.Finish(std::nullopt);
  if (pending_pod) return b.Finish(WaitForPendingPodScheduled(job, r, b));

  if (!evicted) return b.Finish(EvictOrWait(job, now, b));

  auto replacement = ReplacementOf(job);
  if (!replacement) {
    b.Set(kCondPodBoundReservation, "False", kReasonWaitForPodBindReservation,
          "Waiting for the replacement of Pod " + key + " to bind Reservation " + reservation);
    return b.Finish(BindRecheck(job, now, options));
  }
  const OwnerRef& owner = replacement->pod;
  const std::string owner_key = owner.namespace_name + "/" + owner.name;
  const std::string via = replacement->reservation_name;
  const std::string sibling =
      replacement->via_sibling ? " of the same workload (Reservation " + reservation + " was not consumed)" : "";
  b.Set(kCondReservationBound, "True", "", "Pod " + owner_key + " bound Reservation " + via + sibling);
  b.status().new_pod = owner;
  // nodeName is the new pod's node: a sibling's reservation is on another node than the job's own.
  if (replacement->facts && !replacement->facts->node_name.empty()) {
    b.status().node_name = replacement->facts->node_name;
  }
  if (!replacement->facts || !replacement->facts->ready) {
    b.Set(kCondBoundPodReady, "False", kReasonWaitForBoundPodReady, "Waiting for Pod " + owner_key + " to be Ready");
    return b.Finish(replacement->via_sibling ? std::optional<Duration>(options.bind_recheck) : std::nullopt);
  }
  b.Set(kCondBoundPodReady, "True", "", "Pod " + owner_key + " is Ready");
  std::string message = "Bind Pod " + Quoted(owner_key) + " in Reservation " + Quoted(via);
  b.Set(kCondPodBoundReservation, "True", "", message);
  b.status().phase = JobPhase::kSucceeded;
  b.status().status = std::string(kStatusComplete);
  b.events().push_back({"Normal", std::string(kStatusComplete), message});
  // Its own reservation, unconsumed, would hold its capacity until its ttl.
  if (replacement->via_sibling && ReservationToFree(job)) {
    b.actions().push_back({ActionKind::kDeleteReservation, job.reservation->name});
  }
  return b.Finish(std::nullopt);
}

}  // namespace berth::reconcile::migration
