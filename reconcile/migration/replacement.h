// reconcile/migration/replacement.h
//
// Which pod a ReservationFirst job credits as its evicted pod's replacement. A job's reservation
// is owned by the pod's whole controller (koordinator's owners), so any replacement of the
// workload may consume any of its jobs' reservations: pod a's replacement can take job B's
// reservation, B then makes a new one, and A's own reservation may never be consumed (the next
// replacement can take B's new one). A then credits the replacement that went through a sibling's
// reservation instead of waiting until its ttl. Each replacement is credited to one job: its own
// reservation's job first, else one job that no longer waits for that reservation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reconcile/migration/job.h"

namespace berth::reconcile::migration {

// CreditedReplacement: the pod a job waits on to be Ready, and the reservation it went through.
struct CreditedReplacement {
  OwnerRef pod;
  std::string reservation_name;
  std::optional<PodFacts> facts;  // nullopt: not in the cache (yet)
  bool via_sibling = false;       // not through the job's own reservation
};

// ReplacementOf: the own reservation's first current owner; else the sibling replacement the job
// already credited (status.podRef, still among job.workload_replacements); else an eligible one of
// those: placed through a reservation no other unfinished job has as its own, credited to no other
// job, created since the job was, not terminating or finished; Ready ones first, then the oldest,
// then by name. nullopt while the job must wait for a bind.
std::optional<CreditedReplacement> ReplacementOf(const JobSnapshot& job);

// SiblingSearchAt: when the controller should gather job.workload_replacements for this job (they
// cost a walk over the workload's pods): nullopt while it need not (not Running, its own
// reservation consumed or missing, its pod not yet evicted). A job that credited a sibling's pod
// already searches at once; else from options.sibling_replacement_after past its eviction, as its
// own replacement normally binds its reservation within that time.
std::optional<Time> SiblingSearchAt(const JobSnapshot& job, const MigrationOptions& options);

// BindRecheck: when a job waiting for a bind looks again. Pods and jobs of its workload wake it
// (a sibling's replacement); this covers a missed wake-up, and the search's start.
Duration BindRecheck(const JobSnapshot& job, Time now, const MigrationOptions& options);

}  // namespace berth::reconcile::migration
