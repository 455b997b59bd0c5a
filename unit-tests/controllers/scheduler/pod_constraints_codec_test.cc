// pod_constraints_codec: pod affinity terms, topology spread constraints and preferred node
// affinity from a pod's JSON; matchLabelKeys merged; malformed fields named, never fatal.
#include "controllers/scheduler/pod_constraints_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/placement/snapshot.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

using json::testing::Parse;

TEST(PodConstraintsCodecTest, AffinityTermsResolveNamespacesAndMergeMatchLabelKeys) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u","labels":{"app":"web","rev":"7"}},
    "spec":{"affinity":{
      "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname",
         "matchLabelKeys":["rev","absent"],"mismatchLabelKeys":["app"]}]},
      "podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":40,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"zone",
         "namespaceSelector":{}}}]},
      "nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":5,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}}]}}}})");
  placement::PodSpecView view = ReadPodView(doc);
  EXPECT_TRUE(view.request_errors.empty());
  ASSERT_NE(view.pod_affinity, nullptr);
  ASSERT_EQ(view.pod_affinity->required_anti_affinity.size(), 1u);
  const placement::PodAffinityTerm& anti = view.pod_affinity->required_anti_affinity[0];
  EXPECT_EQ(anti.namespaces, std::vector<std::string>{"ns"});  // none given: the pod's own
  EXPECT_FALSE(anti.namespace_selector.has_value());
  // app=web, rev in (7), app notin (web): matches nothing with app=web; "absent" is skipped.
  EXPECT_FALSE(anti.selector.Matches(placement::LabelMap{{"app", "web"}, {"rev", "7"}}));
  EXPECT_EQ(anti.selector.String(), "app=web,app notin (web),rev in (7)");
  ASSERT_EQ(view.pod_affinity->preferred_affinity.size(), 1u);
  const placement::PodAffinityTerm& pref = view.pod_affinity->preferred_affinity[0];
  EXPECT_EQ(pref.weight, 40);
  EXPECT_TRUE(pref.namespaces.empty());
  ASSERT_TRUE(pref.namespace_selector.has_value());
  EXPECT_TRUE(pref.namespace_selector->Empty());  // {}: every namespace
  ASSERT_EQ(view.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(view.preferred_node_affinity[0].weight, 5);
}

TEST(PodConstraintsCodecTest, SpreadConstraintsWithDefaultsAndMatchLabelKeys) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u","labels":{"app":"web","hash":"abc"}},
    "spec":{"topologySpreadConstraints":[
      {"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway",
       "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["hash"]},
      {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule","minDomains":3,
       "nodeAffinityPolicy":"Ignore","nodeTaintsPolicy":"Honor"}]}})");
  placement::PodSpecView view = ReadPodView(doc);
  EXPECT_TRUE(view.request_errors.empty());
  ASSERT_EQ(view.topology_spread.size(), 2u);
  const auto& soft = view.topology_spread[0];
  EXPECT_FALSE(soft.do_not_schedule);
  EXPECT_EQ(soft.max_skew, 2);
  EXPECT_TRUE(soft.honor_node_affinity);   // default Honor
  EXPECT_FALSE(soft.honor_node_taints);    // default Ignore
  EXPECT_EQ(soft.selector.String(), "app=web,hash in (abc)");
  const auto& hard = view.topology_spread[1];
  EXPECT_TRUE(hard.do_not_schedule);
  EXPECT_EQ(hard.min_domains, 3);
  EXPECT_FALSE(hard.honor_node_affinity);
  EXPECT_TRUE(hard.honor_node_taints);
  EXPECT_TRUE(hard.selector.IsNothing());  // no labelSelector: no pod matches
}

TEST(PodConstraintsCodecTest, MalformedConstraintsAreErrorsNamingTheField) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},
    "spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"labelSelector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]},"topologyKey":"zone"},
        {"labelSelector":{},"topologyKey":""}]}},
      "topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"},
        {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Sometimes"},
        {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","nodeTaintsPolicy":"Maybe"},
        "oops"]}})");
  placement::PodSpecView view = ReadPodView(doc);
  ASSERT_EQ(view.request_errors.size(), 6u);
  EXPECT_EQ(view.request_errors[0].rfind(
                "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: ", 0),
            0u)
      << view.request_errors[0];
  EXPECT_EQ(view.request_errors[1],
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey: Required value: "
            "can not be empty");
  EXPECT_EQ(view.request_errors[2], "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero");
  EXPECT_EQ(view.request_errors[3],
            "spec.topologySpreadConstraints[1].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: "
            "\"DoNotSchedule\", \"ScheduleAnyway\"");
  EXPECT_EQ(view.request_errors[4],
            "spec.topologySpreadConstraints[2].nodeTaintsPolicy: Unsupported value: \"Maybe\": supported values: "
            "\"Honor\", \"Ignore\"");
  EXPECT_EQ(view.request_errors[5], "spec.topologySpreadConstraints[3]: must be an object");
  EXPECT_EQ(view.pod_affinity, nullptr);
  EXPECT_TRUE(view.topology_spread.empty());
}

