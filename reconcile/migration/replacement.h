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

}  // namespace berth::reconcile::migration
