// unit-tests/e2e/kubesim/patch/strategic_merge_patch_test.cc
#include "e2e/kubesim/patch/strategic_merge_patch.h"

#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/patch/builtin_schema.h"
#include "unit-tests/e2e/kubesim/patch/patch_test_util.h"

namespace berth::kubesim::patch {
namespace {

using testing::JsonEq;
using testing::ParseOrDie;

// Smp applies `patch` to `doc` with the built-in schema of apiVersion/kind.
berth::Status Smp(rapidjson::Document& doc, std::string_view patch,
                  std::string_view api_version = "v1", std::string_view kind = "Pod") {
  rapidjson::Document parsed = ParseOrDie(patch);
  return ApplyStrategicMergePatch(doc, parsed, doc.GetAllocator(),
                                  BuiltinPatchSchema(api_version, kind));
}

constexpr const char* kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"},
               "finalizers": ["a.io/one", "b.io/two"]},
  "spec": {
    "containers": [
      {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}],
       "ports": [{"containerPort": 80, "protocol": "TCP"}]},
      {"name": "sidecar", "image": "side:1"}],
    "tolerations": [{"key": "k1", "operator": "Exists"}, {"key": "k2", "operator": "Exists"}]},
  "status": {"conditions": [
      {"type": "Ready", "status": "False"},
      {"type": "PodScheduled", "status": "True"}]}})";

TEST(ApplyStrategicMergePatch, UpdatesAContainerByNameAndKeepsTheOthers) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"sidecar","image":"side:2"}]}})"));
  const rapidjson::Value& cs = pod["spec"]["containers"];
  ASSERT_EQ(cs.Size(), 2u);
  EXPECT_TRUE(JsonEq(cs[0], R"({"name": "app", "image": "app:1",
      "env": [{"name": "A", "value": "1"}], "ports": [{"containerPort": 80, "protocol": "TCP"}]})"));
  EXPECT_TRUE(JsonEq(cs[1], R"({"name":"sidecar","image":"side:2"})"));
}

TEST(ApplyStrategicMergePatch, AddsANewContainerAheadOfStoredOnesItDoesNotMention) {
  // Upstream's mergeSortedSlice puts patch elements first unless a stored element is known to
  // precede them; kubectl apply sends $setElementOrder to pin the order instead.
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"init","image":"i:1"}]}})"));
  const rapidjson::Value& cs = pod["spec"]["containers"];
  ASSERT_EQ(cs.Size(), 3u);
  EXPECT_STREQ(cs[0]["name"].GetString(), "init");
  EXPECT_STREQ(cs[1]["name"].GetString(), "app");
  EXPECT_STREQ(cs[2]["name"].GetString(), "sidecar");
}

TEST(ApplyStrategicMergePatch, AppendsANewContainerAfterAStoredOneThePatchAlsoNames) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"app","image":"app:2"},
                                                 {"name":"extra","image":"e:1"}]}})"));
  const rapidjson::Value& cs = pod["spec"]["containers"];
  ASSERT_EQ(cs.Size(), 3u);
  EXPECT_STREQ(cs[0]["name"].GetString(), "app");
  EXPECT_STREQ(cs[0]["image"].GetString(), "app:2");
  EXPECT_STREQ(cs[1]["name"].GetString(), "extra");
  EXPECT_STREQ(cs[2]["name"].GetString(), "sidecar");
}

TEST(ApplyStrategicMergePatch, DeletesAContainerNamedByAPatchDeleteElement) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}})"));
  const rapidjson::Value& cs = pod["spec"]["containers"];
  ASSERT_EQ(cs.Size(), 1u);
  EXPECT_STREQ(cs[0]["name"].GetString(), "app");
}

TEST(ApplyStrategicMergePatch, MergesNestedListsOfAContainerOnTheirOwnKeys) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"app",
      "env":[{"name":"A","value":"2"},{"name":"B","value":"x"}],
      "ports":[{"containerPort":443}]}]}})"));
  const rapidjson::Value& app = pod["spec"]["containers"][0];
  EXPECT_TRUE(JsonEq(app["env"], R"([{"name":"A","value":"2"},{"name":"B","value":"x"}])"));
  EXPECT_TRUE(JsonEq(app["ports"], R"([{"containerPort":443},{"containerPort":80,"protocol":"TCP"}])"));
}

TEST(ApplyStrategicMergePatch, MergesStatusConditionsByType) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"status":{"conditions":[{"type":"Ready","status":"True"},
                                                    {"type":"Initialized","status":"True"}]}})"));
  EXPECT_TRUE(JsonEq(pod["status"]["conditions"], R"([
      {"type":"Ready","status":"True"},
      {"type":"Initialized","status":"True"},
      {"type":"PodScheduled","status":"True"}])"));
}

