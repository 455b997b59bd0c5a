// unit-tests/reconcile/migration/job_pending_pod_test.cc
//
// koordinator migrates an unschedulable Pending pod by reserving for the pod itself (owner: the
// object) and waiting for it to be scheduled (controller.go waitForPendingPodScheduled,
// reservation/util.go GenerateReserveResourceOwners, util.IsMigratePendingPod). No eviction.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"
#include "reconcile/migration/job_test_support.h"
#include "reconcile/migration/reservation_template.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::seconds;
using testing::kT0;
using job_test::Cond;
using job_test::Job;
using job_test::Options;
using job_test::Reservation;
using job_test::Running;

PodFacts UnschedulablePod() {
  PodFacts p = job_test::Pod();
  p.node_name.clear();
  p.phase = "Pending";
  p.ready = false;
  p.unschedulable = true;
  p.unschedulable_message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.";
  return p;
}

// The reservation the job made for the pending pod: an object owner only.
ReservationFacts PendingPodReservation(Phase phase, std::string node) {
  ReservationFacts r = Reservation(phase, std::move(node));
  r.object_owner_uids = {job_test::Pod().uid};
  return r;
}

TEST(MigrationPendingPodTest, AnUnschedulablePendingPodStartsAndGetsAReservation) {
  JobSnapshot j = Job();
  j.pod = UnschedulablePod();
  auto d = DecideMigration(j, kT0 + seconds(1), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning) << d.status->message;
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kCreateReservation, "job-uid"},
                                            {ActionKind::kRecordReservationRef, "job-uid"}}));
}

TEST(MigrationPendingPodTest, APodTheSchedulerHasNotTriedAndEvictDirectlyStayRefused) {
  JobSnapshot untried = Job();
  untried.pod = UnschedulablePod();
  untried.pod->unschedulable = false;
  EXPECT_EQ(DecideMigration(untried, kT0, Options()).status->reason, "ForbiddenMigratePod");
  JobSnapshot direct = Job();
  direct.pod = UnschedulablePod();
  direct.mode_text = "EvictDirectly";
  EXPECT_EQ(DecideMigration(direct, kT0, Options()).status->reason, "ForbiddenMigratePod");
}

TEST(MigrationPendingPodTest, WhileThePodIsUnscheduledTheJobWaitsWithItsMessageAndEvictsNothing) {
  JobSnapshot j = Running();
  j.pod = UnschedulablePod();
  j.reservation = PendingPodReservation(Phase::kAvailable, "node-2");
  auto d = DecideMigration(j, kT0 + seconds(5), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kRunning);
  EXPECT_EQ(d.status->node_name, "node-2");
  EXPECT_EQ(Cond(*d.status, kCondReservationScheduled).status, "True");
  const Condition& c = Cond(*d.status, kCondPodScheduled);
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "Unschedulable");
  EXPECT_EQ(c.message, j.pod->unschedulable_message);
  for (const auto& a : d.actions) EXPECT_NE(a.kind, ActionKind::kEvict);
}

TEST(MigrationPendingPodTest, ThePodScheduledIntoItsReservationSucceedsTheJobWithKoordinatorsMessage) {
  JobSnapshot j = Running();
  j.pod = UnschedulablePod();
  j.pod->node_name = "node-2";
  j.pod->phase = "Running";
  j.pod->unschedulable = false;
  // Consumed by the pod itself, on the pod's (new) node: neither "another Pod" nor "the same node".
  j.reservation = PendingPodReservation(Phase::kSucceeded, "node-2");
  j.reservation->current_owners = {{"default", "web-1", "pod-uid"}};
  auto d = DecideMigration(j, kT0 + seconds(5), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kSucceeded) << d.status->message;
  EXPECT_EQ(d.status->status, "Complete");
  EXPECT_EQ(d.status->reason, "");
  EXPECT_EQ(d.status->message, "Assign Pod \"default/web-1\" to node \"node-2\"");
  EXPECT_EQ(Cond(*d.status, kCondPodScheduled).status, "True");
  // (after ReservationScheduled's "Assigned Reservation ..." Event, not yet recorded in this fixture)
  ASSERT_FALSE(d.events.empty());
  EXPECT_EQ(d.events.back(), (EventNote{"Normal", "Complete", "Assign Pod \"default/web-1\" to node \"node-2\""}));
  for (const auto& a : d.actions) EXPECT_NE(a.kind, ActionKind::kEvict);
}

TEST(MigrationPendingPodTest, AReservationAnotherPodTookFailsTheJob) {
  JobSnapshot j = Running();
  j.pod = UnschedulablePod();
  j.reservation = PendingPodReservation(Phase::kSucceeded, "node-2");
  j.reservation->current_owners = {{"default", "other", "other-uid"}};
  auto d = DecideMigration(j, kT0 + seconds(5), Options());
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->phase, JobPhase::kFailed);
  EXPECT_EQ(d.status->reason, "ForbiddenMigratePod");
  EXPECT_EQ(d.status->message, "Reservation is already bound by another Pod");
}

TEST(MigrationPendingPodTest, AReservationOwnedByAnotherObjectIsAnOrdinaryTargetAndThePodIsEvicted) {
  // A bound pod moved into a user's Reservation (reservationRef) whose object owner names the pod by
  // name only (a StatefulSet pod's replacement keeps its name) or another pod: not the pending-pod
  // flow, which would end the job with nothing moved; the pod is evicted as for any reservation.
  for (const std::vector<std::string>& owners : {std::vector<std::string>{}, std::vector<std::string>{"other-uid"}}) {
    JobSnapshot j = Running();
    j.reservation = Reservation(Phase::kAvailable, "node-2");
    j.reservation->object_owner_uids = owners;
    auto d = DecideMigration(j, kT0, Options());
    ASSERT_TRUE(d.status);
    EXPECT_EQ(d.status->phase, JobPhase::kRunning) << d.status->message;
    EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kEvict, "", EvictionPolicy::kEviction}}));
  }
  // Owned by the job's own pod: the pending-pod flow; a pod already on a node ends the job.
  JobSnapshot own = Running();
  own.reservation = PendingPodReservation(Phase::kAvailable, "node-2");
  auto d = DecideMigration(own, kT0, Options());
  ASSERT_TRUE(d.status);
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.status->phase, JobPhase::kSucceeded);
}

TEST(MigrationPendingPodTest, TheReservationOfAnUnschedulablePodIsOwnedByThePodItself) {
  auto pod = json::Parse(R"({"metadata":{"name":"web-1","namespace":"default","uid":"pod-uid",
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d","uid":"rs-uid","controller":true}]},
    "spec":{"schedulerName":"koord-scheduler","containers":[{"name":"c"}]},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}})");
  ASSERT_TRUE(pod.has_value());
  ReservationRequest req{"job-1", "uid-job-1", "uid-job-1", "5m0s", kT0};
  auto r = BuildMigrationReservation(req, *pod, nullptr);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(json::Serialize((*r)["spec"]["owners"]),
            R"([{"object":{"uid":"pod-uid","kind":"Pod","name":"web-1","namespace":"default"}}])");
  // No node to exclude.
  EXPECT_EQ(json::Find(*r, {"spec", "template", "spec", "affinity"}), nullptr);
  // A bare unschedulable pod has an owner too: itself.
  auto bare = json::Parse(R"({"metadata":{"name":"b","namespace":"default","uid":"b-uid"},"spec":{},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}})");
  EXPECT_TRUE(BuildMigrationReservation(req, *bare, nullptr).has_value());
}

}  // namespace
}  // namespace berth::reconcile::migration
