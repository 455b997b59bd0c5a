#include "reconcile/migration/job.h"

#include <gtest/gtest.h>

#include "reconcile/migration/job_fixtures.h"
#include "reconcile/migration/job_test_support.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

using testing::JobForWeb1;
using testing::JobReservation;
using testing::kT0;
using job_test::Apply;
using job_test::Cond;
using job_test::Job;
using job_test::Options;
using job_test::Reservation;
using job_test::Running;
using job_test::Pod;


TEST(MigrationJobTest, APendingJobStartsRecordsThePodAndCreatesItsReservation) {
  auto d = DecideMigration(Job(), kT0 + seconds(1), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kCreateReservation, "job-uid"},
                                            {ActionKind::kRecordReservationRef, "job-uid"}}));
  EXPECT_EQ(Cond(*d.status, kCondReservationCreated).status, "True");
  EXPECT_EQ(d.status->status, "ReservationCreated");
  ASSERT_EQ(d.events.size(), 1u);
  // koordinator's Event (its PodMigrationJob user guide lists it).
  EXPECT_EQ(d.events[0], (EventNote{"Normal", "ReservationCreated", "Successfully create Reservation \"job-uid\""}));
  ASSERT_TRUE(d.transition);
  EXPECT_EQ(d.transition->to, JobPhase::kRunning);
  EXPECT_EQ(d.requeue_after, minutes(5) - seconds(1));  // the default ttl's deadline
}

TEST(MigrationJobTest, AMissingPodFailsTheJobWithMissingPod) {
  JobSnapshot j = Job();
  j.pod.reset();
  auto d = DecideMigration(j, kT0, Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "MissingPod");
  // koordinator's abortJobByMissingPod wording.
  EXPECT_EQ(d.status->message, "Abort job caused by missing Pod \"default/web-1\"");
  EXPECT_EQ(Cond(*d.status, kCondEviction).reason, "MissingPod");
  EXPECT_EQ(d.events, (std::vector<EventNote>{
                          {"Warning", "MissingPod", "Abort job caused by missing Pod \"default/web-1\""}}));
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.requeue_after, minutes(10));  // GC at creation + ttl + 5m
}

TEST(MigrationJobTest, AReplacedPodOfTheSameNameIsMissing) {
  JobSnapshot j = Job();
  j.pod_uid = "old-uid";
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->reason, "MissingPod");
  EXPECT_NE(d.status->message.find("uid old-uid is gone"), std::string::npos);
}

TEST(MigrationJobTest, SpecProblemsFailWithTheirReason) {
  JobSnapshot no_ref = Job();
  no_ref.pod_name = "";
  EXPECT_EQ(DecideMigration(no_ref, kT0, Options()).status->reason, "InvalidPodRef");
  JobSnapshot bad_mode = Job();
  bad_mode.mode_text = "Teleport";
  auto d = DecideMigration(bad_mode, kT0, Options());
  EXPECT_EQ(d.status->reason, "InvalidSpec");
  EXPECT_EQ(d.status->message, "spec.mode: unsupported value \"Teleport\" (ReservationFirst, EvictDirectly)");
  JobSnapshot bad_ttl = Job();
  bad_ttl.spec_errors = {"spec.ttl: invalid duration \"5 minutes\""};
  EXPECT_EQ(DecideMigration(bad_ttl, kT0, Options()).status->message, "spec.ttl: invalid duration \"5 minutes\"");
  JobSnapshot bad_policy = Job();
  bad_policy.pod->evict_policy_error = "label koordinator.sh/evict-policy: unsupported value \"Soft\"";
  EXPECT_EQ(DecideMigration(bad_policy, kT0, Options()).status->reason, "InvalidSpec");
}

