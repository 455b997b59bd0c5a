#include "reconcile/placement/prefer_avoid_pods.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kT0 = Time{} + hours(24 * 365 * 56);  // 2026

PreferAvoidEntry Entry(std::string uid, Time when) {
  return {"apps/v1", "ReplicaSet", "rs-" + uid, uid, when, std::string(kPreferAvoidPodsReason), "moved"};
}

TEST(PreferAvoidPodsTest, RoundTripsTheUpstreamWireFormat) {
  std::vector<PreferAvoidEntry> entries = {Entry("u1", kT0), Entry("u2", kT0 + minutes(1))};
  const std::string text = SerializePreferAvoidPods(entries);
  EXPECT_NE(text.find("\"preferAvoidPods\":[{\"podSignature\":{\"podController\":{\"apiVersion\":\"apps/v1\","
                      "\"kind\":\"ReplicaSet\",\"name\":\"rs-u1\",\"uid\":\"u1\",\"controller\":true}}"),
            std::string::npos)
      << text;
  auto parsed = ParsePreferAvoidPods(text);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, entries);
}

TEST(PreferAvoidPodsTest, MalformedValuesAreErrorsNamingTheField) {
  auto error = [](std::string_view text) {
    auto parsed = ParsePreferAvoidPods(text);
    EXPECT_FALSE(parsed.has_value()) << text;
    return parsed ? std::string() : parsed.error().message;
  };
  EXPECT_NE(error("{").find("scheduler.alpha.kubernetes.io/preferAvoidPods: invalid JSON"), std::string::npos);
  EXPECT_EQ(error("[]"), "scheduler.alpha.kubernetes.io/preferAvoidPods: not a JSON object");
  EXPECT_EQ(error(R"({"preferAvoidPods":{}})"), "scheduler.alpha.kubernetes.io/preferAvoidPods: preferAvoidPods: not a list");
  EXPECT_EQ(error(R"({"preferAvoidPods":[{"podSignature":{}}]})"),
            "scheduler.alpha.kubernetes.io/preferAvoidPods: preferAvoidPods[0].podSignature.podController: required object");
  EXPECT_EQ(error(R"({"preferAvoidPods":[{"podSignature":{"podController":{"kind":"ReplicaSet","name":"a"}}}]})"),
            "scheduler.alpha.kubernetes.io/preferAvoidPods: preferAvoidPods[0].podSignature.podController.uid: "
            "required string");
  EXPECT_NE(error(R"({"preferAvoidPods":[{"podSignature":{"podController":{"kind":"R","name":"a","uid":"u"}},)"
                  R"("evictionTime":"yesterday"}]})")
                .find("preferAvoidPods[0].evictionTime: parsing time"),
            std::string::npos);
  std::string deep(100000, '[');
  EXPECT_FALSE(ParsePreferAvoidPods(deep).has_value());  // no stack overflow
  auto empty = ParsePreferAvoidPods("{}");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

TEST(PreferAvoidPodsTest, RecordingPrunesExpiredEntriesRefreshesTheSameControllerAndBoundsTheList) {
  PreferAvoidOptions options{hours(1), 3};
  std::vector<PreferAvoidEntry> entries = {Entry("old", kT0 - hours(2)), Entry("a", kT0 - minutes(30)),
                                           Entry("b", kT0 - minutes(20))};
  entries = RecordAvoidance(entries, Entry("a", kT0), kT0, options);
  ASSERT_EQ(entries.size(), 2u);  // "old" expired, "a" refreshed
  EXPECT_EQ(entries[0].uid, "b");
  EXPECT_EQ(entries[1].uid, "a");
  EXPECT_EQ(entries[1].eviction_time, kT0);
  entries = RecordAvoidance(entries, Entry("c", kT0 + minutes(1)), kT0 + minutes(1), options);
  entries = RecordAvoidance(entries, Entry("d", kT0 + minutes(2)), kT0 + minutes(2), options);
  ASSERT_EQ(entries.size(), 3u);  // the oldest ("b") dropped at the bound
  EXPECT_EQ(entries[0].uid, "a");
  EXPECT_EQ(entries[2].uid, "d");
}

PodSpecView PodOf(std::string uid, std::string rs_uid) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = "web-" + uid;
  p.uid = uid;
  p.owner_references = {{"apps/v1", "ReplicaSet", "rs-" + rs_uid, rs_uid, true}};
  p.requests = {{"cpu", 100}};
  return p;
}