TEST(PodConstraintsCodecTest, AReservationCarriesItsTemplatePodForOthersAffinity) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"ru"},"spec":{"template":{
      "metadata":{"namespace":"team","labels":{"app":"web"}},
      "spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"labelSelector":{"matchLabels":{"app":"batch"}},"topologyKey":"kubernetes.io/hostname"}]}},
        "containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}},"ttl":"1h"}})");
  placement::ReservationView view = ReadReservationView(doc);
  EXPECT_EQ(view.template_namespace, "team");
  EXPECT_EQ(view.template_labels.at("app"), "web");
  ASSERT_NE(view.template_affinity, nullptr);
  ASSERT_EQ(view.template_affinity->required_anti_affinity.size(), 1u);
  EXPECT_EQ(view.template_affinity->required_anti_affinity[0].namespaces, std::vector<std::string>{"team"});
}

// Every malformed preferred node-affinity entry is an error with the apiserver's field path and
// wording (validatePreferredSchedulingTerms, ValidateNodeSelectorRequirement,
// ValidateNodeFieldSelectorRequirement); none is skipped, and the well-formed one is still read.
TEST(PodConstraintsCodecTest, MalformedPreferredNodeAffinityIsNamedNotSkipped) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},
    "spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
      {"weight":"abc","preference":{}},
      {"weight":0,"preference":{}},
      {"weight":101,"preference":{}},
      {"preference":{}},
      {"weight":1,"preference":"ssd"},
      {"weight":1,"preference":{"matchExpressions":[{"key":"disk","operator":"Bogus","values":["a"]}]}},
      {"weight":1,"preference":{"matchExpressions":[{"key":"disk","operator":"In"}]}},
      {"weight":1,"preference":{"matchExpressions":[{"key":"disk","operator":"Exists","values":["a"]}]}},
      {"weight":1,"preference":{"matchExpressions":[{"key":"cores","operator":"Gt","values":["1","2"]}]}},
      {"weight":1,"preference":{"matchExpressions":[{"key":"cores","operator":"Lt","values":["many"]}]}},
      {"weight":1,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":[5]}]}},
      {"weight":1,"preference":{"matchFields":[{"key":"metadata.labels","operator":"In","values":["n1"]}]}},
      {"weight":1,"preference":{"matchFields":[{"key":"metadata.name","operator":"Exists"}]}},
      {"weight":1,"preference":{"matchExpressions":"disk=ssd"}},
      "oops",
      {"weight":7,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}],
                                "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}}]}}}})");
  placement::PodSpecView view = ReadPodView(doc);
  const std::string p = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  const std::vector<std::string> want = {
      p + "[0].weight: Invalid value: \"abc\": must be in the range 1-100",
      p + "[1].weight: Invalid value: 0: must be in the range 1-100",
      p + "[2].weight: Invalid value: 101: must be in the range 1-100",
      p + "[3].weight: Invalid value: 0: must be in the range 1-100",
      p + "[4].preference: Invalid value: \"ssd\": must be an object",
      p + "[5].preference.matchExpressions[0].operator: Invalid value: \"Bogus\": not a valid selector operator",
      p + "[6].preference.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
          "'NotIn'",
      p + "[7].preference.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
          "'DoesNotExist'",
      p + "[8].preference.matchExpressions[0].values: Required value: must be specified single value when `operator` "
          "is 'Lt' or 'Gt'",
      p + "[9].preference.matchExpressions[0].values[0]: Invalid value: \"many\": for 'Gt', 'Lt' operators, the value "
          "must be an integer",
      p + "[10].preference.matchExpressions[0].values[0]: Invalid value: 5: must be a string",
      p + "[11].preference.matchFields[0].key: Invalid value: \"metadata.labels\": not a valid field selector key",
      p + "[12].preference.matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator",
      p + "[13].preference.matchExpressions: Invalid value: \"disk=ssd\": must be an array",
      p + "[14]: Invalid value: \"oops\": must be an object",
  };
  EXPECT_EQ(view.request_errors, want);
  ASSERT_EQ(view.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(view.preferred_node_affinity[0].weight, 7);
  EXPECT_EQ(view.preferred_node_affinity[0].preference.match_expressions.size(), 1u);
  EXPECT_EQ(view.preferred_node_affinity[0].preference.match_fields.size(), 1u);
}