TEST(MigrationJobTest, UnevictablePodsAreForbidden) {
  JobSnapshot j = Job();
  j.pod->controller_kind = "DaemonSet";
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "ForbiddenMigratePod");
  // koordinator's status message; berth's reason in the Warning Event.
  EXPECT_EQ(d.status->message,
            "Pod \"default/web-1\" is forbidden to migrate because it does not meet the requirements");
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].message.rfind(d.status->message, 0), 0u);
  EXPECT_NE(d.events[0].message.find("is a DaemonSet pod"), std::string::npos);
  MigrationOptions allow = Options();
  allow.evictability.evict_daemonset_pods = true;
  EXPECT_EQ(DecideMigration(j, kT0, allow).status->phase, JobPhase::kRunning);

  JobSnapshot terminating = Job();
  terminating.pod->deleting = true;
  EXPECT_NE(DecideMigration(terminating, kT0, Options()).events[0].message.find("it is terminating"), std::string::npos);
  JobSnapshot unscheduled = Job();
  unscheduled.pod->node_name = "";
  EXPECT_EQ(DecideMigration(unscheduled, kT0, Options()).status->reason, "ForbiddenMigratePod");
}

TEST(MigrationJobTest, ReservationFirstNeedsAPodBerthSchedulesButEvictDirectlyDoesNot) {
  JobSnapshot j = Job();
  j.pod->scheduler_name = "default-scheduler";
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->reason, "ForbiddenMigratePod");
  EXPECT_EQ(d.status->message,
            "Pod \"default/web-1\" is forbidden to migrate because it does not meet the requirements");
  EXPECT_NE(d.events[0].message.find("use mode EvictDirectly"), std::string::npos);
  j.mode_text = "EvictDirectly";
  auto direct = DecideMigration(j, kT0, Options());
  EXPECT_EQ(direct.status->phase, JobPhase::kRunning);
  EXPECT_EQ(direct.actions.back(), (Action{ActionKind::kEvict, "", EvictionPolicy::kEviction}));
}

TEST(MigrationJobTest, AnUnschedulableReservationIsMirroredOnceAndTheJobWaits) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kPending, "");
  j.reservation->scheduled_false = true;
  j.reservation->unschedulable_message = "0/3 nodes are available: 3 Insufficient cpu.";
  auto d = DecideMigration(j, kT0 + minutes(1), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  const Condition& c = Cond(*d.status, kCondReservationScheduled);
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "Unschedulable");
  EXPECT_EQ(c.message, "0/3 nodes are available: 3 Insufficient cpu.");
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Warning");
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.requeue_after, minutes(4));  // only the deadline: the reservation's update wakes the job
  auto again = DecideMigration(Apply(j, d), kT0 + minutes(2), Options());
  EXPECT_FALSE(again.status);  // nothing changed: no write, no second Event
  EXPECT_TRUE(again.events.empty());
}

TEST(MigrationJobTest, AReservationOnThePodsOwnNodeFailsTheJobAndIsDeleted) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-0");
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "ForbiddenMigratePod");
  // koordinator's wording (its typo included); the Event adds the node and pod.
  EXPECT_EQ(d.status->message, "Scheduler assignes the Reservation \"job-uid\" on the same node as the Pod");
  ASSERT_FALSE(d.events.empty());
  EXPECT_EQ(d.events.back().message,
            "Scheduler assignes the Reservation \"job-uid\" on the same node as the Pod (node node-0, Pod "
            "default/web-1)");
  EXPECT_EQ(Cond(*d.status, kCondReservationScheduled).reason, "ForbiddenMigratePod");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
}

TEST(MigrationJobTest, AnAvailableReservationElsewhereLeadsToTheEviction) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(Cond(*d.status, kCondReservationScheduled).status, "True");
  EXPECT_EQ(d.events, (std::vector<EventNote>{
                          {"Normal", "ReservationScheduled", "Assigned Reservation \"job-uid\" to node \"node-2\""}}));
  EXPECT_EQ(d.status->node_name, "node-2");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  j.job_evict_policy = EvictionPolicy::kDelete;
  EXPECT_EQ(DecideMigration(j, kT0, Options()).actions.back().policy, EvictionPolicy::kDelete);
  j.pod->evict_policy = EvictionPolicy::kEviction;  // the pod's label wins
  EXPECT_EQ(DecideMigration(j, kT0, Options()).actions.back().policy, EvictionPolicy::kEviction);
}