TEST(ApplyStrategicMergePatch, MergesNodeConditionsAndAddressesByType) {
  rapidjson::Document node = ParseOrDie(R"({"status":{
      "conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}],
      "addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"n1"}]}})");
  ASSERT_TRUE(Smp(node, R"({"status":{"conditions":[{"type":"Ready","status":"False"}],
                                      "addresses":[{"type":"InternalIP","address":"10.0.0.2"}]}})",
                  "v1", "Node"));
  EXPECT_TRUE(JsonEq(node, R"({"status":{
      "conditions":[{"type":"Ready","status":"False"},{"type":"MemoryPressure","status":"False"}],
      "addresses":[{"type":"InternalIP","address":"10.0.0.2"},{"type":"Hostname","address":"n1"}]}})"));
}

TEST(ApplyStrategicMergePatch, UnitesFinalizersAsASet) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"finalizers":["b.io/two","c.io/three"]}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["finalizers"], R"(["a.io/one","b.io/two","c.io/three"])"));
}

TEST(ApplyStrategicMergePatch, RemovesFinalizersListedInDeleteFromPrimitiveList) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a.io/one"]}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"], R"({"name":"web","labels":{"app":"web","tier":"front"},
                                           "finalizers":["b.io/two"]})"));
}

TEST(ApplyStrategicMergePatch, OrdersAMergedListBySetElementOrderKeepingServerOnlyItems) {
  rapidjson::Document pod = ParseOrDie(R"({"spec":{"containers":[
      {"name":"a","image":"a:1"},{"name":"server","image":"s:1"},{"name":"b","image":"b:1"}]}})");
  ASSERT_TRUE(Smp(pod, R"({"spec":{
      "$setElementOrder/containers":[{"name":"b"},{"name":"c"},{"name":"a"}],
      "containers":[{"name":"c","image":"c:1"}]}})"));
  const rapidjson::Value& cs = pod["spec"]["containers"];
  ASSERT_EQ(cs.Size(), 4u);
  std::string names;
  for (const auto& c : cs.GetArray()) names += std::string(c["name"].GetString()) + ",";
  // b, c, a follow the directive. "server" was stored before "b", and upstream's interleave
  // places a server-only item ahead of a patch item it was stored before.
  EXPECT_EQ(names, "server,b,c,a,");
  EXPECT_FALSE(cs[1].HasMember("$patch"));
  EXPECT_FALSE(pod["spec"].HasMember("$setElementOrder/containers"));
}

TEST(ApplyStrategicMergePatch, KeepsServerOnlyItemsStoredLastAfterTheOrderedItems) {
  rapidjson::Document pod = ParseOrDie(R"({"spec":{"containers":[
      {"name":"a"},{"name":"b"},{"name":"injected-sidecar"}]}})");
  ASSERT_TRUE(Smp(pod, R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}})"));
  EXPECT_TRUE(JsonEq(pod["spec"]["containers"],
                     R"([{"name":"b"},{"name":"a"},{"name":"injected-sidecar"}])"));
}

TEST(ApplyStrategicMergePatch, OrdersAPrimitiveListBySetElementOrder) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{
      "$setElementOrder/finalizers":["b.io/two","a.io/one"]}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["finalizers"], R"(["b.io/two","a.io/one"])"));
}

TEST(ApplyStrategicMergePatch, RetainKeysDropsStoredKeysNotListed) {
  rapidjson::Document d = ParseOrDie(R"({"spec":{"strategy":{"type":"RollingUpdate",
      "rollingUpdate":{"maxSurge":1}},"replicas":2}})");
  ASSERT_TRUE(Smp(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
                  "apps/v1", "Deployment"));
  EXPECT_TRUE(JsonEq(d, R"({"spec":{"strategy":{"type":"Recreate"},"replicas":2}})"));
}

TEST(ApplyStrategicMergePatch, RetainKeysRejectsAPatchKeyItDoesNotList) {
  rapidjson::Document d = ParseOrDie(R"({"spec":{"strategy":{"type":"RollingUpdate"}}})");
  auto st = Smp(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})",
                "apps/v1", "Deployment");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "invalid patch format of retainKeys");
  EXPECT_TRUE(JsonEq(d, R"({"spec":{"strategy":{"type":"RollingUpdate"}}})"));
}

TEST(ApplyStrategicMergePatch, ReplacesTolerationsAtomicallyAsTheyCarryNoStrategy) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"tolerations":[{"key":"k3","operator":"Exists"}]}})"));
  EXPECT_TRUE(JsonEq(pod["spec"]["tolerations"], R"([{"key":"k3","operator":"Exists"}])"));
}

