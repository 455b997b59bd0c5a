// unit-tests/reconcile/migration/job_holds_test.cc
//
// A job held before its eviction: the cached PDB precheck, the migration limits (arbitration),
// and reservations made ahead for held jobs.
#include <gtest/gtest.h>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"
#include "reconcile/migration/job_test_support.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::kT0;
using job_test::Apply;
using job_test::Cond;
using job_test::Job;
using job_test::Options;
using job_test::Reservation;
using job_test::Running;

TEST(MigrationPdbPrecheckTest, AnEvictionTheCachedBudgetRefusesIsNotSent) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.pdbs = {{"web", 0, 3, 3}};
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_TRUE(d.actions.empty());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(Cond(*d.status, kCondEviction).status, "False");
  EXPECT_EQ(Cond(*d.status, kCondEviction).message,
            "Eviction of Pod default/web-1 waits for PodDisruptionBudget default/web to allow a disruption (0 "
            "allowed, 3 healthy, 3 desired); not sent, as the API server would refuse it");
  EXPECT_EQ(d.requeue_after, seconds(30));
  EXPECT_TRUE(d.eviction_held_by_pdb);
  // The budget's update brings a disruption: the eviction goes out.
  j.pdbs = {{"web", 1, 4, 3}};
  auto allowed = DecideMigration(j, kT0, Options());
  EXPECT_EQ(allowed.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  EXPECT_FALSE(allowed.eviction_held_by_pdb);
}

TEST(MigrationPdbPrecheckTest, TheApiServerDecidesWhereTheBudgetDoesNotApplyOrIsAmbiguous) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.pdbs = {{"web", 0, 3, 3}};
  EXPECT_TRUE(PdbPrecheck(j).has_value());
  JobSnapshot unready = j;
  unready.pod->ready = false;  // the Eviction API's unhealthy-pod rules, not the budget count
  EXPECT_FALSE(PdbPrecheck(unready).has_value());
  JobSnapshot pending = j;
  pending.pod->phase = "Pending";
  EXPECT_FALSE(PdbPrecheck(pending).has_value());
  JobSnapshot two = j;
  two.pdbs.push_back({"other", 0, 1, 1});  // the API server's 500 names both
  EXPECT_FALSE(PdbPrecheck(two).has_value());
  JobSnapshot deleted = j;
  deleted.job_evict_policy = EvictionPolicy::kDelete;
  EXPECT_FALSE(PdbPrecheck(deleted).has_value());
  JobSnapshot none = j;
  none.pdbs.clear();
  EXPECT_FALSE(PdbPrecheck(none).has_value());
}

TEST(MigrationArbitrationTest, AHeldJobStaysPendingWithTheLimitNamedThenStarts) {
  JobSnapshot j = Job();
  j.held_by_limit = LimitHit{std::string(kReasonMaxMigratingPerNode),
                             "2 pods migrating on node node-0, maxMigratingPerNode is 2"};
  auto brief = DecideMigration(j, kT0 + seconds(9), Options());
  EXPECT_FALSE(brief.status) << "held for less than held_condition_after (10 s): no status write yet";
  EXPECT_TRUE(brief.actions.empty());
  EXPECT_EQ(brief.requeue_after, seconds(5));
  auto d = DecideMigration(j, kT0 + seconds(10), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kPending);
  EXPECT_TRUE(d.actions.empty());
  EXPECT_FALSE(d.transition);
  EXPECT_EQ(Cond(*d.status, kCondArbitration).status, "False");
  EXPECT_EQ(Cond(*d.status, kCondArbitration).reason, "MaxMigratingPerNode");
  EXPECT_EQ(d.status->message,
            "Pod default/web-1 waits: 2 pods migrating on node node-0, maxMigratingPerNode is 2");
  EXPECT_EQ(d.requeue_after, seconds(5));
  j = Apply(j, d);
  EXPECT_FALSE(DecideMigration(j, kT0 + seconds(11), Options()).status) << "no write while the hold is unchanged";

  j.held_by_limit.reset();
  d = DecideMigration(j, kT0 + seconds(12), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Cond(*d.status, kCondArbitration).status, "True");
  EXPECT_EQ(Cond(*d.status, kCondArbitration).reason, "PassedArbitration");
  EXPECT_EQ(d.actions.size(), 3u);
}

