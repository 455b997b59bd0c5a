// reservation_change: which Reservation updates the scheduler acts on, read from cached objects.
#include "controllers/scheduler/reservation_change.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

shim::ObjectPtr Cached(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  auto obj = shim::CachedObject::FromJson(*doc);
  EXPECT_TRUE(obj.has_value());
  return obj ? *obj : nullptr;
}

// A placed reservation with one owner; `status_extra`/`meta_extra` are spliced in.
shim::ObjectPtr Reservation(std::string_view meta_extra, std::string_view status) {
  return Cached(std::string(R"({"metadata":{"name":"r","uid":"u","resourceVersion":"5","generation":1)") +
                std::string(meta_extra) + R"(},"spec":{"ttl":"0"},"status":)" + std::string(status) + "}");
}

constexpr std::string_view kStatus =
    R"({"phase":"Available","nodeName":"n1","allocatable":{"cpu":"2","memory":"4Gi"},)"
    R"("currentOwners":[{"name":"p1","namespace":"default","uid":"1"}],"allocated":{"cpu":"500m"}})";

TEST(ReservationChangeTest, AnOwnerSyncAddingASecondOwnerAndAllocationIsNoChange) {
  auto before = Reservation("", kStatus);
  auto after = Reservation("",
      R"({"phase":"Available","nodeName":"n1","allocatable":{"cpu":"2","memory":"4Gi"},)"
      R"("currentOwners":[{"name":"p1","namespace":"default","uid":"1"},{"name":"p2","namespace":"default","uid":"2"}],)"
      R"("allocated":{"cpu":"1"},"conditions":[{"type":"Ready","status":"True"}]})");
  ReservationChange c = DiffReservation(before.get(), *after);
  EXPECT_FALSE(c.capacity);
  EXPECT_FALSE(c.annotations);
  EXPECT_FALSE(c.any());
}

TEST(ReservationChangeTest, AllocatableIsComparedByAmountNotText) {
  auto before = Reservation("", kStatus);
  auto after = Reservation("",
      R"({"phase":"Available","nodeName":"n1","allocatable":{"cpu":"2000m","memory":"4096Mi"},)"
      R"("currentOwners":[{"name":"p1","namespace":"default","uid":"1"}]})");
  EXPECT_FALSE(DiffReservation(before.get(), *after).capacity);
  auto more = Reservation("", R"({"phase":"Available","nodeName":"n1","allocatable":{"cpu":"3","memory":"4Gi"},)"
                              R"("currentOwners":[{"name":"p1","namespace":"default","uid":"1"}]})");
  EXPECT_TRUE(DiffReservation(before.get(), *more).capacity);
}

TEST(ReservationChangeTest, PhaseNodeGenerationLabelsAndFirstOrLastOwnerAreCapacityChanges) {
  auto before = Reservation("", kStatus);
  const std::string owners = R"("currentOwners":[{"name":"p1","namespace":"default","uid":"1"}])";
  EXPECT_TRUE(DiffReservation(before.get(), *Reservation("",
      R"({"phase":"Succeeded","nodeName":"n1","allocatable":{"cpu":"2","memory":"4Gi"},)" + owners + "}")).capacity);
  EXPECT_TRUE(DiffReservation(before.get(), *Reservation("",
      R"({"phase":"Available","nodeName":"n2","allocatable":{"cpu":"2","memory":"4Gi"},)" + owners + "}")).capacity);
  EXPECT_TRUE(DiffReservation(before.get(), *Reservation("",
      R"({"phase":"Available","nodeName":"n1","allocatable":{"cpu":"2","memory":"4Gi"}})")).capacity);
  auto gen2 = Cached(R"({"metadata":{"name":"r","uid":"u","generation":2},"spec":{"ttl":"0"},"status":)" +
                     std::string(kStatus) + "}");
  EXPECT_TRUE(DiffReservation(before.get(), *gen2).capacity);
  EXPECT_TRUE(DiffReservation(before.get(), *Reservation(R"(,"labels":{"tier":"gold"})", kStatus)).capacity);
  // Same labels both sides: no change.
  EXPECT_FALSE(DiffReservation(Reservation(R"(,"labels":{"tier":"gold"})", kStatus).get(),
                               *Reservation(R"(,"labels":{"tier":"gold"})", kStatus)).any());
}

TEST(ReservationChangeTest, TheRestrictedOptionsAndPreAllocatedPodsAnnotationsAreAnnotationChangesOnly) {
  auto before = Reservation("", kStatus);
  auto restricted = Reservation(
      R"(,"annotations":{"scheduling.koordinator.sh/reservation-restricted-options":"{\"resources\":[\"cpu\"]}"})", kStatus);
  ReservationChange c = DiffReservation(before.get(), *restricted);
  EXPECT_TRUE(c.annotations);
  EXPECT_FALSE(c.capacity);
  auto pre = Reservation(R"(,"annotations":{"berth.dev/pre-allocated-pods":"[]"})", kStatus);
  EXPECT_TRUE(DiffReservation(before.get(), *pre).annotations);
  auto other = Reservation(R"(,"annotations":{"unrelated":"x"})", kStatus);
  EXPECT_FALSE(DiffReservation(before.get(), *other).any());
}

TEST(ReservationChangeTest, NoPreviousObjectOrMalformedFieldsNeverCrashAndCountAsChanged) {
  auto after = Reservation("", kStatus);
  EXPECT_TRUE(DiffReservation(nullptr, *after).capacity);
  // Wrong types read like absent fields (json::GetString's rule).
  auto odd = Cached(R"({"metadata":{"name":"r","generation":"x","labels":[1]},)"
                    R"("status":{"phase":7,"nodeName":{},"allocatable":"2","currentOwners":{}}})");
  auto odd2 = Cached(R"({"metadata":{"name":"r","generation":"y","labels":[1]},)"
                     R"("status":{"phase":8,"nodeName":[],"allocatable":"3","currentOwners":"z"}})");
  EXPECT_FALSE(DiffReservation(odd.get(), *odd2).capacity);
  EXPECT_TRUE(DiffReservation(odd.get(), *after).capacity);
}

}  // namespace
}  // namespace berth::controllers