// The scheduler treats such a pod as every other codec error: unschedulable, the fields named.
TEST(PodConstraintsCodecTest, AnUnparsablePreferenceMakesThePodUnschedulableNamingIt) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},"spec":{
    "containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}],
    "affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":500,"preference":{}}]}}}})");
  placement::PodSpecView view = ReadPodView(doc);
  placement::ClusterSnapshot snapshot;
  placement::NodeView node;
  node.name = "n1";
  node.allocatable = {{"cpu", 4000}, {"memory", int64_t{8} * 1024 * 1024 * 1024 * 1000}, {"pods", 110000}};
  snapshot.UpsertNode(node);
  auto decision = snapshot.SchedulePod(view);
  ASSERT_FALSE(decision.has_value());
  EXPECT_NE(decision.error().Message().find(
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: "
                "500: must be in the range 1-100"),
            std::string::npos)
      << decision.error().Message();
}

// The rest of the codec's audit: wrong JSON types are errors naming the field, never read as
// empty or as the default.
TEST(PodConstraintsCodecTest, WrongTypesInAffinityAndSpreadAreNamed) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u","labels":{"app":"a"}},
    "spec":{"affinity":{
      "podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":"10","podAffinityTerm":{"topologyKey":"zone","labelSelector":{}}},
        {"weight":10,"podAffinityTerm":{"topologyKey":"zone","labelSelector":{},"namespaces":"team"}},
        {"weight":10,"podAffinityTerm":{"topologyKey":"zone","labelSelector":{},"matchLabelKeys":[1]}},
        {"weight":10,"podAffinityTerm":{"topologyKey":7,"labelSelector":{}}}]},
      "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"topologyKey":"zone"}},
      "nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"","operator":"Exists"}]}]}}},
      "topologySpreadConstraints":[
        {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","nodeTaintsPolicy":true},
        {"maxSkew":"1","topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"},
        {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","matchLabelKeys":"app"}]}})");
  placement::PodSpecView view = ReadPodView(doc);
  const std::string pa = "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  const std::vector<std::string> want = {
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
      "matchExpressions[0].key: Invalid value: \"\": name part must be non-empty",
      pa + "[0].weight: Invalid value: \"10\": must be in the range 1-100",
      pa + "[1].podAffinityTerm.namespaces: Invalid value: \"team\": must be an array",
      pa + "[2].podAffinityTerm.matchLabelKeys[0]: Invalid value: 1: must be a string",
      pa + "[3].podAffinityTerm.topologyKey: Invalid value: 7: must be a string",
      "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: Invalid value: "
      "{\"topologyKey\":\"zone\"}: must be an array",
      "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Invalid value: true: must be a string",
      "spec.topologySpreadConstraints[1].maxSkew: Invalid value: \"1\": must be greater than zero",
      "spec.topologySpreadConstraints[2].matchLabelKeys: Invalid value: \"app\": must be an array",
  };
  EXPECT_EQ(view.request_errors, want);
  EXPECT_EQ(view.pod_affinity, nullptr);
  EXPECT_TRUE(view.topology_spread.empty());
  ASSERT_TRUE(view.required_node_affinity.has_value());
  EXPECT_TRUE(view.required_node_affinity->empty());
}

TEST(PodConstraintsCodecTest, NonObjectAffinityIsNamed) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},
    "spec":{"affinity":"anywhere","topologySpreadConstraints":{"maxSkew":1}}})");
  placement::PodSpecView view = ReadPodView(doc);
  const std::vector<std::string> want = {
      "spec.affinity: Invalid value: \"anywhere\": must be an object",
      "spec.topologySpreadConstraints: Invalid value: {\"maxSkew\":1}: must be an array",
  };
  EXPECT_EQ(view.request_errors, want);
}

}  // namespace
}  // namespace berth::controllers
