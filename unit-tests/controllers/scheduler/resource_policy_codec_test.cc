// ReadResourcePolicyView: the KEP example's fields, defaults, and malformed input refused with the field named
// (never read as zero or "select everything").
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

using json::testing::Parse;

TEST(ResourcePolicyCodecTest, ReadsTheKepExample) {
  auto doc = Parse(R"({"metadata":{"name":"xxx","namespace":"ns"},"spec":{
    "matchLabelKeys":["pod-template-hash"],"matchPolicy":{"ignoreTerminatingPod":true},
    "podSelector":{"matchExpressions":[{"key":"key1","operator":"In","values":["value1"]}],
                   "matchLabels":{"key1":"value1"}},
    "strategy":"required",
    "units":[{"name":"unit1","priority":5,"maxCount":10,
              "nodeSelector":{"matchExpressions":[{"key":"key1","operator":"In","values":["value1"]}]}},
             {"name":"unit3","nodeSelector":{"matchLabels":{"key1":"value3"}}}]}})");
  auto view = ReadResourcePolicyView(doc);
  ASSERT_TRUE(view.has_value()) << view.error().message;
  EXPECT_EQ(view->namespace_name, "ns");
  EXPECT_EQ(view->match_label_keys, (std::vector<std::string>{"pod-template-hash"}));
  EXPECT_TRUE(view->ignore_terminating_pod);
  EXPECT_TRUE(view->required);
  EXPECT_TRUE(view->pod_selector.Matches(placement::LabelMap{{"key1", "value1"}}));
  EXPECT_FALSE(view->pod_selector.Matches(placement::LabelMap{{"key1", "value2"}}));
  ASSERT_EQ(view->units.size(), 2u);
  EXPECT_EQ(view->units[0].priority, 5);
  EXPECT_EQ(view->units[0].max_count, 10);
  EXPECT_EQ(view->units[1].priority, 0);
  EXPECT_FALSE(view->units[1].max_count.has_value());
  EXPECT_TRUE(placement::UnitMatchesNode(view->units[1].node_selector, "n", {{"key1", "value3"}}));
  EXPECT_FALSE(placement::UnitMatchesNode(view->units[0].node_selector, "n", {{"key1", "value3"}}));
}

TEST(ResourcePolicyCodecTest, DefaultsPreferAndAnAbsentSelectorSelectsEveryPod) {
  auto view = ReadResourcePolicyView(Parse(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"units":[]}})"));
  ASSERT_TRUE(view.has_value());
  EXPECT_FALSE(view->required);
  EXPECT_TRUE(view->pod_selector.Matches(placement::LabelMap{{"any", "thing"}}));
}

TEST(ResourcePolicyCodecTest, MalformedFieldsAreErrorsNamingTheField) {
  struct Case {
    const char* spec;
    const char* error;
  };
  const Case cases[] = {
      {R"({"strategy":"sometimes"})", "spec.strategy: unsupported value \"sometimes\""},
      {R"({"units":[{"name":"a","priority":-1}]})", "spec.units[0].priority: must be an int32 >= 0, got -1"},
      {R"({"units":[{"name":"a","maxCount":"4"}]})", "spec.units[0].maxCount: must be an int32 >= 0, got \"4\""},
      {R"({"units":[{"name":"a","maxCount":4294967296}]})", "spec.units[0].maxCount: must be an int32 >= 0"},
      {R"({"units":[{"name":"a","priority":1.5}]})", "spec.units[0].priority: must be an int32 >= 0, got 1.5"},
      {R"({"units":["a"]})", "spec.units[0]: must be an object"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"Like"}]}}]})",
       "spec.units[0].nodeSelector.matchExpressions[0].operator: Unsupported value: \"Like\""},
      // A unit's nodeSelector is checked as the API server checks node selector requirements:
      // values that would be ignored or read as "matches nothing" are errors, not meanings.
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"Exists","values":["v"]}]}}]})",
       "spec.units[0].nodeSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is "
       "'Exists' or 'DoesNotExist'"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"NotIn"}]}}]})",
       "spec.units[0].nodeSelector.matchExpressions[0].values: Required value: must be specified when `operator` is "
       "'In' or 'NotIn'"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"In","values":[]}]}}]})",
       "matchExpressions[0].values: Required value"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"Gt","values":["1","2"]}]}}]})",
       "matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"Lt","values":["ten"]}]}}]})",
       "matchExpressions[0].values[0]: Invalid value: \"ten\": must be an integer"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"operator":"Exists"}]}}]})",
       "spec.units[0].nodeSelector.matchExpressions[0].key: Required value"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"-bad-","operator":"Exists"}]}}]})",
       "matchExpressions[0].key: Invalid value: \"-bad-\""},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":[{"key":"k","operator":"In","values":[1]}]}}]})",
       "matchExpressions[0].values: must be an array of strings"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchExpressions":{"key":"k"}}}]})",
       "spec.units[0].nodeSelector.matchExpressions: must be an array"},
      {R"({"units":[{"name":"a","nodeSelector":{"matchLabels":{"bad key":"v"}}}]})",
       "spec.units[0].nodeSelector.matchLabels: Invalid value: \"bad key\""},
      {R"({"units":[{"name":"a","nodeSelector":{"matchLabels":{"k":"not a value"}}}]})",
       "spec.units[0].nodeSelector.matchLabels[k]: Invalid value: \"not a value\""},
      {R"({"units":[{"name":"a","nodeSelector":{"matchLabels":{"k":3}}}]})",
       "spec.units[0].nodeSelector.matchLabels[k]: must be a string"},
      {R"({"units":[{"name":"a","nodeSelector":"pool=spot"}]})", "spec.units[0].nodeSelector: must be an object"},
      {R"({"podSelector":{"matchExpressions":[{"key":"k","operator":"In"}]}})", "spec.podSelector: "},
  };
  for (const Case& c : cases) {
    auto doc = Parse(std::string(R"({"metadata":{"name":"p","namespace":"ns"},"spec":)") + c.spec + "}");
    auto view = ReadResourcePolicyView(doc);
    ASSERT_FALSE(view.has_value()) << c.spec;
    EXPECT_NE(view.error().message.find(c.error), std::string::npos) << view.error().message;
  }
}

TEST(ResourcePolicyCodecTest, UnitNodeSelectorsWithEveryOperatorStillRead) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"units":[{"name":"a","nodeSelector":{
    "matchLabels":{"zone":"z1"},
    "matchExpressions":[{"key":"cores","operator":"Gt","values":["8"]},{"key":"cores","operator":"Lt","values":["-1"]},
                        {"key":"pool","operator":"NotIn","values":["spot"]},{"key":"gpu","operator":"DoesNotExist"}]}}]}})");
  auto view = ReadResourcePolicyView(doc);
  ASSERT_TRUE(view.has_value()) << view.error().message;
  ASSERT_EQ(view->units.size(), 1u);
  EXPECT_EQ(view->units[0].node_selector.match_labels, (placement::LabelMap{{"zone", "z1"}}));
  ASSERT_EQ(view->units[0].node_selector.match_expressions.size(), 4u);
  EXPECT_EQ(view->units[0].node_selector.match_expressions[0].op, placement::NodeSelectorOperator::kGt);
  EXPECT_EQ(view->units[0].node_selector.match_expressions[3].op, placement::NodeSelectorOperator::kDoesNotExist);
}

}  // namespace
}  // namespace berth::controllers
