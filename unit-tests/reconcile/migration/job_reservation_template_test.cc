// unit-tests/reconcile/migration/job_reservation_template_test.cc
//
// A job's spec.reservationOptions.template: koordinator (reservation/util.go
// CreateOrUpdateReservationOptions, interpreter.go CreateReservation) creates the Reservation with
// the template's ObjectMeta, its name (the job uid only when the template has none) and its
// annotations included.
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

TEST(MigrationReservationTemplateTest, TheTemplatesNameNamesTheReservationTheJobCreatesAndWaitsFor) {
  JobSnapshot j = job_test::Job();
  j.template_reservation_name = "keep-my-name";
  EXPECT_EQ(ReservationName(j), "keep-my-name");
  auto d = DecideMigration(j, kT0 + seconds(1), job_test::Options());
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kRecordPodUid, ""},
                                            {ActionKind::kCreateReservation, "keep-my-name"},
                                            {ActionKind::kRecordReservationRef, "keep-my-name"}}));
  ASSERT_FALSE(d.events.empty());
  EXPECT_EQ(d.events[0].message, "Successfully create Reservation \"keep-my-name\"");
  // Once recorded, the reference is what names it; without a template name, the job uid.
  j.reservation_ref_name = "other";
  EXPECT_EQ(ReservationName(j), "other");
  EXPECT_EQ(ReservationName(job_test::Job()), "job-uid");
}

TEST(MigrationReservationTemplateTest, TheTemplatesAnnotationsAndLabelsReachTheReservation) {
  auto pod = json::Parse(R"({"metadata":{"name":"web-1","namespace":"default","uid":"pod-uid",
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d","uid":"rs-uid","controller":true}]},
    "spec":{"nodeName":"node-0","containers":[{"name":"c"}]}})");
  auto tmpl = json::Parse(R"({"metadata":{"name":"keep-my-name","labels":{"team":"a"},
    "annotations":{"scheduling.koordinator.sh/reservation-resize-allocatable":"{\"resources\":{\"cpu\":\"3\"}}"}},
    "spec":{}})");
  ASSERT_TRUE(pod.has_value() && tmpl.has_value());
  ReservationRequest req{"job-1", "job-uid", "keep-my-name", "5m0s", kT0};
  auto r = BuildMigrationReservation(req, *pod, &*tmpl);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(json::GetString(*r, {"metadata", "name"}), "keep-my-name");
  EXPECT_EQ(json::GetString(*r, {"metadata", "labels", "team"}), "a");
  EXPECT_EQ(json::GetString(*r, {"metadata", "annotations", "scheduling.koordinator.sh/reservation-resize-allocatable"}),
            R"({"resources":{"cpu":"3"}})");
}

}  // namespace
}  // namespace berth::reconcile::migration
