// reconcile/migration/job_internal.h
//
// What the job's decisions (job.cc) and its eviction step (job_eviction.cc) share: the pod key,
// koordinator's message wording, and whether the job's reservation may be deleted. Internal to
// reconcile/migration.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "reconcile/migration/job.h"

namespace berth::reconcile::migration::job_internal {

inline std::string PodKey(const JobSnapshot& job) { return job.pod_namespace + "/" + job.pod_name; }

// Quoted: Go's %q for the names koordinator's messages quote (object names need no escaping).
inline std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// EvictedMessage: koordinator's EvictComplete wording.
inline std::string EvictedMessage(std::string_view key) { return "Pod " + Quoted(key) + " has been evicted"; }

inline std::string Seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", std::chrono::duration<double>(d).count());
  return buf;
}

// Ours and not consumed: deleting it frees its capacity and touches no pod.
inline bool ReservationToFree(const JobSnapshot& job) {
  return job.reservation && job.reservation->created_by_job && job.reservation->current_owners.empty();
}

}  // namespace berth::reconcile::migration::job_internal
