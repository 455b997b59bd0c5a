// unit-tests/reconcile/migration/job_test_support.h
//
// The job suites' fixtures (job_test.cc, job_holds_test.cc): web-1's job in its first states, a
// decision applied, a condition looked up.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"

namespace berth::reconcile::migration::job_test {

inline PodFacts Pod(std::string uid = "pod-uid") { return migration::testing::ReplicaSetPod("web-1", std::move(uid)); }

inline JobSnapshot Job() {
  JobSnapshot j = migration::testing::JobForWeb1();
  j.pod = Pod();
  return j;
}

inline ReservationFacts Reservation(Phase phase, std::string node) {
  ReservationFacts r = migration::testing::JobReservation(phase, std::move(node));
  r.uid = "r-uid";
  return r;
}

// Running: what the first pass leaves (pod uid recorded, reservation created).
inline JobSnapshot Running() {
  JobSnapshot j = Job();
  j.pod_uid = "pod-uid";
  j.reservation_ref_name = "job-uid";
  j.status.phase = JobPhase::kRunning;
  UpsertCondition(j.status, kCondReservationCreated, "True", "", "Reservation job-uid created for Pod default/web-1",
                  migration::testing::kT0);
  return j;
}

// Apply: the job as it looks once the decision's status was written.
inline JobSnapshot Apply(JobSnapshot j, const MigrationDecision& d) {
  if (d.status) j.status = *d.status;
  return j;
}

inline const Condition& Cond(const JobStatus& s, std::string_view type) {
  const Condition* c = FindCondition(s, type);
  EXPECT_NE(c, nullptr) << type;
  static const Condition kNone;
  return c ? *c : kNone;
}

inline MigrationOptions Options() { return MigrationOptions{}; }

}  // namespace berth::reconcile::migration::job_test
