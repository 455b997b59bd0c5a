// kubesim refuses pods whose scheduling constraints kube-apiserver's validation refuses, with its
// field paths and wording (ValidatePodSpec's affinity and topologySpreadConstraints parts).
#include "e2e/kubesim/api/pod_scheduling_validation.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/builtin_defaults.h"
#include "e2e/kubesim/api/registry.h"

namespace berth::kubesim {
namespace {

rapidjson::Document Parse(const char* text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

std::vector<std::string> Messages(const std::vector<StatusCause>& causes) {
  std::vector<std::string> out;
  for (const auto& c : causes) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST(PodSchedulingValidationTest, PreferredNodeAffinityWeightsAndRequirements) {
  auto spec = Parse(R"({"affinity":{"nodeAffinity":{
    "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]},
    "preferredDuringSchedulingIgnoredDuringExecution":[
      {"weight":0,"preference":{}},
      {"weight":101,"preference":{"matchExpressions":[{"key":"disk","operator":"Bogus"}]}},
      {"weight":"abc","preference":{"matchExpressions":[{"key":"disk","operator":"In"},
                                                       {"key":"disk","operator":"Exists","values":["a"]},
                                                       {"key":"cores","operator":"Gt","values":["1","2"]}]}},
      {"weight":5,"preference":{"matchFields":[{"key":"metadata.labels","operator":"In","values":["a","b"]}]}},
      {"weight":5,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}}]}}})");
  std::vector<StatusCause> causes;
  ValidatePodScheduling(spec, "spec", causes);
  const std::string p = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  const std::vector<std::string> want = {
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: "
      "must have at least one node selector term",
      p + "[0].weight: Invalid value: 0: must be in the range 1-100",
      p + "[1].weight: Invalid value: 101: must be in the range 1-100",
      p + "[1].preference.matchExpressions[0].operator: Invalid value: \"Bogus\": not a valid selector operator",
      p + "[2].weight: Invalid value: \"abc\": must be in the range 1-100",
      p + "[2].preference.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
          "'NotIn'",
      p + "[2].preference.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
          "'DoesNotExist'",
      p + "[2].preference.matchExpressions[2].values: Required value: must be specified single value when `operator` "
          "is 'Lt' or 'Gt'",
      p + "[3].preference.matchFields[0].values: Required value: must be only one value when `operator` is 'In' or "
          "'NotIn' for node field selector",
      p + "[3].preference.matchFields[0].key: Invalid value: \"metadata.labels\": not a valid field selector key",
  };
  EXPECT_EQ(Messages(causes), want);
  EXPECT_EQ(causes[1].reason, "FieldValueInvalid");
  EXPECT_EQ(causes[5].reason, "FieldValueRequired");
  EXPECT_EQ(causes[6].reason, "FieldValueForbidden");
}

TEST(PodSchedulingValidationTest, PodAffinityTermsAndSpreadConstraints) {
  auto spec = Parse(R"({"affinity":{"podAntiAffinity":{
      "requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{}}],
      "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":200,"podAffinityTerm":{"topologyKey":"zone"}}]}},
    "topologySpreadConstraints":[
      {"maxSkew":0,"topologyKey":"","whenUnsatisfiable":"Sometimes","minDomains":0,"nodeTaintsPolicy":"Maybe"},
      {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]})");
  std::vector<StatusCause> causes;
  ValidatePodScheduling(spec, "spec", causes);
  const std::vector<std::string> want = {
      "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: "
      "can not be empty",
      "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 200: "
      "must be in the range 1-100",
      "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
      "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
      "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: "
      "\"DoNotSchedule\", \"ScheduleAnyway\"",
      "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero",
      "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Maybe\": supported values: "
      "\"Honor\", \"Ignore\"",
  };
  EXPECT_EQ(Messages(causes), want);
}

TEST(PodSchedulingValidationTest, PodsAndWorkloadTemplatesAreValidatedOnCreate) {
  Registry registry;
  auto pods = registry.Find("", "v1", "pods");
  auto replicasets = registry.Find("apps", "v1", "replicasets");
  ASSERT_TRUE(pods && replicasets);
  auto pod = Parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],
    "affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"preference":{}}]}}}})");
  EXPECT_EQ(Messages(ValidateBuiltin(*pods, pod)),
            std::vector<std::string>{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
                                     ".weight: Invalid value: 0: must be in the range 1-100"});
  auto rs = Parse(R"({"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{
    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Never"}]}}}})");
  EXPECT_EQ(Messages(ValidateBuiltin(*replicasets, rs)),
            std::vector<std::string>{"spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported "
                                     "value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""});
  auto valid = Parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],
    "affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{}}]}}}})");
  EXPECT_TRUE(ValidateBuiltin(*pods, valid).empty());
}

}  // namespace
}  // namespace berth::kubesim
