#include "e2e/kubesim/sim/workload_support.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::workload {
namespace {

rapidjson::Document Doc(const char* text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

shim::TimePoint At(const char* text) { return *shim::ParseTimestamp(text); }

TEST(WorkloadSupportTest, ActivePodsAreNeitherFinishedNorBeingDeleted) {
  EXPECT_TRUE(IsActivePod(Doc(R"({"status":{"phase":"Running"}})")));
  EXPECT_TRUE(IsActivePod(Doc(R"({})")));
  EXPECT_FALSE(IsActivePod(Doc(R"({"status":{"phase":"Failed"}})")));
  EXPECT_FALSE(IsActivePod(Doc(R"({"status":{"phase":"Succeeded"}})")));
  EXPECT_FALSE(IsActivePod(Doc(R"({"metadata":{"deletionTimestamp":"2024-01-01T00:00:00Z"}})")));
}

TEST(WorkloadSupportTest, APodIsAvailableOnlyAfterBeingReadyForMinReadySeconds) {
  auto pod = Doc(R"({"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]}})");
  EXPECT_TRUE(IsPodAvailable(pod, 0, At("2024-01-01T00:00:00Z")));
  std::optional<shim::TimePoint> at;
  EXPECT_FALSE(IsPodAvailable(pod, 10, At("2024-01-01T00:00:10Z"), &at));  // Before is strict
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(*at, At("2024-01-01T00:00:10Z"));
  EXPECT_TRUE(IsPodAvailable(pod, 10, At("2024-01-01T00:00:11Z")));
  auto not_ready = Doc(R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})");
  EXPECT_FALSE(IsPodAvailable(not_ready, 0, At("2024-01-01T00:00:11Z")));
}

TEST(WorkloadSupportTest, MalformedConditionsAndOwnersAreTreatedAsAbsent) {
  EXPECT_FALSE(ReadySince(Doc(R"({"status":{"conditions":"Ready"}})")).has_value());
  EXPECT_FALSE(ReadySince(Doc(R"({"status":7})")).has_value());
  auto bad_time = Doc(R"({"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"soon"}]}})");
  EXPECT_TRUE(IsPodAvailable(bad_time, 0, At("2024-01-01T00:00:00Z")));
  EXPECT_FALSE(IsPodAvailable(bad_time, 5, At("2024-01-01T00:00:00Z")));
  EXPECT_EQ(ControllerUid(Doc(R"({"metadata":{"ownerReferences":{"uid":"u"}}})")), "");
  EXPECT_EQ(ControllerUid(Doc(R"({"metadata":{"ownerReferences":[{"uid":"a","controller":"true"},{"uid":"b","controller":true}]}})")), "b");
  EXPECT_EQ(IntAt(Doc(R"({"spec":{"replicas":"3"}})"), {"spec", "replicas"}, 1), 1);
}

TEST(WorkloadSupportTest, LabelsContainNeedsEveryWantedPairWithTheSameValue) {
  auto have = Doc(R"({"a":"1","b":"2"})");
  auto want = Doc(R"({"a":"1"})");
  auto other = Doc(R"({"a":"2"})");
  EXPECT_TRUE(LabelsContain(&have, &want));
  EXPECT_FALSE(LabelsContain(&have, &other));
  EXPECT_FALSE(LabelsContain(nullptr, &want));
  EXPECT_TRUE(LabelsContain(nullptr, nullptr));
}

TEST(WorkloadSupportTest, ParseStoredTurnsGarbageIntoAnEmptyObject) {
  StoredObject obj;
  obj.json = "{not json";
  EXPECT_TRUE(ParseStored(obj).IsObject());
  EXPECT_EQ(ParseStored(obj).MemberCount(), 0u);
}

ObjectPtr Stored(std::string text) {
  auto obj = std::make_shared<StoredObject>();
  obj->json = std::move(text);
  return obj;
}

TEST(ParsedCacheTest, AVersionIsParsedOnceAndANewVersionAgain) {
  ParsedCache cache;
  ObjectPtr v1 = Stored(R"({"metadata":{"name":"p","resourceVersion":"1"}})");
  const rapidjson::Document& first = cache.Get(v1);
  EXPECT_EQ(json::GetString(first, {"metadata", "resourceVersion"}), "1");
  EXPECT_EQ(&cache.Get(v1), &first) << "the same stored version is not parsed again";
  ObjectPtr v2 = Stored(R"({"metadata":{"name":"p","resourceVersion":"2"}})");
  EXPECT_EQ(json::GetString(cache.Get(v2), {"metadata", "resourceVersion"}), "2");
  EXPECT_EQ(json::GetString(first, {"metadata", "resourceVersion"}), "1") << "v1's document stays until a Sweep";
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ParsedCacheTest, SweepDropsWhatWasNotReadSinceTheLastSweep) {
  ParsedCache cache;
  ObjectPtr kept = Stored(R"({"a":1})");
  ObjectPtr dropped = Stored(R"({"b":2})");
  cache.Get(kept);
  cache.Get(dropped);
  cache.Sweep();  // both were read in this pass
  EXPECT_EQ(cache.size(), 2u);
  cache.Get(kept);
  cache.Sweep();
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Get(kept)["a"].GetInt(), 1);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ParsedCacheTest, APassOverMoreThanMaxKeptKeepsNothing) {
  ParsedCache cache;
  cache.max_kept = 2;
  std::vector<ObjectPtr> objects;
  for (int i = 0; i < 3; ++i) objects.push_back(Stored("{\"i\":" + std::to_string(i) + "}"));
  for (const auto& o : objects) cache.Get(o);
  EXPECT_EQ(cache.size(), 3u) << "every document read in a pass stays valid until its Sweep";
  cache.Sweep();
  EXPECT_EQ(cache.size(), 0u);
  cache.Get(objects[0]);
  cache.Get(objects[1]);
  cache.Sweep();
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ParsedCacheTest, GarbageIsCachedAsAnEmptyObject) {
  ParsedCache cache;
  const rapidjson::Document& d = cache.Get(Stored("{not json"));
  EXPECT_TRUE(d.IsObject());
  EXPECT_EQ(d.MemberCount(), 0u);
}

}  // namespace
}  // namespace berth::kubesim::workload