TEST(MigrationJobTest, AWaitingReservationIsNotYetAvailable) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kWaiting, "node-2");
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_TRUE(d.actions.empty());
}

TEST(MigrationJobTest, AnEvictionInBackoffWaitsForItsTime) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.eviction = {2, kT0 + seconds(10)};
  auto d = DecideMigration(j, kT0 + seconds(3), Options());
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.requeue_after, seconds(7));
  auto later = DecideMigration(j, kT0 + seconds(10), Options());
  EXPECT_EQ(later.actions.size(), 1u);
}

TEST(MigrationJobTest, ABudgetThatAllowsADisruptionEndsTheBackoffEarly) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.eviction = {3, kT0 + seconds(20), false, /*refused_by_budget=*/true};
  j.pdbs = {{"web", 0, 3, 3}};
  EXPECT_TRUE(DecideMigration(j, kT0, Options()).actions.empty());
  j.pdbs = {{"web", 1, 4, 3}};
  EXPECT_EQ(DecideMigration(j, kT0, Options()).actions,
            (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  // Refused by a 5xx or a throttling 429: the budget allowed it then too, so its update ends nothing.
  j.eviction.refused_by_budget = false;
  EXPECT_TRUE(DecideMigration(j, kT0, Options()).actions.empty());
  j.eviction = {0, kT0 + seconds(5), true};  // just accepted: never a second eviction from a stale cache
  EXPECT_TRUE(DecideMigration(j, kT0, Options()).actions.empty());
  // Nor once the backoff has passed: the cache may still show the pod without its deletionTimestamp.
  auto later = DecideMigration(j, kT0 + seconds(30), Options());
  EXPECT_TRUE(later.actions.empty());
  EXPECT_EQ(later.requeue_after, seconds(5));
}

TEST(MigrationJobTest, TheWholeReservationFirstPathEndsSucceeded) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  auto d = DecideMigration(j, kT0, Options());
  auto after = DecideAfterEviction(j, *d.status, {EvictionResult::kAccepted, 201, ""}, kT0, Options(), 0.5);
  EXPECT_EQ(Cond(after.status, kCondEviction).reason, "Evicting");
  // koordinator's wording; the job has no koordinator.sh/evict-reason annotation.
  EXPECT_EQ(Cond(after.status, kCondEviction).message,
            "Pod \"default/web-1\" evicted from node \"node-0\" by the reason \"\"");
  EXPECT_EQ(after.status.phase, JobPhase::kRunning);
  // The reason koord-descheduler (or berth's rescheduler) wrote on the job is named.
  JobSnapshot with_reason = j;
  with_reason.evict_reason = "node node-0 is over-utilised";
  EXPECT_EQ(Cond(DecideAfterEviction(with_reason, *d.status, {EvictionResult::kAccepted, 201, ""}, kT0, Options(), 0.5)
                     .status,
                 kCondEviction)
                .message,
            "Pod \"default/web-1\" evicted from node \"node-0\" by the reason \"node node-0 is over-utilised\"");
  j.status = after.status;

  // Terminating: evicted. The replacement may already have consumed the allocate-once reservation.
  j.pod->deleting = true;
  j.reservation->phase = Phase::kSucceeded;
  d = DecideMigration(j, kT0 + seconds(1), Options());
  EXPECT_EQ(Cond(*d.status, kCondEviction).status, "True");
  EXPECT_EQ(Cond(*d.status, kCondEviction).reason, "EvictComplete");
  EXPECT_EQ(Cond(*d.status, kCondPodBoundReservation).reason, "WaitForPodBindReservation");
  j = Apply(j, d);

  j.pod.reset();
  j.reservation->current_owners = {{"default", "web-2", "new-uid"}};
  PodFacts replacement = Pod("new-uid");
  replacement.name = "web-2";
  replacement.node_name = "node-2";
  replacement.ready = false;
  j.bound_pod = replacement;
  // A wait with no Event and no phase change within status_coalesce (2 s) of the last write is
  // not written yet: it would merge with the next change.
  d = DecideMigration(j, kT0 + seconds(2), Options());
  EXPECT_FALSE(d.status);
  EXPECT_EQ(d.requeue_after, seconds(1));
  MigrationOptions no_coalescing = Options();
  no_coalescing.status_coalesce = Duration::zero();
  EXPECT_TRUE(DecideMigration(j, kT0 + seconds(2), no_coalescing).status);
  d = DecideMigration(j, kT0 + seconds(3), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Cond(*d.status, kCondReservationBound).status, "True");
  EXPECT_EQ(Cond(*d.status, kCondBoundPodReady).reason, "WaitForBoundPodReady");
  EXPECT_EQ(d.status->new_pod, (OwnerRef{"default", "web-2", "new-uid"}));
  j = Apply(j, d);

  j.bound_pod->ready = true;
  d = DecideMigration(j, kT0 + seconds(3) + std::chrono::milliseconds(100), Options());
  ASSERT_TRUE(d.status) << "the phase change is written at once";
  EXPECT_EQ(d.status->phase, JobPhase::kSucceeded);
  EXPECT_EQ(d.status->status, "Complete");
  EXPECT_EQ(d.status->message, "Bind Pod \"default/web-2\" in Reservation \"job-uid\"");
  EXPECT_EQ(Cond(*d.status, kCondPodBoundReservation).status, "True");
  EXPECT_EQ(Cond(*d.status, kCondBoundPodReady).status, "True");
  EXPECT_EQ(d.events.back(), (EventNote{"Normal", "Complete", "Bind Pod \"default/web-2\" in Reservation \"job-uid\""}));
  EXPECT_TRUE(d.actions.empty());  // the consumed reservation stays (Succeeded, GC'd by its controller)
  EXPECT_EQ(d.requeue_after, minutes(10) - seconds(3) - std::chrono::milliseconds(100));
}

