#include "reconcile/migration/replacement.h"

#include <algorithm>
#include <tuple>

namespace berth::reconcile::migration {
namespace {

OwnerRef RefOf(const PodFacts& pod) { return OwnerRef{pod.namespace_name, pod.name, pod.uid}; }

bool Eligible(const WorkloadReplacement& w, const JobSnapshot& job) {
  const PodFacts& p = w.pod;
  if (w.reservation_awaited_by_other_job || w.credited_to_other_job) return false;
  if (w.reservation_name == ReservationName(job)) return false;  // its own: the owners list says
  // Older pods of the workload are not replacements of this job's pod (creation times are the API
  // server's, in whole seconds, as the job's).
  if (w.creation_time < job.creation_time) return false;
  return !p.deleting && p.phase != "Succeeded" && p.phase != "Failed";
}

}  // namespace

std::optional<CreditedReplacement> ReplacementOf(const JobSnapshot& job) {
  if (job.reservation && !job.reservation->current_owners.empty()) {
    return CreditedReplacement{job.reservation->current_owners.front(), job.reservation->name, job.bound_pod, false};
  }
  if (job.status.new_pod) {
    for (const auto& w : job.workload_replacements) {
      if (w.pod.uid == job.status.new_pod->uid && !w.credited_to_other_job && !w.reservation_awaited_by_other_job &&
          !w.pod.deleting) {
        return CreditedReplacement{RefOf(w.pod), w.reservation_name, w.pod, true};
      }
    }
  }
  const WorkloadReplacement* best = nullptr;
  auto rank = [](const WorkloadReplacement& w) {
    return std::make_tuple(!w.pod.ready, w.creation_time, w.pod.namespace_name, w.pod.name);
  };
  for (const auto& w : job.workload_replacements) {
    if (Eligible(w, job) && (!best || rank(w) < rank(*best))) best = &w;
  }
  if (!best) return std::nullopt;
  return CreditedReplacement{RefOf(best->pod), best->reservation_name, best->pod, true};
}

std::optional<Time> SiblingSearchAt(const JobSnapshot& job, const MigrationOptions& options) {
  if (job.status.phase != JobPhase::kRunning || !job.reservation || !job.reservation->current_owners.empty()) {
    return std::nullopt;
  }
  if (job.pod && job.pod->uid == job.pod_uid && !job.pod->deleting) return std::nullopt;
  if (job.status.new_pod) return Time{};
  const Condition* evicted = FindCondition(job.status, kCondEviction);
  if (!evicted || evicted->status != "True" || !evicted->last_transition_time) return std::nullopt;
  return *evicted->last_transition_time + options.sibling_replacement_after;
}

Duration BindRecheck(const JobSnapshot& job, Time now, const MigrationOptions& options) {
  auto search = SiblingSearchAt(job, options);
  return search && *search > now ? std::min(options.bind_recheck, *search - now) : options.bind_recheck;
}

}  // namespace berth::reconcile::migration
