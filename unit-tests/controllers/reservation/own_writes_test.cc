#include "controllers/reservation/own_writes.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

shim::ObjectPtr Reservation(const std::string& rv) {
  auto doc = json::Parse(R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1","kind":"Reservation",
    "metadata":{"name":"r1","uid":"u1","resourceVersion":")" + rv + R"("}})");
  EXPECT_TRUE(doc.has_value());
  auto obj = shim::CachedObject::FromJson(*doc);
  EXPECT_TRUE(obj.has_value());
  return *obj;
}

TEST(OwnWritesTest, TheEventCarryingExactlyOurWrittenVersionIsAnEcho) {
  OwnWrites w;
  w.Wrote("r1", "11");
  EXPECT_TRUE(w.IsEcho("r1", "11"));
  EXPECT_EQ(w.Size(), 0u);  // consumed
  EXPECT_FALSE(w.IsEcho("r1", "11"));
}

TEST(OwnWritesTest, AnyOtherVersionIsNotAnEchoAndConsumesTheRecord) {
  OwnWrites w;
  w.Wrote("r1", "11");
  EXPECT_FALSE(w.IsEcho("r1", "12"));
  EXPECT_FALSE(w.IsEcho("r1", "11"));
  EXPECT_FALSE(w.IsEcho("r2", "11"));
}

TEST(OwnWritesTest, AnEmptyVersionIsNeverRecordedNorAnEcho) {
  OwnWrites w;
  w.Wrote("r1", "");
  EXPECT_EQ(w.Size(), 0u);
  EXPECT_FALSE(w.IsEcho("r1", ""));
}

TEST(OwnWritesTest, ForgetDropsTheRecordOfADeletedReservation) {
  OwnWrites w;
  w.Wrote("r1", "11");
  w.Forget("r1");
  EXPECT_FALSE(w.IsEcho("r1", "11"));
}

TEST(OwnWritesTest, AReadThatAlreadySeesOurWriteKeepsTheEchoSkippable) {
  OwnWrites w;
  w.Wrote("r1", "11");
  auto obj = w.Read("r1", [] { return Reservation("11"); });
  ASSERT_NE(obj, nullptr);
  EXPECT_EQ(obj->ResourceVersion(), "11");
  EXPECT_TRUE(w.IsEcho("r1", "11"));
}

// The lost update: a reconcile that runs while our write is in flight reads the version before
// it, compares the pods against the old status and may find nothing to write (a consumer pod
// went away meanwhile). The written status then disagrees with the pods, and only the echo's
// reconcile would notice: it must not be skipped.
TEST(OwnWritesTest, AReadOfAVersionOlderThanOurWriteMakesTheEchoBeReconciled) {
  OwnWrites w;
  w.Wrote("r1", "11");
  auto obj = w.Read("r1", [] { return Reservation("10"); });
  ASSERT_NE(obj, nullptr);
  EXPECT_EQ(obj->ResourceVersion(), "10");
  EXPECT_FALSE(w.IsEcho("r1", "11"));
}

TEST(OwnWritesTest, AReadThatFindsTheReservationGoneDropsTheRecord) {
  OwnWrites w;
  w.Wrote("r1", "11");
  EXPECT_EQ(w.Read("r1", [] { return shim::ObjectPtr(); }), nullptr);
  EXPECT_EQ(w.Size(), 0u);
}

TEST(OwnWritesTest, AReadOfAnotherReservationLeavesTheRecordAlone) {
  OwnWrites w;
  w.Wrote("r1", "11");
  w.Read("r2", [] { return Reservation("10"); });
  EXPECT_TRUE(w.IsEcho("r1", "11"));
}

}  // namespace
}  // namespace berth::controllers
