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

}  // namespace berth::reconcile::migration
