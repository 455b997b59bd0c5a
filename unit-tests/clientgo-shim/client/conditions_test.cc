// Tests for clientgo-shim/client/conditions.h (apimachinery meta.SetStatusCondition rules).
#include "clientgo-shim/client/conditions.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

TimePoint At(const char* s) { return *ParseTimestamp(s); }

json::Document Obj(const char* text) { return std::move(*json::Parse(text)); }

TEST(ConditionsTest, NewConditionGetsTransitionTimeAndTheObjectGeneration) {
  auto o = Obj(R"({"metadata":{"generation":3}})");
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "False", "Waiting", "not yet"},
                                 At("2024-05-01T12:00:00Z")));
  EXPECT_EQ(json::Serialize(o),
            R"({"metadata":{"generation":3},"status":{"conditions":[{"type":"Ready","status":"False",)"
            R"("observedGeneration":3,"lastTransitionTime":"2024-05-01T12:00:00Z","reason":"Waiting",)"
            R"("message":"not yet"}]}})");
}

TEST(ConditionsTest, SameStatusKeepsTransitionTimeButUpdatesReasonAndMessage) {
  auto o = Obj(R"({"metadata":{"generation":1}})");
  SetStatusCondition(o, {"Ready", "False", "A", "a"}, At("2024-05-01T12:00:00Z"));
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "False", "B", "b"}, At("2024-05-01T13:00:00Z")));
  const json::Value* c = FindStatusCondition(o, "Ready");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(json::GetString(*c, {"lastTransitionTime"}), "2024-05-01T12:00:00Z");
  EXPECT_EQ(json::GetString(*c, {"reason"}), "B");
  EXPECT_EQ(json::GetString(*c, {"message"}), "b");
}

TEST(ConditionsTest, StatusChangeMovesTransitionTime) {
  auto o = Obj(R"({})");
  SetStatusCondition(o, {"Ready", "False", "A", ""}, At("2024-05-01T12:00:00Z"));
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "True", "A", ""}, At("2024-05-01T12:30:00Z")));
  EXPECT_EQ(json::GetString(*FindStatusCondition(o, "Ready"), {"lastTransitionTime"}),
            "2024-05-01T12:30:00Z");
  EXPECT_TRUE(IsStatusConditionTrue(o, "Ready"));
  EXPECT_EQ(json::Find(*FindStatusCondition(o, "Ready"), {"observedGeneration"}), nullptr)
      << "no generation anywhere: none recorded";
}

TEST(ConditionsTest, IdenticalConditionReportsNoChange) {
  auto o = Obj(R"({"metadata":{"generation":2}})");
  SetStatusCondition(o, {"Ready", "True", "Ok", "fine"}, At("2024-05-01T12:00:00Z"));
  const std::string before = json::Serialize(o);
  EXPECT_FALSE(SetStatusCondition(o, {"Ready", "True", "Ok", "fine"}, At("2024-05-02T00:00:00Z")));
  EXPECT_EQ(json::Serialize(o), before);
}

TEST(ConditionsTest, NewGenerationIsAChangeWithoutATransition) {
  auto o = Obj(R"({"metadata":{"generation":2}})");
  SetStatusCondition(o, {"Ready", "True", "Ok", ""}, At("2024-05-01T12:00:00Z"));
  o["metadata"]["generation"].SetInt64(3);
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "True", "Ok", ""}, At("2024-05-01T14:00:00Z")));
  const json::Value* c = FindStatusCondition(o, "Ready");
  EXPECT_EQ((*c)["observedGeneration"].GetInt64(), 3);
  EXPECT_EQ(json::GetString(*c, {"lastTransitionTime"}), "2024-05-01T12:00:00Z");
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "True", "Ok", "", 9}, At("2024-05-01T14:00:00Z")));
  EXPECT_EQ((*FindStatusCondition(o, "Ready"))["observedGeneration"].GetInt64(), 9);
}

TEST(ConditionsTest, OtherConditionsAreLeftAloneAndRemoveDropsOne) {
  auto o = Obj(R"({"status":{"conditions":[{"type":"Other","status":"True"}]}})");
  SetStatusCondition(o, {"Ready", "True", "Ok", ""}, At("2024-05-01T12:00:00Z"));
  EXPECT_EQ(o["status"]["conditions"].Size(), 2u);
  EXPECT_TRUE(RemoveStatusCondition(o, "Other"));
  EXPECT_FALSE(RemoveStatusCondition(o, "Other"));
  EXPECT_EQ(o["status"]["conditions"].Size(), 1u);
  EXPECT_EQ(FindStatusCondition(o, "Other"), nullptr);
}

TEST(ConditionsTest, MalformedStatusShapesAreReplacedNotCrashedOn) {
  auto o = Obj(R"({"status":{"conditions":"oops"}})");
  EXPECT_EQ(FindStatusCondition(o, "Ready"), nullptr);
  EXPECT_TRUE(SetStatusCondition(o, {"Ready", "True", "Ok", ""}, At("2024-05-01T12:00:00Z")));
  EXPECT_TRUE(IsStatusConditionTrue(o, "Ready"));
  auto p = Obj(R"({"status":[1,2]})");
  EXPECT_TRUE(SetStatusCondition(p, {"Ready", "True", "Ok", ""}, At("2024-05-01T12:00:00Z")));
  auto q = Obj(R"({"status":{"conditions":[5,"x",{"type":"Ready","status":"False"}]}})");
  EXPECT_FALSE(IsStatusConditionTrue(q, "Ready"));
  EXPECT_FALSE(RemoveStatusCondition(p = Obj("[]"), "Ready"));
}

TEST(ConditionsTest, ObservedGenerationFollowsMetadataGeneration) {
  auto o = Obj(R"({"metadata":{"generation":4}})");
  EXPECT_TRUE(SetObservedGeneration(o));
  EXPECT_EQ(o["status"]["observedGeneration"].GetInt64(), 4);
  EXPECT_FALSE(SetObservedGeneration(o));
  auto none = Obj(R"({"metadata":{}})");
  EXPECT_FALSE(SetObservedGeneration(none));
  EXPECT_EQ(json::Find(none, {"status"}), nullptr);
}

}  // namespace
}  // namespace berth::shim

namespace berth::shim {
namespace {

TEST(ConditionsTest, ConditionTypesWithoutObservedGenerationCanOptOut) {
  auto o = std::move(*json::Parse(R"({"metadata":{"generation":3}})"));
  Condition c{"Available", "True", "Ok", ""};
  c.record_observed_generation = false;
  EXPECT_TRUE(SetStatusCondition(o, c, *ParseTimestamp("2024-05-01T12:00:00Z")));
  EXPECT_EQ(json::Find(*FindStatusCondition(o, "Available"), {"observedGeneration"}), nullptr);
}

}  // namespace
}  // namespace berth::shim
