// pod_constraints_codec: pod affinity terms, topology spread constraints and preferred node
// affinity from a pod's JSON; matchLabelKeys merged; malformed fields named, never fatal.
#include "controllers/scheduler/pod_constraints_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

rapidjson::Document Parse(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return doc ? std::move(*doc) : rapidjson::Document();
}

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
  EXPECT_EQ(view.request_errors[2], "spec.topologySpreadConstraints[0].maxSkew: must be greater than zero");
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

}  // namespace
}  // namespace berth::controllers