TEST(MigrationJobTest, APodGoneAfterTheEvictionStartedIsEvictedNotMissing) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  UpsertCondition(j.status, kCondEviction, "False", kReasonEvicting, "evicting", kT0);
  j.pod.reset();
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Cond(*d.status, kCondEviction).reason, "EvictComplete");
}

TEST(MigrationJobTest, AnAcceptedEvictionCountsEvenBeforeItsStatusIsRead) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.eviction.accepted = true;  // the status write saying so failed (or the cache is behind)
  j.pod.reset();
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(Cond(*d.status, kCondEviction).reason, "EvictComplete");
  EXPECT_TRUE(d.actions.empty());  // the reservation is kept for the replacement
}

TEST(MigrationJobTest, APodDeletedBeforeTheEvictionFailsTheJobAndFreesTheReservation) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  j.pod.reset();
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.status->reason, "MissingPod");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
}

TEST(MigrationJobTest, TheTtlAbortsTheJobNamesTheStepAndDeletesOnlyItsOwnUnusedReservation) {
  JobSnapshot j = Running();
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  UpsertCondition(j.status, kCondReservationScheduled, "True", "", "scheduled", kT0);
  UpsertCondition(j.status, kCondEviction, "False", kReasonEvicting, "Eviction attempt 4 of Pod default/web-1 blocked",
                  kT0);
  auto d = DecideMigration(j, kT0 + minutes(5), Options());
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "Timeout");
  EXPECT_EQ(d.status->message, "Abort job caused by timeout");  // koordinator's; the Event names the step
  ASSERT_FALSE(d.events.empty());
  EXPECT_EQ(d.events[0].message, "Abort job caused by timeout (Eviction: Eviction attempt 4 of Pod default/web-1 blocked)");
  EXPECT_EQ(Cond(*d.status, kCondEviction).reason, "Timeout");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
  EXPECT_EQ(d.events[0].type, "Warning");

  JobSnapshot users = j;
  users.reservation->created_by_job = false;  // a reservationRef the user gave
  EXPECT_TRUE(DecideMigration(users, kT0 + minutes(5), Options()).actions.empty());
  JobSnapshot consumed = j;
  consumed.reservation->current_owners = {{"default", "other", "o"}};
  EXPECT_TRUE(DecideMigration(consumed, kT0 + minutes(5), Options()).actions.empty());

  JobSnapshot custom = Running();
  custom.reservation = Reservation(Phase::kPending, "");
  custom.ttl = seconds(30);
  EXPECT_EQ(DecideMigration(custom, kT0 + seconds(29), Options()).requeue_after, seconds(1));
  EXPECT_EQ(DecideMigration(custom, kT0 + seconds(30), Options()).status->reason, "Timeout");
  JobSnapshot forever = Running();
  forever.ttl = Duration::zero();
  forever.reservation = Reservation(Phase::kPending, "");
  auto none = DecideMigration(forever, kT0 + std::chrono::hours(48), Options());
  EXPECT_FALSE(none.status);
  EXPECT_FALSE(none.requeue_after);
}

