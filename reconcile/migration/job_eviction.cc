// reconcile/migration/job_eviction.cc
//
// A job's eviction step: the PDB precheck, how the Eviction API's answer is read, the backoff
// between refused tries, and the status after an eviction (the job's other phases are in job.cc).
#include <algorithm>
#include <cmath>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_internal.h"

namespace berth::reconcile::migration {

using job_internal::EvictedMessage;
using job_internal::PodKey;
using job_internal::Quoted;
using job_internal::ReservationToFree;
using job_internal::Seconds;

std::optional<std::string> PdbPrecheck(const JobSnapshot& job) {
  if (!job.pod || PolicyFor(job) != EvictionPolicy::kEviction) return std::nullopt;
  const PodFacts& pod = *job.pod;
  // The Eviction API consults no budget for these (upstream-facts resourcepolicy-eviction.md B.1).
  if (pod.deleting || pod.phase != "Running" || !pod.ready) return std::nullopt;
  // Several budgets: the API server's 500 is the answer, and it fails the job with the names.
  if (job.pdbs.size() != 1) return std::nullopt;
  const PdbFacts& p = job.pdbs.front();
  if (p.disruptions_allowed > 0) return std::nullopt;
  return "Eviction of Pod " + PodKey(job) + " waits for PodDisruptionBudget " + job.pod_namespace + "/" + p.name +
         " to allow a disruption (" + std::to_string(p.disruptions_allowed) + " allowed, " +
         std::to_string(p.current_healthy) + " healthy, " + std::to_string(p.desired_healthy) +
         " desired); not sent, as the API server would refuse it";
}

EvictionResult ClassifyEviction(int http_status, std::string_view message) {
  if (http_status >= 200 && http_status < 300) return EvictionResult::kAccepted;
  if (http_status == 404) return EvictionResult::kPodGone;
  if (http_status == 429 && message.find(kEvictionBudgetMessage) != std::string_view::npos) {
    return EvictionResult::kBlockedByPdb;
  }
  if (http_status == 500 && message.find("more than one PodDisruptionBudget") != std::string_view::npos) {
    return EvictionResult::kMultiplePdbs;
  }
  if (http_status == 0 || http_status == 409 || http_status == 429 || http_status >= 500) {
    return EvictionResult::kRetryable;
  }
  return EvictionResult::kRejected;
}

Duration EvictionBackoff(int attempts, const MigrationOptions& options, double jitter_unit) {
  double base = std::chrono::duration<double>(options.eviction_backoff_initial).count();
  double cap = std::chrono::duration<double>(options.eviction_backoff_max).count();
  double delay = std::min(cap, base * std::pow(2.0, std::max(0, attempts - 1)));
  delay *= 1.0 + options.eviction_backoff_jitter * (2.0 * std::clamp(jitter_unit, 0.0, 1.0) - 1.0);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(delay));
}