TEST(MigrationArbitrationTest, AnotherLimitRewritesAHeldJobsConditionAtMostOncePerRecheck) {
  JobSnapshot j = Job();
  j.held_by_limit = LimitHit{std::string(kReasonMaxMigratingPerWorkload), "maxMigratingPerWorkload 3 reached"};
  auto d = DecideMigration(j, kT0 + seconds(11), Options());
  ASSERT_TRUE(d.status);
  j = Apply(j, d);

  j.held_by_limit = LimitHit{std::string(kReasonMaxUnavailablePerWorkload), "maxUnavailablePerWorkload 3 reached"};
  d = DecideMigration(j, kT0 + seconds(13), Options());
  EXPECT_FALSE(d.status) << "within arbitration_recheck of the last write: no status write";
  EXPECT_EQ(d.requeue_after, seconds(5));

  d = DecideMigration(j, kT0 + seconds(16), Options());
  ASSERT_TRUE(d.status) << "arbitration_recheck later the condition names the limit that holds it now";
  EXPECT_EQ(Cond(*d.status, kCondArbitration).reason, "MaxUnavailablePerWorkload");
  EXPECT_EQ(d.status->phase, JobPhase::kPending);

  j.held_by_limit.reset();
  d = DecideMigration(j, kT0 + seconds(14), Options());
  ASSERT_TRUE(d.status) << "admission is written at once";
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
}

TEST(MigrationArbitrationTest, ANonRetryableCheckFailsTheJobEvenWhenALimitHoldsIt) {
  JobSnapshot j = Job();
  j.pod.reset();
  j.held_by_limit = LimitHit{std::string(kReasonMaxMigratingPerNode), "x"};
  auto d = DecideMigration(j, kT0 + seconds(1), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "MissingPod");
}

TEST(MigrationArbitrationTest, AHeldJobStillTimesOut) {
  JobSnapshot j = Job();
  j.held_by_limit = LimitHit{std::string(kReasonMaxMigratingPerWorkload), "x"};
  auto d = DecideMigration(j, kT0 + std::chrono::minutes(5), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "Timeout");
}

}  // namespace
}  // namespace berth::reconcile::migration

namespace berth::reconcile::migration {
namespace {

JobSnapshot HeldAhead() {
  JobSnapshot j = Job();
  j.held_by_limit = LimitHit{std::string(kReasonMaxUnavailablePerWorkload), "maxUnavailablePerWorkload 3 reached"};
  j.reserve_ahead = true;
  return j;
}

TEST(MigrationReserveAheadTest, AHeldJobReservedAheadCreatesItsReservationAndStaysPending) {
  auto d = DecideMigration(HeldAhead(), kT0 + seconds(1), Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kCreateReservation, "job-uid"},
                                            {ActionKind::kRecordReservationRef, "job-uid"}}));
  EXPECT_FALSE(d.status) << "no status write: the job still waits for arbitration";
  EXPECT_FALSE(d.transition);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].reason, "ReservationCreated");
  EXPECT_EQ(d.events[0].message,
            "Reservation job-uid created ahead for Pod default/web-1, which waits for arbitration");
  EXPECT_EQ(d.requeue_after, seconds(5));

  // Held past held_condition_after, the condition still names the limit, not the reservation.
  JobSnapshot j = HeldAhead();
  j.reservation_ref_name = "job-uid";
  j.reservation = Reservation(Phase::kAvailable, "node-1");
  d = DecideMigration(j, kT0 + seconds(11), Options());
  EXPECT_TRUE(d.actions.empty()) << "its reservation exists: nothing more, above all no eviction";
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kPending);
  EXPECT_EQ(Cond(*d.status, kCondArbitration).status, "False");
  EXPECT_EQ(d.status->reason, "MaxUnavailablePerWorkload");
  EXPECT_EQ(FindCondition(*d.status, kCondReservationCreated), nullptr);
}

