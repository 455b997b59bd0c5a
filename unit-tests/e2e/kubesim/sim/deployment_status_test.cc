#include "e2e/kubesim/sim/deployment_status.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

rapidjson::Document Doc(const std::string& text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

shim::TimePoint At(const char* text) { return *shim::ParseTimestamp(text); }

const rapidjson::Value* Cond(const rapidjson::Value& status, std::string_view type) {
  for (const auto& c : status["conditions"].GetArray()) {
    if (json::GetString(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

TEST(DeploymentStatusBuilderTest, CountsAreSummedAndZerosOmitted) {
  auto d = Doc(R"({"metadata":{"name":"web","generation":3},"spec":{"replicas":3,"progressDeadlineSeconds":600}})");
  DeploymentStatusBuilder b(d, 0, At("2024-01-01T00:00:00Z"));
  auto s = b.Build({{2, 2, 2, 1, false}, {1, 1, 0, 0, true}}, "web-abc", false);
  EXPECT_EQ(s["observedGeneration"].GetInt64(), 3);
  EXPECT_EQ(s["replicas"].GetInt64(), 3);
  EXPECT_EQ(s["updatedReplicas"].GetInt64(), 1);
  EXPECT_EQ(s["readyReplicas"].GetInt64(), 2);
  EXPECT_EQ(s["availableReplicas"].GetInt64(), 1);
  EXPECT_EQ(s["unavailableReplicas"].GetInt64(), 2);
  EXPECT_FALSE(s.HasMember("collisionCount"));
  EXPECT_EQ(json::GetString(*Cond(s, "Available"), {"reason"}), "MinimumReplicasUnavailable");
  EXPECT_EQ(json::GetString(*Cond(s, "Progressing"), {"reason"}), "ReplicaSetUpdated");
  EXPECT_EQ(json::GetString(*Cond(s, "Progressing"), {"message"}), "ReplicaSet \"web-abc\" is progressing.");
  auto none = DeploymentStatusBuilder(d, 0, At("2024-01-01T00:00:00Z")).Build({}, "", false);
  EXPECT_FALSE(none.HasMember("replicas"));
}

TEST(DeploymentStatusBuilderTest, AnUnchangedConditionKeepsItsTimesAndAChangedReasonKeepsTheTransitionTime) {
  auto d = Doc(R"({"metadata":{"name":"web","generation":1},"spec":{"replicas":1,"progressDeadlineSeconds":600},
    "status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"availableReplicas":1,"conditions":[
    {"type":"Available","status":"True","lastUpdateTime":"2024-01-01T00:00:00Z","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."},
    {"type":"Progressing","status":"True","lastUpdateTime":"2024-01-01T00:00:05Z","lastTransitionTime":"2024-01-01T00:00:01Z","reason":"ReplicaSetUpdated","message":"x"}]}})");
  DeploymentStatusBuilder b(d, 0, At("2024-01-01T00:01:00Z"));
  auto s = b.Build({{1, 1, 1, 1, true}}, "web-abc", false);
  EXPECT_EQ(json::GetString(*Cond(s, "Available"), {"lastUpdateTime"}), "2024-01-01T00:00:00Z");
  const rapidjson::Value& p = *Cond(s, "Progressing");
  EXPECT_EQ(json::GetString(p, {"reason"}), "NewReplicaSetAvailable");
  EXPECT_EQ(json::GetString(p, {"message"}), "ReplicaSet \"web-abc\" has successfully progressed.");
  EXPECT_EQ(json::GetString(p, {"lastTransitionTime"}), "2024-01-01T00:00:01Z");
  EXPECT_EQ(json::GetString(p, {"lastUpdateTime"}), "2024-01-01T00:01:00Z");
  EXPECT_FALSE(b.RecheckAfter().has_value());
}

TEST(DeploymentStatusBuilderTest, ARolloutWithoutProgressPastTheDeadlineTimesOut) {
  std::string text = R"({"metadata":{"name":"web","generation":1},"spec":{"replicas":2,"progressDeadlineSeconds":60},
    "status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"unavailableReplicas":2,"conditions":[
    {"type":"Progressing","status":"True","lastUpdateTime":"2024-01-01T00:00:00Z","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"ReplicaSetUpdated","message":"x"}]}})";
  auto d = Doc(text);
  DeploymentStatusBuilder early(d, 0, At("2024-01-01T00:00:30Z"));
  auto s = early.Build({{2, 2, 0, 0, true}}, "web-abc", false);
  EXPECT_EQ(json::GetString(*Cond(s, "Progressing"), {"reason"}), "ReplicaSetUpdated");
  ASSERT_TRUE(early.RecheckAfter().has_value());
  EXPECT_EQ(*early.RecheckAfter(), std::chrono::milliseconds(31000));
  DeploymentStatusBuilder late(d, 0, At("2024-01-01T00:01:01Z"));
  s = late.Build({{2, 2, 0, 0, true}}, "web-abc", false);
  const rapidjson::Value& p = *Cond(s, "Progressing");
  EXPECT_EQ(json::GetString(p, {"status"}), "False");
  EXPECT_EQ(json::GetString(p, {"reason"}), "ProgressDeadlineExceeded");
  EXPECT_EQ(json::GetString(p, {"message"}), "ReplicaSet \"web-abc\" has timed out progressing.");
}

TEST(DeploymentStatusBuilderTest, PausingAndResumingSetUnknownProgressing) {
  auto d = Doc(R"({"metadata":{"name":"web"},"spec":{"replicas":1}})");
  DeploymentStatusBuilder b(d, 0, At("2024-01-01T00:00:00Z"));
  b.CheckPaused(true);
  auto s = b.Build({}, "", true);
  EXPECT_EQ(json::GetString(*Cond(s, "Progressing"), {"reason"}), "DeploymentPaused");
  EXPECT_EQ(json::GetString(*Cond(s, "Progressing"), {"message"}), "Deployment is paused");
  rapidjson::Document paused(rapidjson::kObjectType);
  paused.CopyFrom(d, paused.GetAllocator());
  json::SetMember(paused, "status", rapidjson::Value(s, paused.GetAllocator()), paused.GetAllocator());
  DeploymentStatusBuilder resumed(paused, 0, At("2024-01-01T00:00:00Z"));
  resumed.CheckPaused(false);
  EXPECT_EQ(json::GetString(*Cond(resumed.Build({}, "", true), "Progressing"), {"reason"}), "DeploymentResumed");
}

TEST(DeploymentStatusBuilderTest, MalformedStatusIsIgnored) {
  auto d = Doc(R"({"metadata":{"name":"web"},"spec":{"replicas":"two","progressDeadlineSeconds":"x"},"status":{"conditions":[7,"a"],"collisionCount":"1"}})");
  DeploymentStatusBuilder b(d, 0, At("2024-01-01T00:00:00Z"));
  auto s = b.Build({}, "", false);
  EXPECT_FALSE(s.HasMember("collisionCount"));
  EXPECT_EQ(s["conditions"].Size(), 1u);  // only Available: no deadline, so no Progressing
}

}  // namespace
}  // namespace berth::kubesim