EvictionDecision DecideAfterEviction(const JobSnapshot& job, const JobStatus& status, const EvictionOutcome& outcome,
                                     Time now, const MigrationOptions& options, double jitter_unit) {
  EvictionDecision d;
  d.status = status;
  d.tries = job.eviction;
  const std::string key = PodKey(job);
  const std::string node = job.pod ? job.pod->node_name : "";
  auto fail = [&](const std::string& message) {
    d.events.push_back(FailJob(d.status, kCondEviction, kReasonFailedEvict, message, now));
    if (ReservationToFree(job)) d.actions.push_back({ActionKind::kDeleteReservation, job.reservation->name});
  };
  auto retry = [&](const std::string& why) {
    d.tries.attempts++;
    d.tries.refused_by_budget = outcome.result == EvictionResult::kBlockedByPdb;
    Duration delay = EvictionBackoff(d.tries.attempts, options, jitter_unit);
    if (outcome.retry_after) delay = std::max(delay, *outcome.retry_after);
    if (auto deadline = JobDeadline(job, options)) delay = std::min(delay, std::max<Duration>(*deadline - now, {}));
    d.tries.next_attempt = now + delay;
    d.retry_delay = delay;
    d.requeue_after = delay;
    std::string message = "Eviction attempt " + std::to_string(d.tries.attempts) + " of Pod " + key + " " + why +
                          "; retrying in " + Seconds(delay);
    UpsertCondition(d.status, kCondEviction, "False", kReasonEvicting, message, now);
    // koordinator's Warning for an eviction the API refused: reason Evicting, "Failed evict Pod %q
    // caused by %v"; berth adds the try and the wait.
    d.events.push_back({"Warning", std::string(kReasonEvicting),
                        "Failed evict Pod " + Quoted(key) + " caused by " + why + " (attempt " +
                            std::to_string(d.tries.attempts) + "); retrying in " + Seconds(delay)});
  };
  switch (outcome.result) {
    case EvictionResult::kAccepted: {
      // No second eviction while the cache may still show the pod without its deletionTimestamp;
      // its delete event wakes the job sooner.
      d.tries = {0, now + options.eviction_backoff_initial, true};
      const bool deleted = PolicyFor(job) == EvictionPolicy::kDelete;
      // koordinator's wording, by the job's koordinator.sh/evict-reason.
      std::string message = "Pod " + Quoted(key) +
                            (deleted ? " deleted (policy Delete: no PodDisruptionBudget consulted)" : " evicted") +
                            " from node " + Quoted(node) + " by the reason " + Quoted(job.evict_reason);
      if (EffectiveMode(job, options) == JobMode::kEvictDirectly) {
        UpsertCondition(d.status, kCondEviction, "True", kReasonEvictComplete, message, now);
        d.status.phase = JobPhase::kSucceeded;
        d.status.status = std::string(kStatusComplete);
        d.status.reason.clear();
        d.status.message = EvictedMessage(key);  // koordinator's evictPodDirectly
        d.events.push_back({"Normal", std::string(kStatusComplete), d.status.message});
      } else {
        UpsertCondition(d.status, kCondEviction, "False", kReasonEvicting, message, now);
        d.events.push_back({"Normal", std::string(kReasonEvicting), message});
      }
      break;
    }
    case EvictionResult::kPodGone: {
      d.tries = {0, std::nullopt, true};
      std::string message = EvictedMessage(key);
      UpsertCondition(d.status, kCondEviction, "True", kReasonEvictComplete, message, now);
      break;
    }
    case EvictionResult::kBlockedByPdb: {
      std::string pdb = "a PodDisruptionBudget";
      if (!job.pdbs.empty()) {
        const PdbFacts& p = job.pdbs.front();
        pdb = "PodDisruptionBudget " + job.pod_namespace + "/" + p.name + " (" +
              std::to_string(p.disruptions_allowed) + " disruptions allowed, " + std::to_string(p.current_healthy) +
              " healthy, " + std::to_string(p.desired_healthy) + " desired)";
      }
      retry("blocked by " + pdb + ": " + outcome.message);
      break;
    }
    case EvictionResult::kMultiplePdbs: {
      std::string names;
      for (const auto& p : job.pdbs) names += (names.empty() ? "" : ", ") + p.name;
      fail("Eviction of Pod " + key + " refused: " + outcome.message +
           (names.empty() ? "" : " (matching: " + names + ")") +
           ". Make one PodDisruptionBudget select the pod, or label the job koordinator.sh/evict-policy=Delete "
           "to delete it without any budget");
      break;
    }
    case EvictionResult::kRetryable:
      retry("failed (HTTP " + std::to_string(outcome.http_status) + "): " + outcome.message);
      break;
    case EvictionResult::kRejected:
      fail("Eviction of Pod " + key + " refused (HTTP " + std::to_string(outcome.http_status) + "): " +
           outcome.message);
      break;
  }
  if (d.status.phase != status.phase) d.transition = PhaseChange{status.phase, d.status.phase, d.status.reason};
  if (!IsTerminal(d.status.phase) && !d.requeue_after) {
    if (auto deadline = JobDeadline(job, options)) d.requeue_after = std::max<Duration>(*deadline - now, {});
  }
  return d;
}

}  // namespace berth::reconcile::migration