TEST(MigrationReserveAheadTest, OnlyHeldReservationFirstJobsTheRuleChoseReserveAhead) {
  JobSnapshot not_chosen = HeldAhead();
  not_chosen.reserve_ahead = false;
  EXPECT_TRUE(DecideMigration(not_chosen, kT0 + seconds(1), Options()).actions.empty());
  JobSnapshot direct = HeldAhead();
  direct.mode_text = "EvictDirectly";
  EXPECT_TRUE(DecideMigration(direct, kT0 + seconds(1), Options()).actions.empty());
  JobSnapshot patch_failed = HeldAhead();  // created, then its spec patch failed
  patch_failed.pod_uid = "pod-uid";
  patch_failed.reservation = Reservation(Phase::kPending, "");
  auto redo = DecideMigration(patch_failed, kT0 + seconds(1), Options());
  EXPECT_EQ(redo.actions, (std::vector<Action>{{ActionKind::kRecordReservationRef, "job-uid"}}));
  EXPECT_TRUE(redo.events.empty());
  JobSnapshot named = HeldAhead();
  named.reservation_ref_name = "user-reservation";  // the user's, or ours not in the cache yet
  EXPECT_TRUE(DecideMigration(named, kT0 + seconds(1), Options()).actions.empty());
  JobSnapshot missing_pod = HeldAhead();
  missing_pod.pod.reset();
  auto d = DecideMigration(missing_pod, kT0 + seconds(1), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->reason, "MissingPod");
  EXPECT_TRUE(d.actions.empty()) << "the checks come first: no reservation for a job that fails";
}

TEST(MigrationReserveAheadTest, AdmittedWithItsReservationAvailableItEvictsInTheSameDecision) {
  JobSnapshot j = HeldAhead();
  j.reservation_ref_name = "job-uid";
  j.reservation = Reservation(Phase::kAvailable, "node-1");
  j.held_by_limit.reset();
  auto d = DecideMigration(j, kT0 + seconds(2), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""}, {ActionKind::kEvict, ""}}));
  EXPECT_EQ(Cond(*d.status, kCondReservationCreated).status, "True");
  EXPECT_EQ(Cond(*d.status, kCondReservationScheduled).status, "True");
  EXPECT_EQ(d.status->node_name, "node-1");
  j.pod_uid = "pod-uid";  // recorded when it reserved ahead: the eviction is the only action
  d = DecideMigration(j, kT0 + seconds(2), Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kEvict, ""}}));
  j.pod_uid.clear();

  // Not yet scheduled when admitted: it waits for the reservation, as a job that created it now.
  j.reservation = Reservation(Phase::kPending, "");
  d = DecideMigration(j, kT0 + seconds(2), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""}}));
}

TEST(MigrationReserveAheadTest, AHeldJobThatFailsOrTimesOutDeletesItsReservationAhead) {
  JobSnapshot j = HeldAhead();
  j.reservation_ref_name = "job-uid";
  j.reservation = Reservation(Phase::kAvailable, "node-1");
  auto d = DecideMigration(j, kT0 + minutes(5), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "Timeout");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));

  j.pod->deleting = true;  // its pod went away while it waited
  d = DecideMigration(j, kT0 + seconds(30), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "ForbiddenMigratePod");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));

  // Aborted by a user (a terminal phase berth does not set): its reservation is freed too.
  JobSnapshot aborted = HeldAhead();
  aborted.reservation_ref_name = "job-uid";
  aborted.reservation = Reservation(Phase::kAvailable, "node-1");
  aborted.status.phase = JobPhase::kAborted;
  d = DecideMigration(aborted, kT0 + seconds(30), Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
}

}  // namespace
}  // namespace berth::reconcile::migration
