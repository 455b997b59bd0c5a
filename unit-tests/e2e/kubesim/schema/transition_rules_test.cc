// x-kubernetes-validations transition rules: kubesim enforces `self == oldSelf` at any correlatable
// node with kube-apiserver's wording and ignores every other rule.
#include "e2e/kubesim/schema/transition_rules.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using testing::ParseJson;

// The ProvisioningRequest shape: the rule on spec, plus upstream's per-field rules deeper down.
constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "Value is immutable"}],
      "properties": {
        "podSets": {"type": "array", "items": {"type": "object", "properties": {
          "count": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}},
        "className": {"type": "string",
                      "x-kubernetes-validations": [{"rule": " oldSelf==self ", "message": " Class is immutable "}]},
        "parameters": {"type": "object", "additionalProperties": {"type": "string",
                       "x-kubernetes-validations": [{"rule": "self == oldSelf", "reason": "FieldValueForbidden",
                                                     "message": "parameter values are fixed"}]}},
        "other": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() > 3", "message": "long"}]},
        "labels": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"},
                   "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "labels are fixed"}]},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {"name": {"type": "string"},
                            "port": {"type": "integer", "x-kubernetes-validations": [
                              {"rule": "self == oldSelf", "message": "port is fixed", "fieldPath": ".x"}]}}}}
      }
    },
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
  }
})";

std::vector<Cause> Check(const char* new_object, const char* old_object) {
  auto schema = ParseJson(kSchema);
  auto now = ParseJson(new_object);
  auto old = ParseJson(old_object);
  return ValidateTransitionRules(schema, now, old);
}

TEST(TransitionRulesTest, AnUnchangedSpecPassesWhateverElseChanged) {
  EXPECT_TRUE(Check(R"({"metadata":{"labels":{"a":"b"}},"spec":{"className":"x"},"status":{"phase":"Done"}})",
                    R"({"metadata":{},"spec":{"className":"x"}})")
                  .empty());
}

TEST(TransitionRulesTest, AChangedSpecFailsAtSpecWithTheApiserverWording) {
  auto causes = Check(R"({"spec":{"podSets":[{"count":2}]}})", R"({"spec":{"podSets":[{"count":1}]}})");
  ASSERT_EQ(causes.size(), 1u);  // count is inside an atomic list: its own rule does not correlate
  EXPECT_EQ(causes[0], (Cause{"FieldValueInvalid", "spec", "Invalid value: \"object\": Value is immutable"}));
  EXPECT_EQ(FormatCause(causes[0]), "spec: Invalid value: \"object\": Value is immutable");
}

TEST(TransitionRulesTest, NestedRulesReportTheirOwnPathTypeMessageAndReason) {
  auto causes = Check(R"({"spec":{"className":"b","parameters":{"noRetry":"false","keep":"1"}}})",
                      R"({"spec":{"className":"a","parameters":{"noRetry":"true","keep":"1"}}})");
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0], (Cause{"FieldValueInvalid", "spec", "Invalid value: \"object\": Value is immutable"}));
  EXPECT_EQ(causes[1], (Cause{"FieldValueInvalid", "spec.className", "Invalid value: \"string\": Class is immutable"}));
  EXPECT_EQ(causes[2], (Cause{"FieldValueForbidden", "spec.parameters[noRetry]", "Forbidden: parameter values are fixed"}));
}

TEST(TransitionRulesTest, ARuleWithoutMessageSaysWhichRuleFailed) {
  auto schema = ParseJson(R"({"type":"object","properties":{"n":{"type":"integer",
      "x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}})");
  auto causes = ValidateTransitionRules(schema, ParseJson(R"({"n":2})"), ParseJson(R"({"n":1})"));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0], (Cause{"FieldValueInvalid", "n", "Invalid value: \"integer\": failed rule: self == oldSelf"}));
}

TEST(TransitionRulesTest, NewlySetFieldsHaveNoOldSelfAndPass) {
  auto schema = ParseJson(kSchema);
  // className and parameters appear for the first time; spec itself is new too.
  EXPECT_TRUE(ValidateTransitionRules(schema, ParseJson(R"({"spec":{"className":"a"}})"), ParseJson(R"({})")).empty());
}

