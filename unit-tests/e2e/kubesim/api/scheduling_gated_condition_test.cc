// The pod strategy's applySchedulingGatedCondition: a pod created with scheduling gates says so in
// PodScheduled=False/SchedulingGated, as kube-apiserver writes it at create.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/pod_conditions.h"

namespace berth::kubesim {
namespace {

class SchedulingGatedConditionTest : public ::testing::Test {
 protected:
  SchedulingGatedConditionTest() : api_(ApiServerOptions{}, store_, registry_) {
    auto ns = json::Parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
    EXPECT_TRUE(api_.DoCreate(*api_.TypeOf("", "namespaces"), "", std::move(*ns), WriteOptions{"Strict", false, ""}).ok());
  }
  // Creates pod `name` with `spec_extra` merged into a one-container spec; returns the stored pod.
  rapidjson::Document CreatePod(const std::string& name, const std::string& spec_extra) {
    auto doc = json::Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                           R"("},"spec":{"containers":[{"name":"c","image":"x"}])" + spec_extra + "}}");
    EXPECT_TRUE(doc.has_value());
    OpResult r = api_.DoCreate(*api_.TypeOf("", "pods"), "default", std::move(*doc), WriteOptions{"Strict", false, ""});
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->body : "");
    return std::move(*json::Parse(store_.Get("/pods", "default", name)->json));
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

TEST_F(SchedulingGatedConditionTest, AGatedPodIsCreatedWithPodScheduledFalseSchedulingGated) {
  auto pod = CreatePod("gated", R"(,"schedulingGates":[{"name":"example.com/gate"}])");
  const auto* conditions = json::Find(pod, {"status", "conditions"});
  ASSERT_TRUE(conditions && conditions->IsArray());
  ASSERT_EQ(conditions->Size(), 1u);
  const auto& c = (*conditions)[0];
  EXPECT_EQ(json::GetString(c, {"type"}), "PodScheduled");
  EXPECT_EQ(json::GetString(c, {"status"}), "False");
  EXPECT_EQ(json::GetString(c, {"reason"}), "SchedulingGated");
  EXPECT_EQ(json::GetString(c, {"message"}), "Scheduling is blocked due to non-empty scheduling gates");
  EXPECT_EQ(json::GetString(pod, {"status", "phase"}), "Pending");
}

TEST_F(SchedulingGatedConditionTest, APodWithoutGatesOrWithAnEmptyListGetsNoCondition) {
  for (const auto& [name, extra] : {std::pair<std::string, std::string>{"plain", ""}, {"empty", R"(,"schedulingGates":[])"}}) {
    auto pod = CreatePod(name, extra);
    const auto* conditions = json::Find(pod, {"status", "conditions"});
    EXPECT_TRUE(!conditions || (conditions->IsArray() && conditions->Empty())) << name;
  }
}

TEST(ApplySchedulingGatedConditionTest, AnExistingPodScheduledConditionIsLeftAlone) {
  auto pod = json::Parse(R"({"spec":{"schedulingGates":[{"name":"g"}]},
                              "status":{"conditions":[{"type":"PodScheduled","status":"True"}]}})");
  ASSERT_TRUE(pod.has_value());
  ApplySchedulingGatedCondition(*pod, pod->GetAllocator());
  const auto& conditions = *json::Find(*pod, {"status", "conditions"});
  ASSERT_EQ(conditions.Size(), 1u);
  EXPECT_EQ(json::GetString(conditions[0], {"status"}), "True");
  EXPECT_FALSE(json::Find(conditions[0], {"reason"}));
  auto scalar = json::Parse("42");
  ApplySchedulingGatedCondition(*scalar, scalar->GetAllocator());  // not an object: untouched
  EXPECT_TRUE(scalar->IsInt());
}

}  // namespace
}  // namespace berth::kubesim