NodeView NodeOf(std::string name) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", 4000}, {"memory", int64_t{8} << 40}, {"pods", 110000}};
  return n;
}

TEST(PreferAvoidPodsTest, AnEntryWrittenWithinAMinuteOrATenthOfTheTtlNeedsNoRewrite) {
  PreferAvoidOptions options;  // ttl 1h: refresh 1 min
  std::vector<PreferAvoidEntry> entries = {Entry("a", kT0)};
  EXPECT_TRUE(RecentlyRecorded(entries, "a", kT0 + seconds(59), options));
  EXPECT_FALSE(RecentlyRecorded(entries, "a", kT0 + minutes(1), options));
  EXPECT_FALSE(RecentlyRecorded(entries, "b", kT0, options)) << "another controller";
  EXPECT_FALSE(RecentlyRecorded(entries, "a", kT0 - seconds(1), options)) << "an entry from the future";
  options.ttl = seconds(30);  // refresh 3 s
  EXPECT_TRUE(RecentlyRecorded(entries, "a", kT0 + seconds(2), options));
  EXPECT_FALSE(RecentlyRecorded(entries, "a", kT0 + seconds(3), options));
}

TEST(PreferAvoidPodsTest, TheSchedulerGivesAnAvoidingNodeTheWorstScoreOnlyForThatControllerAndUntilExpiry) {
  ClusterSnapshot snapshot;
  snapshot.AdvanceClock(kT0);
  NodeView a = NodeOf("a");  // the least allocated node: chosen without avoidance
  NodeView b = NodeOf("b");
  a.avoided_controllers = ActiveAvoidances({Entry("rs1", kT0)}, kT0, {hours(1), 32});
  ASSERT_EQ(a.avoided_controllers.size(), 1u);
  snapshot.UpsertNode(a);
  snapshot.UpsertNode(b);
  PodSpecView filler = PodOf("f", "other");
  filler.node_name = "b";
  filler.requests = {{"cpu", 2000}};
  snapshot.UpsertPod(filler);

  auto avoided = snapshot.SchedulePod(PodOf("p1", "rs1"));
  ASSERT_TRUE(avoided.has_value());
  EXPECT_EQ(avoided->node_name, "b");  // despite b being busier
  auto other = snapshot.SchedulePod(PodOf("p2", "rs2"));
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->node_name, "a");
  snapshot.AdvanceClock(kT0 + hours(1));
  auto expired = snapshot.SchedulePod(PodOf("p3", "rs1"));
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(expired->node_name, "a");
}

TEST(PreferAvoidPodsTest, AvoidanceNeverMakesAPodUnschedulable) {
  ClusterSnapshot snapshot;
  snapshot.AdvanceClock(kT0);
  NodeView only = NodeOf("only");
  only.avoided_controllers = ActiveAvoidances({Entry("rs1", kT0)}, kT0, {hours(1), 32});
  snapshot.UpsertNode(only);
  auto decision = snapshot.SchedulePod(PodOf("p1", "rs1"));
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->node_name, "only");
}

TEST(PreferAvoidPodsTest, ZeroTtlHonoursNothing) {
  EXPECT_TRUE(ActiveAvoidances({Entry("rs1", kT0)}, kT0, {std::chrono::nanoseconds(0), 32}).empty());
}

}  // namespace
}  // namespace berth::reconcile::placement