TEST(TransitionRulesTest, OtherRulesAreIgnored) {
  auto schema = ParseJson(R"({"type":"object","properties":{"s":{"type":"string",
      "x-kubernetes-validations":[{"rule":"self.size() > 3","message":"long"},{"rule":"self != oldSelf"}]}}})");
  EXPECT_TRUE(ValidateTransitionRules(schema, ParseJson(R"({"s":"a"})"), ParseJson(R"({"s":"a"})")).empty());
}

TEST(TransitionRulesTest, EqualityIsCelsKeyOrderNumbersAndSetOrder) {
  auto schema = ParseJson(kSchema);
  EXPECT_TRUE(CelEquals(&schema["properties"]["spec"], ParseJson(R"({"className":"a","podSets":[{"count":1}]})"),
                        ParseJson(R"({"podSets":[{"count":1.0}],"className":"a"})")));
  const auto& spec = schema["properties"]["spec"];
  EXPECT_TRUE(CelEquals(&spec, ParseJson(R"({"labels":["a","b"]})"), ParseJson(R"({"labels":["b","a"]})")));
  EXPECT_FALSE(CelEquals(&spec, ParseJson(R"({"podSets":[{"count":1},{"count":2}]})"),
                         ParseJson(R"({"podSets":[{"count":2},{"count":1}]})")));
  EXPECT_FALSE(CelEquals(&spec, ParseJson(R"({"labels":["a"]})"), ParseJson(R"({"labels":["a","a"]})")));
  EXPECT_FALSE(CelEquals(nullptr, ParseJson(R"({"a":1})"), ParseJson(R"({"a":1,"b":null})")));
  EXPECT_FALSE(CelEquals(nullptr, ParseJson(R"("1")"), ParseJson(R"(1)")));
}

TEST(TransitionRulesTest, MapListItemsCorrelateByKeyWhateverTheirPosition) {
  const char* old_object = R"({"x":{"ports":[{"name":"a","port":1},{"name":"b","port":2}]}})";
  auto schema = ParseJson(R"({"type":"object","properties":{"x":)" + std::string(R"({"type":"object","properties":{)") +
                          R"("ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],)"
                          R"("items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer",)"
                          R"("x-kubernetes-validations":[{"rule":"self == oldSelf","message":"port is fixed","fieldPath":".x"}]}}}}}}}})");
  // Reordered and one added: fine.
  EXPECT_TRUE(ValidateTransitionRules(schema, ParseJson(R"({"x":{"ports":[{"name":"c","port":9},{"name":"b","port":2},{"name":"a","port":1}]}})"),
                                      ParseJson(old_object))
                  .empty());
  auto causes = ValidateTransitionRules(schema, ParseJson(R"({"x":{"ports":[{"name":"b","port":3},{"name":"a","port":1}]}})"),
                                        ParseJson(old_object));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0], (Cause{"FieldValueInvalid", "x.ports[0].port.x", "Invalid value: \"integer\": port is fixed"}));
}

TEST(TransitionRulesTest, TheRuleFormsKubesimEvaluates) {
  EXPECT_TRUE(IsImmutabilityRule("self == oldSelf"));
  EXPECT_TRUE(IsImmutabilityRule("oldSelf==self"));
  EXPECT_TRUE(IsImmutabilityRule("  self\n==  oldSelf "));
  EXPECT_FALSE(IsImmutabilityRule("self != oldSelf"));
  EXPECT_FALSE(IsImmutabilityRule("self == oldSelf || true"));
  EXPECT_FALSE(IsImmutabilityRule("self.x == oldSelf.x"));
  EXPECT_FALSE(IsImmutabilityRule(""));
}

TEST(TransitionRulesTest, MalformedSchemasAndRulesAreIgnoredNotFatal) {
  auto now = ParseJson(R"({"a":{"b":1}})");
  auto old = ParseJson(R"({"a":{"b":2}})");
  for (const char* schema : {R"("not an object")", R"({"properties":[]})", R"({"properties":{"a":"x"}})",
                             R"({"properties":{"a":{"x-kubernetes-validations":"self == oldSelf"}}})",
                             R"({"properties":{"a":{"x-kubernetes-validations":[{"rule":5},"self == oldSelf"]}}})"}) {
    EXPECT_TRUE(ValidateTransitionRules(ParseJson(schema), now, old).empty()) << schema;
  }
}

}  // namespace
}  // namespace berth::kubesim::schema
