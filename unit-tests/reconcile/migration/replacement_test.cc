// A replacement of one job's pod consumes another job's reservation (every reservation of a
// workload's jobs is owned by the whole controller): the job whose own reservation stays unused
// credits that replacement instead of waiting in WaitForPodBindReservation until its ttl.
#include "reconcile/migration/replacement.h"

#include <gtest/gtest.h>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

using testing::kT0;

PodFacts WorkloadPod(std::string name, std::string uid, bool ready) {
  PodFacts p = testing::ReplicaSetPod(std::move(name), std::move(uid), "node-2");
  p.ready = ready;
  return p;
}

// Job A: its pod web-a evicted and gone, its reservation "job-a" Available on node-2, unconsumed.
JobSnapshot EvictedJobA() {
  JobSnapshot j;
  j.name = "job-a";
  j.uid = "job-a";
  j.creation_time = kT0;
  j.pod_namespace = "default";
  j.pod_name = "web-a";
  j.pod_uid = "a-uid";
  j.reservation_ref_name = "job-a";
  j.status.phase = JobPhase::kRunning;
  j.status.node_name = "node-2";
  UpsertCondition(j.status, kCondReservationCreated, "True", "", "Reservation job-a created", kT0);
  UpsertCondition(j.status, kCondReservationScheduled, "True", "", "Reservation job-a scheduled on node node-2", kT0);
  UpsertCondition(j.status, kCondEviction, "True", kReasonEvictComplete, "Pod default/web-a has been evicted", kT0);
  UpsertCondition(j.status, kCondPodBoundReservation, "False", kReasonWaitForPodBindReservation,
                  "Waiting for the replacement of Pod default/web-a to bind Reservation job-a", kT0);
  ReservationFacts r;
  r.name = "job-a";
  r.uid = "ra-uid";
  r.phase = Phase::kAvailable;
  r.node_name = "node-2";
  r.created_by_job = true;
  j.reservation = r;
  return j;
}

// web-a's replacement, placed through job C's first reservation "job-c" (C then made "job-c-1").
WorkloadReplacement ReplacementThroughJobC(bool ready) {
  return WorkloadReplacement{WorkloadPod("web-x", "x-uid", ready), kT0 + seconds(3), "job-c", false, false};
}

MigrationOptions NoCoalescing() {
  MigrationOptions o;
  o.status_coalesce = Duration::zero();
  return o;
}

const Condition& Cond(const JobStatus& s, std::string_view type) {
  const Condition* c = FindCondition(s, type);
  EXPECT_NE(c, nullptr) << type;
  static const Condition kNone;
  return c ? *c : kNone;
}

TEST(MigrationReplacementTest, AJobWhoseReservationNoReplacementTookCreditsTheOneASiblingsReservationPlaced) {
  JobSnapshot a = EvictedJobA();
  // Without a replacement anywhere the job waits, and looks again after bind_recheck.
  auto d = DecideMigration(a, kT0 + seconds(5), NoCoalescing());
  EXPECT_FALSE(d.status);
  EXPECT_EQ(d.requeue_after, seconds(5));

  // job-c's reservation, and so web-x, is on node-1; job-a's own is on node-2.
  WorkloadReplacement on_node_1 = ReplacementThroughJobC(false);
  on_node_1.pod.node_name = "node-1";
  a.workload_replacements = {on_node_1};
  d = DecideMigration(a, kT0 + seconds(6), NoCoalescing());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.status->new_pod, (OwnerRef{"default", "web-x", "x-uid"}));
  EXPECT_EQ(d.status->node_name, "node-1") << "nodeName is the new pod's node, as podRef is the new pod";
  EXPECT_EQ(Cond(*d.status, kCondReservationBound).message,
            "Pod default/web-x bound Reservation job-c of the same workload (Reservation job-a was not consumed)");
  EXPECT_EQ(Cond(*d.status, kCondBoundPodReady).reason, kReasonWaitForBoundPodReady);
  EXPECT_EQ(d.requeue_after, seconds(5));
  a.status = *d.status;

  on_node_1.pod.ready = true;
  a.workload_replacements = {on_node_1};
  d = DecideMigration(a, kT0 + seconds(7), NoCoalescing());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kSucceeded);
  EXPECT_EQ(d.status->node_name, "node-1");
  EXPECT_EQ(d.status->message, "Bind Pod \"default/web-x\" in Reservation \"job-c\"");
  EXPECT_EQ(Cond(*d.status, kCondPodBoundReservation).status, "True");
  // Its own reservation, never consumed, is freed (after the status write, as a failed job's).
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-a"}}));
}

TEST(MigrationReplacementTest, APodAnotherJobCreditsOrWhoseReservationAnotherJobAwaitsIsNotTaken) {
  JobSnapshot a = EvictedJobA();
  WorkloadReplacement awaited = ReplacementThroughJobC(true);
  awaited.reservation_awaited_by_other_job = true;  // job C still has "job-c" as its own
  WorkloadReplacement credited = ReplacementThroughJobC(true);
  credited.credited_to_other_job = true;
  WorkloadReplacement older = ReplacementThroughJobC(true);
  older.creation_time = kT0 - seconds(1);  // was there before job A
  WorkloadReplacement terminating = ReplacementThroughJobC(true);
  terminating.pod.deleting = true;
  WorkloadReplacement own = ReplacementThroughJobC(true);
  own.reservation_name = "job-a";  // its own reservation: its owners list is the authority
  for (const auto& w : {awaited, credited, older, terminating, own}) {
    a.workload_replacements = {w};
    EXPECT_FALSE(ReplacementOf(a)) << w.reservation_name;
    auto d = DecideMigration(a, kT0 + seconds(6), NoCoalescing());
    EXPECT_FALSE(d.status);
  }
}