TEST(MigrationJobTest, ReservationProblemsFailTheJob) {
  JobSnapshot expired = Running();
  expired.reservation = Reservation(Phase::kFailed, "node-2");
  expired.reservation->expired = true;
  expired.reservation->failed_reason = "Expired";
  auto d = DecideMigration(expired, kT0, Options());
  EXPECT_EQ(d.status->reason, "ReservationExpired");
  EXPECT_EQ(d.status->message, "Reservation expired");
  EXPECT_EQ(d.events.back().message, "Reservation expired (Reservation job-uid, Expired)");

  JobSnapshot missing = Running();
  auto m = DecideMigration(missing, kT0, Options());
  EXPECT_EQ(m.status->reason, "MissingReservation");
  EXPECT_TRUE(m.actions.empty());

  JobSnapshot taken = Running();
  taken.reservation = Reservation(Phase::kSucceeded, "node-2");
  taken.reservation->current_owners = {{"default", "web-9", "u9"}};
  // Another migration's replacement took it: a new reservation, up to 3 times; then the job fails.
  auto t = DecideMigration(taken, kT0, Options());
  EXPECT_EQ(t.status->phase, JobPhase::kRunning);
  EXPECT_EQ(t.actions, (std::vector<Action>{{ActionKind::kCreateReservation, "job-uid-1"},
                                            {ActionKind::kRecordReservationRef, "job-uid-1"}}));
  EXPECT_EQ(Cond(*t.status, kCondReservationCreated).message,
            "Successfully create Reservation \"job-uid-1\" (Reservation job-uid was bound by another Pod "
            "default/web-9)");
  EXPECT_EQ(Cond(*t.status, kCondReservationScheduled).status, "False");
  // Taken before the scheduler's placement write landed, so it shows no node: the same, not a wait
  // for an update that never comes (a drain once stalled until the job's TTL on this).
  JobSnapshot taken_unplaced = taken;
  taken_unplaced.reservation->node_name.clear();
  auto u = DecideMigration(taken_unplaced, kT0, Options());
  EXPECT_EQ(u.actions, t.actions);
  ASSERT_TRUE(u.status.has_value());
  EXPECT_EQ(Cond(*u.status, kCondReservationCreated).message, Cond(*t.status, kCondReservationCreated).message);
  taken.reservation_ref_name = "job-uid-3";
  taken.reservation->name = "job-uid-3";
  t = DecideMigration(taken, kT0, Options());
  EXPECT_EQ(t.status->reason, "ForbiddenMigratePod");
  EXPECT_EQ(t.status->message, "Reservation is already bound by another Pod");  // koordinator's
  EXPECT_NE(t.events.back().message.find("(Reservation job-uid-3, Pod default/web-9)"), std::string::npos);
  taken.reservation_ref_name = "users-own";  // a reservation the job did not create is not replaced
  taken.reservation->name = "users-own";
  taken.reservation->created_by_job = false;
  t = DecideMigration(taken, kT0, Options());
  EXPECT_EQ(t.status->reason, "ForbiddenMigratePod");
}