TEST(ApplyStrategicMergePatch, ReplacesNodeTaintsAtomicallyButMergesPodCIDRs) {
  rapidjson::Document node = ParseOrDie(
      R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"}],"podCIDRs":["10.0.0.0/24"]}})");
  ASSERT_TRUE(Smp(node, R"({"spec":{"taints":[{"key":"b","effect":"NoExecute"}],
                                     "podCIDRs":["fd00::/64"],"unschedulable":true}})",
                  "v1", "Node"));
  EXPECT_TRUE(JsonEq(node, R"({"spec":{"taints":[{"key":"b","effect":"NoExecute"}],
      "podCIDRs":["fd00::/64","10.0.0.0/24"],"unschedulable":true}})"));  // new scalars first
}

TEST(ApplyStrategicMergePatch, AcceptsTheShapeOfAKubectlApplyThreeWayPatch) {
  rapidjson::Document d = ParseOrDie(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","annotations":{"deployment.kubernetes.io/revision":"1"}},
      "spec":{"replicas":1,"template":{"metadata":{"labels":{"app":"web"}},"spec":{
        "containers":[{"name":"a","image":"old","ports":[{"containerPort":80}]}],
        "tolerations":[{"key":"x","operator":"Exists"}]}}}})");
  ASSERT_TRUE(Smp(d, R"({
      "metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"x\":1}\n"}},
      "spec":{"replicas":3,"template":{"spec":{
        "$setElementOrder/containers":[{"name":"a"}],
        "containers":[{"name":"a","image":"x"}],
        "tolerations":null}}}})",
                  "apps/v1", "Deployment"));
  EXPECT_TRUE(JsonEq(d, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","annotations":{"deployment.kubernetes.io/revision":"1",
        "kubectl.kubernetes.io/last-applied-configuration":"{\"x\":1}\n"}},
      "spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"web"}},"spec":{
        "containers":[{"name":"a","image":"x","ports":[{"containerPort":80}]}]}}}})"));
}

TEST(ApplyStrategicMergePatch, PatchReplaceInAMapReplacesItWholesale) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"labels":{"$patch":"replace","only":"me"}}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["labels"], R"({"only":"me"})"));
}

TEST(ApplyStrategicMergePatch, PatchDeleteInAMapEmptiesIt) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"labels":{"$patch":"delete"}}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["labels"], R"({})"));
}

TEST(ApplyStrategicMergePatch, PatchMergeInAMapIsAnOrdinaryMerge) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"labels":{"$patch":"merge","tier":"back"}}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["labels"], R"({"app":"web","tier":"back"})"));
}

TEST(ApplyStrategicMergePatch, PatchReplaceInAListReplacesTheWholeList) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"spec":{"containers":[{"name":"only","image":"o:1"},
                                                 {"$patch":"replace"}]}})"));
  EXPECT_TRUE(JsonEq(pod["spec"]["containers"], R"([{"name":"only","image":"o:1"}])"));
}

TEST(ApplyStrategicMergePatch, NullDeletesAndANullForAnUnstoredKeyIsDropped) {
  rapidjson::Document pod = ParseOrDie(kPod);
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"labels":{"tier":null,"ghost":null}}})"));
  EXPECT_TRUE(JsonEq(pod["metadata"]["labels"], R"({"app":"web"})"));
}

TEST(ApplyStrategicMergePatch, NeverStoresDirectivesFromValuesNewToTheObject) {
  rapidjson::Document pod = ParseOrDie(R"({"metadata":{"name":"p"}})");
  ASSERT_TRUE(Smp(pod, R"({"metadata":{"labels":{"$patch":"replace","a":"1","b":null}},
      "spec":{"$setElementOrder/containers":[{"name":"x"}],
              "containers":[{"name":"x","env":[{"name":"gone","$patch":"delete"}],
                             "resources":{"$retainKeys":["limits"],"limits":{"cpu":"1"}}}]}})"));
  EXPECT_TRUE(JsonEq(pod, R"({"metadata":{"name":"p","labels":{"a":"1"}},
      "spec":{"containers":[{"name":"x","env":[],"resources":{"limits":{"cpu":"1"}}}]}})"));
}

TEST(ApplyStrategicMergePatch, MergesServicePortsOnPort) {
  rapidjson::Document svc = ParseOrDie(
      R"({"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443,"targetPort":8443}]}})");
  ASSERT_TRUE(Smp(svc, R"({"spec":{"ports":[{"port":80,"targetPort":9090}]}})", "v1", "Service"));
  EXPECT_TRUE(JsonEq(svc,
      R"({"spec":{"ports":[{"port":80,"targetPort":9090},{"port":443,"targetPort":8443}]}})"));
}