TEST(MigrationReplacementTest, TheOwnReservationsOwnerComesFirstThenReadyThenOldest) {
  JobSnapshot a = EvictedJobA();
  WorkloadReplacement late_ready = ReplacementThroughJobC(true);
  late_ready.pod.name = "web-late";
  late_ready.pod.uid = "late";
  late_ready.creation_time = kT0 + seconds(9);
  WorkloadReplacement early_unready = ReplacementThroughJobC(false);
  WorkloadReplacement early_ready = ReplacementThroughJobC(true);
  early_ready.pod.name = "web-early";
  early_ready.pod.uid = "early";
  early_ready.creation_time = kT0 + seconds(1);
  a.workload_replacements = {late_ready, early_unready};
  ASSERT_TRUE(ReplacementOf(a));
  EXPECT_EQ(ReplacementOf(a)->pod.name, "web-late");
  a.workload_replacements.push_back(early_ready);
  EXPECT_EQ(ReplacementOf(a)->pod.name, "web-early");

  a.reservation->current_owners = {{"default", "web-own", "own-uid"}};
  a.reservation->phase = Phase::kSucceeded;
  auto r = ReplacementOf(a);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pod.name, "web-own");
  EXPECT_FALSE(r->via_sibling);
  EXPECT_EQ(r->reservation_name, "job-a");
}

TEST(MigrationReplacementTest, ACreditedReplacementIsKeptUntilAnotherJobClaimsIt) {
  JobSnapshot a = EvictedJobA();
  WorkloadReplacement first = ReplacementThroughJobC(false);
  a.status.new_pod = OwnerRef{"default", "web-x", "x-uid"};
  WorkloadReplacement ready_other = ReplacementThroughJobC(true);
  ready_other.pod.name = "web-y";
  ready_other.pod.uid = "y-uid";
  ready_other.creation_time = kT0 + seconds(1);
  a.workload_replacements = {first, ready_other};
  EXPECT_EQ(ReplacementOf(a)->pod.name, "web-x") << "the credited pod stays, though another is Ready";
  a.workload_replacements[0].credited_to_other_job = true;
  EXPECT_EQ(ReplacementOf(a)->pod.name, "web-y");
}

TEST(MigrationReplacementTest, ASucceededJobsUnconsumedReservationIsFreedOnItsNextPass) {
  JobSnapshot a = EvictedJobA();
  a.status.phase = JobPhase::kSucceeded;
  auto d = DecideMigration(a, kT0 + seconds(8), NoCoalescing());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-a"}}));
  // A normally succeeded job's reservation is consumed (Succeeded): it stays.
  a.reservation->phase = Phase::kSucceeded;
  a.reservation->current_owners = {{"default", "web-own", "own-uid"}};
  EXPECT_TRUE(DecideMigration(a, kT0 + seconds(8), NoCoalescing()).actions.empty());
  EXPECT_EQ(DecideMigration(a, kT0 + seconds(8), NoCoalescing()).requeue_after, minutes(10) - seconds(8));
}

}  // namespace
}  // namespace berth::reconcile::migration

namespace berth::reconcile::migration {
namespace {

TEST(MigrationReplacementTest, TheSearchForASiblingsReplacementStartsAWhileAfterTheEviction) {
  JobSnapshot a = EvictedJobA();  // evicted (Eviction True) at kT0
  MigrationOptions o;
  EXPECT_EQ(SiblingSearchAt(a, o), kT0 + seconds(2));
  // Before then, the wait's recheck is when the search starts.
  a.status.conditions.erase(a.status.conditions.begin() + 3);  // no PodBoundReservation written yet
  auto d = DecideMigration(a, kT0 + std::chrono::milliseconds(500), NoCoalescing());
  EXPECT_EQ(d.requeue_after, std::chrono::milliseconds(1500));
  a = EvictedJobA();
  a.status.new_pod = OwnerRef{"default", "web-x", "x-uid"};
  EXPECT_EQ(SiblingSearchAt(a, o), Time{}) << "a job that credited a sibling's pod keeps looking at once";

  JobSnapshot own_consumed = EvictedJobA();
  own_consumed.reservation->current_owners = {{"default", "web-own", "own-uid"}};
  EXPECT_FALSE(SiblingSearchAt(own_consumed, o));
  JobSnapshot not_evicted = EvictedJobA();
  not_evicted.pod = WorkloadPod("web-a", "a-uid", true);
  EXPECT_FALSE(SiblingSearchAt(not_evicted, o));
  not_evicted.pod->deleting = true;
  EXPECT_EQ(SiblingSearchAt(not_evicted, o), kT0 + seconds(2)) << "terminating counts as evicted";
  JobSnapshot done = EvictedJobA();
  done.status.phase = JobPhase::kSucceeded;
  EXPECT_FALSE(SiblingSearchAt(done, o));
  JobSnapshot evicting = EvictedJobA();
  evicting.status.conditions.clear();
  UpsertCondition(evicting.status, kCondEviction, "False", kReasonEvicting, "evicting", kT0);
  EXPECT_FALSE(SiblingSearchAt(evicting, o));
}

}  // namespace
}  // namespace berth::reconcile::migration