TEST(MigrationJobTest, AUserGivenReservationIsUsedNotCreated) {
  JobSnapshot j = Job();
  j.reservation_ref_name = "mine";
  j.reservation = Reservation(Phase::kAvailable, "node-1");
  j.reservation->name = "mine";
  j.reservation->created_by_job = false;
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(Cond(*d.status, kCondReservationCreated).status, "True");
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
}

TEST(MigrationJobTest, TerminalJobsAreGarbageCollectedAfterTtlPlusFiveMinutes) {
  JobSnapshot j = Running();
  j.status.phase = JobPhase::kSucceeded;
  auto before = DecideMigration(j, kT0 + minutes(9), Options());
  EXPECT_TRUE(before.actions.empty());
  EXPECT_EQ(before.requeue_after, minutes(1));
  auto at = DecideMigration(j, kT0 + minutes(10), Options());
  EXPECT_EQ(at.actions, (std::vector<Action>{{ActionKind::kDeleteJob, ""}}));
  j.ttl = Duration::zero();
  EXPECT_EQ(DecideMigration(j, kT0 + minutes(10), Options()).requeue_after, minutes(20));
  j.status.phase = JobPhase::kAborted;
  EXPECT_EQ(DecideMigration(j, kT0 + minutes(30), Options()).actions.size(), 1u);
}

// The controller deletes a failing job's reservation only after the Failed status is written; a
// delete that failed then is repeated by the terminal job's next pass. A reservation a pod
// consumed, one the user named, or a succeeded job's stays.
TEST(MigrationJobTest, AFailedJobsUnconsumedReservationIsFreedOnItsNextPass) {
  JobSnapshot j = Running();
  j.status.phase = JobPhase::kFailed;
  j.reservation = Reservation(Phase::kAvailable, "node-2");
  auto d = DecideMigration(j, kT0 + minutes(1), Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
  EXPECT_FALSE(d.status);

  JobSnapshot consumed = j;
  consumed.reservation->current_owners.push_back(OwnerRef{"default", "web-1-new", "new-uid"});
  EXPECT_TRUE(DecideMigration(consumed, kT0 + minutes(1), Options()).actions.empty());
  JobSnapshot named = j;
  named.reservation->created_by_job = false;
  EXPECT_TRUE(DecideMigration(named, kT0 + minutes(1), Options()).actions.empty());
  JobSnapshot succeeded = consumed;  // its reservation consumed (Succeeded): it stays
  succeeded.status.phase = JobPhase::kSucceeded;
  succeeded.reservation->phase = Phase::kSucceeded;
  EXPECT_TRUE(DecideMigration(succeeded, kT0 + minutes(1), Options()).actions.empty());
  JobSnapshot gone = j;
  gone.reservation.reset();
  EXPECT_TRUE(DecideMigration(gone, kT0 + minutes(1), Options()).actions.empty());
}

TEST(MigrationJobTest, APausedJobDoesNothing) {
  JobSnapshot j = Job();
  j.paused = true;
  auto d = DecideMigration(j, kT0 + std::chrono::hours(1), Options());
  EXPECT_FALSE(d.status);
  EXPECT_TRUE(d.actions.empty());
  EXPECT_FALSE(d.requeue_after);
}

TEST(MigrationJobTest, EvictDirectlyEvictsAndSucceeds) {
  JobSnapshot j = Job();
  j.mode_text = "EvictDirectly";
  auto d = DecideMigration(j, kT0, Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  j.pod_uid = "pod-uid";
  auto after = DecideAfterEviction(j, *d.status, {EvictionResult::kAccepted, 201, ""}, kT0, Options(), 0.5);
  EXPECT_EQ(after.status.phase, JobPhase::kSucceeded);
  EXPECT_EQ(after.status.status, "Complete");
  EXPECT_EQ(after.status.reason, "");  // koordinator's evictPodDirectly clears it
  EXPECT_EQ(after.status.message, "Pod \"default/web-1\" has been evicted");
  ASSERT_TRUE(after.transition);
  EXPECT_EQ(after.transition->to, JobPhase::kSucceeded);
}

}  // namespace
}  // namespace berth::reconcile::migration