TEST(ApplyStrategicMergePatch, TreatsListsOfUnknownKindsAsAtomic) {
  rapidjson::Document obj = ParseOrDie(R"({"spec":{"items":[{"name":"a"}]}})");
  ASSERT_TRUE(Smp(obj, R"({"spec":{"items":[{"name":"b"}]}})", "example.com/v1", "Widget"));
  EXPECT_TRUE(JsonEq(obj, R"({"spec":{"items":[{"name":"b"}]}})"));
}

struct MalformedCase {
  const char* patch;
  const char* message;  // exact error text, or nullptr to check only the code
};

TEST(ApplyStrategicMergePatch, RejectsMalformedPatchesWithoutTouchingTheTarget) {
  const MalformedCase cases[] = {
      {R"([{"op":"add"}])", "json: cannot unmarshal array into Go value of type map[string]interface {}"},
      {R"("spec")", "json: cannot unmarshal string into Go value of type map[string]interface {}"},
      {R"({"metadata":{"labels":{"$patch":"explode"}}})", nullptr},
      {R"({"metadata":{"labels":{"$patch":7}}})", nullptr},
      {R"({"spec":{"containers":[{"name":"app","$patch":"smash"}]}})", nullptr},
      {R"({"metadata":{"$retainKeys":"name"}})", "invalid patch format of retainKeys"},
      {R"({"spec":{"$setElementOrder/containers":{"name":"a"}}})",
       "invalid patch format of setElementOrder list"},
      {R"({"spec":{"$setElementOrder/":[]}})", "invalid patch format of setElementOrder list"},
      {R"({"spec":{"$setElementOrder/containers":[{"image":"x"}]}})",
       R"(map: {"image":"x"} does not contain declared merge key: name)"},
      {R"({"metadata":{"$deleteFromPrimitiveList/finalizers":"a.io/one"}})",
       "invalid patch format of primitive list"},
      {R"({"metadata":{"$deleteFromPrimitiveList/finalizers":[{"a":1}]}})",
       "invalid patch format of primitive list"},
      {R"({"spec":{"containers":[{"image":"nameless"}]}})",
       R"(map: {"image":"nameless"} does not contain declared merge key: name)"},
      {R"({"spec":{"containers":[{"$patch":"delete","image":"x"}]}})",
       R"(map: {"$patch":"delete","image":"x"} does not contain declared merge key: name)"},
      {R"({"metadata":{"finalizers":[{"name":"x"}]}})", nullptr},
      {R"({"metadata":{"finalizers":[["nested"]]}})", "lists of lists are not supported"},
      {R"({"spec":{"$frobnicate":true}})", "unknown strategic merge patch directive: $frobnicate"},
      {R"({"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
                   "containers":[{"name":"sidecar"},{"name":"app"}]}})", nullptr},
      // A valid first change followed by a bad one must not half-apply.
      {R"({"metadata":{"labels":{"new":"x"}},"spec":{"containers":[{"image":"nameless"}]}})",
       nullptr},
  };
  for (const auto& c : cases) {
    rapidjson::Document pod = ParseOrDie(kPod);
    std::string before = json::Serialize(pod);
    auto st = Smp(pod, c.patch);
    ASSERT_FALSE(st.has_value()) << c.patch;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument) << c.patch;
    if (c.message != nullptr) {
      EXPECT_EQ(st.error().message, c.message) << c.patch;
    }
    EXPECT_EQ(json::Serialize(pod), before) << c.patch;
  }
}

TEST(ApplyStrategicMergePatch, ReportsTheUpstreamMessageForAnOrderMismatch) {
  rapidjson::Document pod = ParseOrDie(kPod);
  auto st = Smp(pod, R"({"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
                               "containers":[{"name":"sidecar"},{"name":"app"}]}})");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "The order in patch list:\n[{\"name\":\"sidecar\"},{\"name\":\"app\"}]\n doesn't match "
            "$setElementOrder list:\n[{\"name\":\"app\"},{\"name\":\"sidecar\"}]\n");
}

TEST(ApplyStrategicMergePatch, RejectsANonObjectTarget) {
  rapidjson::Document target = ParseOrDie(R"([1])");
  auto st = Smp(target, R"({"a":1})");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "invalid JSON document");
  EXPECT_TRUE(JsonEq(target, "[1]"));
}

}  // namespace
}  // namespace berth::kubesim::patch
