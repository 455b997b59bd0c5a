#include "e2e/kubesim/api/update_validation.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

ResourceType Type(std::string group, std::string plural) {
  ResourceType t;
  t.group = std::move(group);
  t.plural = std::move(plural);
  return t;
}

rapidjson::Document Parse(const char* text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document();
}

constexpr const char* kPod =
    R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"activeDeadlineSeconds":5,)"
    R"("tolerations":[{"key":"a","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}})";

TEST(UpdateValidationTest, PodImageDeadlineAndAddedTolerationsMayChange) {
  auto old_pod = Parse(kPod);
  auto new_pod = Parse(
      R"({"spec":{"containers":[{"name":"main","image":"busybox:2"}],"activeDeadlineSeconds":9,)"
      R"("tolerations":[{"key":"a","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},{"key":"b"}]}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "pods"), new_pod, old_pod).empty());
}

TEST(UpdateValidationTest, PodCommandChangeIsForbiddenWithTheApiserverWording) {
  auto old_pod = Parse(kPod);
  auto new_pod = Parse(kPod);
  json::SetMember(new_pod["spec"]["containers"][0], "command", rapidjson::Value(rapidjson::kArrayType),
                  new_pod.GetAllocator());
  auto causes = ValidateBuiltinUpdate(Type("", "pods"), new_pod, old_pod);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec");
  EXPECT_EQ(causes[0].reason, "FieldValueForbidden");
  EXPECT_TRUE(causes[0].message.starts_with(
      "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
      "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
      "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"))
      << causes[0].message;
  EXPECT_NE(causes[0].message.find("+ \tcontainers:"), std::string::npos);
}

TEST(UpdateValidationTest, RemovingAnExistingTolerationOrAContainerIsForbidden) {
  auto old_pod = Parse(kPod);
  auto no_tols = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"activeDeadlineSeconds":5}})");
  auto causes = ValidateBuiltinUpdate(Type("", "pods"), no_tols, old_pod);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.tolerations");
  auto two = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"},{"name":"x","image":"y"}]}})");
  causes = ValidateBuiltinUpdate(Type("", "pods"), two, old_pod);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].message, "Forbidden: pod updates may not add or remove containers");
}

TEST(UpdateValidationTest, SchedulingGatesMayOnlyBeRemoved) {
  auto old_pod = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"schedulingGates":[{"name":"g1"}]}})");
  auto removed = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}]}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "pods"), removed, old_pod).empty());
  auto added = Parse(
      R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"schedulingGates":[{"name":"g1"},{"name":"g2"}]}})");
  auto causes = ValidateBuiltinUpdate(Type("", "pods"), added, old_pod);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.schedulingGates[1].name");
  EXPECT_EQ(causes[0].reason, "FieldValueForbidden");
  EXPECT_EQ(causes[0].message, "Forbidden: only deletion is allowed, but found new scheduling gate 'g2'");
  // Gating a pod that was created without gates is adding one too.
  causes = ValidateBuiltinUpdate(Type("", "pods"), old_pod, removed);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.schedulingGates[0].name");
}

TEST(UpdateValidationTest, AGatedPodsNodeSelectorMayBeExtendedButNotChanged) {
  auto gated = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"schedulingGates":[{"name":"g"}],)"
                     R"("nodeSelector":{"a":"b"}}})");
  auto extended = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"schedulingGates":[{"name":"g"}],)"
                        R"("nodeSelector":{"a":"b","c":"d"}}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "pods"), extended, gated).empty());
  auto changed = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"schedulingGates":[{"name":"g"}],)"
                       R"("nodeSelector":{"a":"z","c":"d"}}})");
  auto causes = ValidateBuiltinUpdate(Type("", "pods"), changed, gated);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.nodeSelector");
  EXPECT_EQ(causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(causes[0].message,
            R"(Invalid value: {"a":"z","c":"d"}: only additions to spec.nodeSelector are allowed (no mutations or deletions))");
  // The last gate removed in the same update as the selector is extended: the old pod was gated.
  auto released = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"nodeSelector":{"a":"b","c":"d"}}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "pods"), released, gated).empty());
  // Once it is no longer gated, the selector is as immutable as the rest of the spec.
  auto ungated = Parse(R"({"spec":{"containers":[{"name":"main","image":"busybox"}],"nodeSelector":{"a":"b"}}})");
  causes = ValidateBuiltinUpdate(Type("", "pods"), released, ungated);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec");
}

TEST(UpdateValidationTest, NegativeGracePeriodMayBecomeOne) {
  auto old_pod = Parse(R"({"spec":{"containers":[{"name":"m","image":"i"}],"terminationGracePeriodSeconds":-1}})");
  auto one = Parse(R"({"spec":{"containers":[{"name":"m","image":"i"}],"terminationGracePeriodSeconds":1}})");
  auto two = Parse(R"({"spec":{"containers":[{"name":"m","image":"i"}],"terminationGracePeriodSeconds":2}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "pods"), one, old_pod).empty());
  EXPECT_EQ(ValidateBuiltinUpdate(Type("", "pods"), two, old_pod).size(), 1u);
}

TEST(UpdateValidationTest, WorkloadSelectorIsImmutable) {
  auto old_dep = Parse(R"({"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}}}})");
  auto scaled = Parse(R"({"spec":{"replicas":3,"selector":{"matchLabels":{"app":"a"}}}})");
  auto moved = Parse(R"({"spec":{"replicas":1,"selector":{"matchLabels":{"app":"b"}}}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("apps", "deployments"), scaled, old_dep).empty());
  auto causes = ValidateBuiltinUpdate(Type("apps", "deployments"), moved, old_dep);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.selector");
  EXPECT_EQ(causes[0].message,
            "Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}, "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
}

TEST(UpdateValidationTest, NodePodCidrMayBeSetOnceButNotChanged) {
  auto unset = Parse(R"({"spec":{}})");
  auto set = Parse(R"({"spec":{"podCIDR":"10.0.0.0/24"}})");
  auto changed = Parse(R"({"spec":{"podCIDR":"10.0.1.0/24"}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "nodes"), set, unset).empty());
  EXPECT_EQ(ValidateBuiltinUpdate(Type("", "nodes"), changed, set).size(), 1u);
}

TEST(UpdateValidationTest, OtherKindsAndCustomResourcesHaveNoUpdateRules) {
  auto a = Parse(R"({"data":{"x":"1"}})");
  auto b = Parse(R"({"data":{"x":"2"}})");
  EXPECT_TRUE(ValidateBuiltinUpdate(Type("", "configmaps"), b, a).empty());
}

}  // namespace
}  // namespace berth::kubesim
