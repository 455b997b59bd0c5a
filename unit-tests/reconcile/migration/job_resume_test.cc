// A job whose eviction went out but whose status never said so: the status write was refused
// (409/5xx) and the process restarted, so its memory of the eviction (EvictionTries) is gone. The
// reservation-order label the controller set on the job's reservation before the eviction is what
// tells the job its pod was evicted, not lost (MissingPod) nor forbidden (terminating).
#include <gtest/gtest.h>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::seconds;

using testing::JobForWeb1;
using testing::JobReservation;
using testing::kT0;
using testing::ReplicaSetPod;

// A job whose last written status is from before the eviction: the reservation scheduled and
// Available on node-2 (or nothing at all, phase Pending), spec.podRef.uid recorded.
JobSnapshot Job(JobPhase written_phase, bool labelled) {
  JobSnapshot j = JobForWeb1();
  j.pod_uid = "pod-uid";
  j.reservation_ref_name = "job-uid";
  j.status.phase = written_phase;
  if (written_phase == JobPhase::kRunning) {
    UpsertCondition(j.status, kCondReservationCreated, "True", "", "Reservation job-uid created", kT0);
    UpsertCondition(j.status, kCondReservationScheduled, "False", kReasonUnschedulable, "0/2 nodes", kT0);
  }
  ReservationFacts r = JobReservation(Phase::kAvailable, "node-2");
  r.marked_for_eviction = labelled;
  j.reservation = r;
  return j;
}

const Condition* Eviction(const MigrationDecision& d) {
  return d.status ? FindCondition(*d.status, kCondEviction) : nullptr;
}

TEST(MigrationResumeTest, APodGoneAfterAnUnrecordedEvictionIsEvictedNotMissing) {
  JobSnapshot j = Job(JobPhase::kRunning, /*labelled=*/true);
  auto d = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  ASSERT_NE(Eviction(d), nullptr);
  EXPECT_EQ(Eviction(d)->status, "True");
  EXPECT_EQ(Eviction(d)->reason, kReasonEvictComplete);
  EXPECT_TRUE(d.actions.empty());  // no second eviction, and the replacement's reservation stays
}

TEST(MigrationResumeTest, WithoutTheLabelAPodGoneBeforeItsEvictionIsStillMissing) {
  JobSnapshot j = Job(JobPhase::kRunning, /*labelled=*/false);
  auto d = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, kReasonMissingPod);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
}

TEST(MigrationResumeTest, AJobStillPendingInTheApiResumesRunningWhenItsPodWasEvicted) {
  // Every status write failed from the start: the API server still says Pending.
  JobSnapshot gone = Job(JobPhase::kPending, /*labelled=*/true);
  auto d = DecideMigration(gone, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Eviction(d)->reason, kReasonEvictComplete);
  EXPECT_TRUE(d.actions.empty());

  // Same in this process before the restart: the accepted eviction is remembered, the pod is
  // terminating (which Start alone would take for a pod that may not be migrated).
  JobSnapshot terminating = Job(JobPhase::kPending, /*labelled=*/false);
  terminating.pod = ReplicaSetPod();
  terminating.pod->deleting = true;
  terminating.eviction.accepted = true;
  auto t = DecideMigration(terminating, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(t.status);
  EXPECT_EQ(t.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Eviction(t)->reason, kReasonEvictComplete);
  EXPECT_TRUE(t.actions.empty());
}

TEST(MigrationResumeTest, APendingJobWithAPodStillRunningStartsAsUsual) {
  // The label alone (an eviction refused, its removal failed) neither skips Start nor evicts twice.
  JobSnapshot j = Job(JobPhase::kPending, /*labelled=*/true);
  j.pod = ReplicaSetPod();
  auto d = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  EXPECT_EQ(Eviction(d), nullptr);

  // A terminating pod nobody evicted (no label, no accepted try) is still refused.
  JobSnapshot other = Job(JobPhase::kPending, /*labelled=*/false);
  other.pod = ReplicaSetPod();
  other.pod->deleting = true;
  auto o = DecideMigration(other, kT0 + seconds(10), MigrationOptions{});
  ASSERT_TRUE(o.status);
  EXPECT_EQ(o.status->phase, JobPhase::kFailed);
  EXPECT_EQ(o.status->reason, kReasonForbiddenMigratePod);
}

TEST(MigrationResumeTest, AReservationWhoseNamingSpecPatchFailedIsNamedAgain) {
  // The create went through, the spec patch with reservationRef did not: the job finds the
  // reservation under its default name (its uid) and records it, once.
  JobSnapshot j = Job(JobPhase::kRunning, /*labelled=*/false);
  j.pod = ReplicaSetPod();
  j.reservation_ref_name.clear();
  auto d = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordReservationRef, "job-uid"},
                                            {ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  j.reservation_ref_name = "job-uid";
  auto named = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  EXPECT_EQ(named.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  // A reservation the user named or made (not the job's own) is not the job's to record.
  j.reservation_ref_name.clear();
  j.reservation->created_by_job = false;
  auto foreign = DecideMigration(j, kT0 + seconds(10), MigrationOptions{});
  EXPECT_EQ(foreign.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
}

}  // namespace
}  // namespace berth::reconcile::migration
