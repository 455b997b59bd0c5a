// The kube-scheduler extender wire format: bodies shaped as kube-scheduler's Go client marshals
// k8s.io/kube-scheduler/extender/v1 (no json tags: Go field names; nil as null; compact), the
// case-insensitive decoding Go applies to answers, and malformed bodies.
#include "controllers/extender/extender_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers::extender {
namespace {

// A pod as an informer hands it to kube-scheduler (empty TypeMeta, so no kind/apiVersion), as
// encoding/json writes it: compact, every v1.Pod field with its k8s json tag.
constexpr char kPod[] =
    R"({"metadata":{"name":"web-0","namespace":"default","uid":"6f1c1d7e-0000-4000-8000-000000000001",)"
    R"("resourceVersion":"4711","creationTimestamp":"2026-11-26T08:00:00Z","labels":{"app":"web"},)"
    R"("annotations":{"scheduling.koordinator.sh/reservation-affinity":"{\"reservationSelector\":{\"team\":\"a\"}}"},)"
    R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d9c","uid":"rs-uid","controller":true,"blockOwnerDeletion":true}],)"
    R"("managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-26T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]},)"
    R"("spec":{"volumes":[{"name":"kube-api-access-x","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}],"defaultMode":420}}],)"
    R"("containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],)"
    R"("resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m","memory":"512Mi"}},)"
    R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],)"
    R"("restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default",)"
    R"("serviceAccount":"default","securityContext":{},"schedulerName":"default-scheduler",)"
    R"("tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],)"
    R"("priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},)"
    R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,)"
    R"("lastTransitionTime":"2026-11-26T08:00:01Z","reason":"Unschedulable","message":"0/3 nodes are available"}],"qosClass":"Burstable"}})";

constexpr char kNode[] =
    R"({"metadata":{"name":"node-1","uid":"n1","resourceVersion":"12","creationTimestamp":"2026-11-26T07:00:00Z",)"
    R"("labels":{"kubernetes.io/hostname":"node-1"}},"spec":{"podCIDR":"10.0.1.0/24"},)"
    R"("status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})";

std::string ArgsNodeCacheCapable() {
  return std::string(R"({"Pod":)") + kPod + R"(,"Nodes":null,"NodeNames":["node-1","node-2","node-3"]})";
}
std::string ArgsWithNodeList() {
  std::string node2 = kNode;
  node2.replace(node2.find("\"node-1\""), 8, "\"node-2\"");
  return std::string(R"({"Pod":)") + kPod + R"(,"Nodes":{"metadata":{},"items":[)" + kNode + "," + node2 +
         R"(]},"NodeNames":null})";
}

TEST(ExtenderCodecTest, DecodesNodeCacheCapableArgsWithNullNodes) {
  auto args = DecodeExtenderArgs(ArgsNodeCacheCapable());
  ASSERT_TRUE(args.has_value()) << args.error().message;
  EXPECT_FALSE(args->nodes_as_list);
  EXPECT_EQ(args->node_names, (std::vector<std::string_view>{"node-1", "node-2", "node-3"}));
  ASSERT_NE(args->pod, nullptr);
  EXPECT_EQ(json::GetString(*args->pod, {"metadata", "name"}), "web-0");
  EXPECT_EQ(json::GetString(*args->pod, {"spec", "schedulerName"}), "default-scheduler");
}

TEST(ExtenderCodecTest, DecodesNodeListArgsWithNullNodeNames) {
  auto args = DecodeExtenderArgs(ArgsWithNodeList());
  ASSERT_TRUE(args.has_value()) << args.error().message;
  EXPECT_TRUE(args->nodes_as_list);
  EXPECT_EQ(args->node_names, (std::vector<std::string_view>{"node-1", "node-2"}));
  ASSERT_EQ(args->node_items.size(), 2u);
}

TEST(ExtenderCodecTest, DecodesKeysCaseInsensitivelyAsGoDoes) {
  // upstream's TestCompatibility lowercases a whole document and decodes it again.
  auto args = DecodeExtenderArgs(std::string(R"({"pod":)") + kPod + R"(,"nodes":null,"nodenames":["a"]})");
  ASSERT_TRUE(args.has_value()) << args.error().message;
  EXPECT_EQ(args->node_names, (std::vector<std::string_view>{"a"}));
  auto bind = DecodeBindingArgs(R"({"podname":"p","PODNAMESPACE":"ns","podUid":"u","node":"n"})");
  ASSERT_TRUE(bind.has_value()) << bind.error().message;
  EXPECT_EQ(bind->pod_name, "p");
  EXPECT_EQ(bind->pod_namespace, "ns");
  EXPECT_EQ(bind->pod_uid, "u");
  EXPECT_EQ(bind->node, "n");
  // Go assigns every case variant to the one field in order: the last wins.
  auto twice = DecodeBindingArgs(R"({"Node":"first","node":"second","PodName":"p"})");
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->node, "second");
}

TEST(ExtenderCodecTest, BothNodeFormsNullMeansNoCandidates) {
  auto args = DecodeExtenderArgs(std::string(R"({"Pod":)") + kPod + R"(,"Nodes":null,"NodeNames":null})");
  ASSERT_TRUE(args.has_value());
  EXPECT_TRUE(args->node_names.empty());
  EXPECT_FALSE(args->nodes_as_list);
}

TEST(ExtenderCodecTest, DecodesUpstreamBindingArgsExample) {
  auto bind = DecodeBindingArgs(R"({"PodName":"mypodname","PodNamespace":"mypodnamespace","PodUID":"mypoduid","Node":"mynode"})");
  ASSERT_TRUE(bind.has_value());
  EXPECT_EQ(bind->pod_name, "mypodname");
  EXPECT_EQ(bind->pod_namespace, "mypodnamespace");
  EXPECT_EQ(bind->pod_uid, "mypoduid");
  EXPECT_EQ(bind->node, "mynode");
}

TEST(ExtenderCodecTest, RefusesMalformedArgs) {
  struct Case {
    std::string body;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"", "empty body"},
      {"{", "not JSON"},
      {"[]", "not a JSON object"},
      {R"({"Nodes":null,"NodeNames":["a"]})", "Pod is missing"},
      {R"({"Pod":null,"NodeNames":["a"]})", "Pod is missing"},
      {R"({"Pod":"web","NodeNames":["a"]})", "Pod must be an object"},
      {R"({"Pod":{"spec":"oops"},"NodeNames":["a"]})", "ExtenderArgs: Pod.spec must be an object"},
      {R"({"Pod":{"metadata":[]},"NodeNames":["a"]})", "ExtenderArgs: Pod.metadata must be an object"},
      {R"({"Pod":{"status":7},"NodeNames":["a"]})", "ExtenderArgs: Pod.status must be an object"},
      {R"({"Pod":{},"NodeNames":"a"})", "NodeNames must be an array"},
      {R"({"Pod":{},"NodeNames":["a",1]})", "NodeNames must be an array"},
      {R"({"Pod":{},"Nodes":[]})", "Nodes must be a NodeList"},
      {R"({"Pod":{},"Nodes":{"items":{}}})", "Nodes.items must be an array"},
      {R"({"Pod":{},"Nodes":{"items":[{"metadata":{}}]}})", "Nodes.items[0] has no metadata.name"},
      {R"({"Pod":{},"Nodes":{"items":[5]}})", "Nodes.items[0] has no metadata.name"},
  };
  for (const auto& c : cases) {
    auto args = DecodeExtenderArgs(c.body);
    ASSERT_FALSE(args.has_value()) << c.body;
    EXPECT_EQ(args.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(args.error().message.find(c.want), std::string::npos) << c.body << " → " << args.error().message;
  }
}

TEST(ExtenderCodecTest, APodWithNullStructFieldsIsAcceptedAsGoReadsNullAsUnset) {
  auto args = DecodeExtenderArgs(R"({"Pod":{"metadata":{"name":"p"},"spec":null,"status":null},"NodeNames":["a"]})");
  ASSERT_TRUE(args.has_value()) << args.error().message;
  EXPECT_EQ(args->node_names, std::vector<std::string_view>{"a"});
}

TEST(ExtenderCodecTest, RefusesMalformedBindingArgs) {
  for (const auto& [body, want] : std::vector<std::pair<std::string, std::string>>{
           {"", "empty body"},
           {"null", "not a JSON object"},
           {R"({"PodName":5,"Node":"n"})", "PodName must be a string"},
           {R"({"PodName":"p","Node":"n","PodUID":{}})", "PodUID must be a string"},
           {R"({"PodNamespace":"ns","Node":"n"})", "PodName is missing"},
           {R"({"PodName":"p","Node":""})", "Node is missing"},
       }) {
    auto bind = DecodeBindingArgs(body);
    ASSERT_FALSE(bind.has_value()) << body;
    EXPECT_NE(bind.error().message.find(want), std::string::npos) << body << " → " << bind.error().message;
  }
}

TEST(ExtenderCodecTest, EncodesFilterResultWithExactKeysInNodeNamesMode) {
  auto args = DecodeExtenderArgs(ArgsNodeCacheCapable());
  ASSERT_TRUE(args.has_value());
  ExtenderFilterResult r;
  r.passed = {"node-1"};
  r.failed = {{"node-2", "Insufficient cpu"}};
  r.failed_unresolvable = {{"node-3", "node(s) had untolerated taint {a: b}"}};
  EXPECT_EQ(EncodeFilterResult(r, &*args),
            R"({"Nodes":null,"NodeNames":["node-1"],"FailedNodes":{"node-2":"Insufficient cpu"},)"
            R"("FailedAndUnresolvableNodes":{"node-3":"node(s) had untolerated taint {a: b}"},"Error":""})");
}

TEST(ExtenderCodecTest, EncodesFilterResultAsNodeListForANodeListRequest) {
  auto args = DecodeExtenderArgs(ArgsWithNodeList());
  ASSERT_TRUE(args.has_value());
  ExtenderFilterResult r;
  r.passed = {"node-2"};
  auto doc = json::Parse(EncodeFilterResult(r, &*args));
  ASSERT_TRUE(doc.has_value());
  EXPECT_TRUE((*doc)["NodeNames"].IsNull());
  const auto& items = (*doc)["Nodes"]["items"];
  ASSERT_EQ(items.Size(), 1u);
  EXPECT_EQ(json::GetString(items[0], {"metadata", "name"}), "node-2");
  // The Node object goes back whole, as kube-scheduler sent it.
  EXPECT_EQ(json::GetString(items[0], {"status", "allocatable", "cpu"}), "4");
  EXPECT_TRUE((*doc)["FailedNodes"].IsObject());
  EXPECT_TRUE((*doc)["FailedAndUnresolvableNodes"].IsObject());
  EXPECT_EQ(json::GetString(*doc, {"Error"}), "");
}

TEST(ExtenderCodecTest, EncodesHostPriorityListAndBindingResult) {
  EXPECT_EQ(EncodeHostPriorityList({{"myhost", 1}, {"other", 10}}),
            R"([{"Host":"myhost","Score":1},{"Host":"other","Score":10}])");
  EXPECT_EQ(EncodeHostPriorityList({}), "[]");
  EXPECT_EQ(EncodeBindingResult(""), R"({"Error":""})");
  EXPECT_EQ(EncodeError("bad \"x\""), R"({"Error":"bad \"x\""})");
}

TEST(ExtenderCodecTest, PreemptionArgsReadEitherVictimsFormCaseInsensitively) {
  auto meta = DecodePreemptionArgs(
      R"({"pod":{"metadata":{"name":"p"}},"nodenametometavictims":{"n1":{"pods":[{"uid":"a"},{"UID":"b"}],"numpdbviolations":2},"n2":null}})");
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  ASSERT_EQ(meta->candidates.size(), 1u);
  EXPECT_EQ(meta->candidates["n1"].pod_uids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(meta->candidates["n1"].num_pdb_violations, 2);
  auto full = DecodePreemptionArgs(
      R"({"Pod":{},"NodeNameToVictims":{"n1":{"Pods":[{"metadata":{"uid":"a"}}],"NumPDBViolations":0}},"NodeNameToMetaVictims":null})");
  ASSERT_TRUE(full.has_value()) << full.error().message;
  EXPECT_EQ(full->candidates["n1"].pod_uids, std::vector<std::string>{"a"});
  EXPECT_EQ(EncodePreemptionResult(full->candidates),
            R"({"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"a"}],"NumPDBViolations":0}}})");
  EXPECT_EQ(EncodePreemptionResult({}), R"({"NodeNameToMetaVictims":{}})");
}

TEST(ExtenderCodecTest, MalformedPreemptionArgsAreRefusedNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty body"},
      {"[1]", "not a JSON object"},
      {R"({"NodeNameToMetaVictims":{}})", "Pod is missing"},
      {R"({"Pod":{"spec":true},"NodeNameToMetaVictims":{}})", "ExtenderPreemptionArgs: Pod.spec must be an object"},
      {R"({"Pod":{},"NodeNameToMetaVictims":[]})", "NodeNameToMetaVictims must be an object"},
      {R"({"Pod":{},"NodeNameToMetaVictims":{"n":7}})", "NodeNameToMetaVictims[n] must be an object"},
      {R"({"Pod":{},"NodeNameToMetaVictims":{"n":{"Pods":{}}}})", "NodeNameToMetaVictims[n].Pods must be an array"},
      {R"({"Pod":{},"NodeNameToMetaVictims":{"n":{"Pods":[{"UID":""}]}}})", "a victim without a UID"},
      {R"({"Pod":{},"NodeNameToVictims":{"n":{"Pods":[{"metadata":{}}]}}})", "a victim without metadata.uid"},
      {R"({"Pod":{},"NodeNameToMetaVictims":{"n":{"NumPDBViolations":1.5}}})", "NumPDBViolations must be an integer"},
  };
  for (const auto& [body, want] : cases) {
    auto r = DecodePreemptionArgs(body);
    ASSERT_FALSE(r.has_value()) << body;
    EXPECT_NE(r.error().message.find(want), std::string::npos) << body << " -> " << r.error().message;
  }
}

TEST(ExtenderCodecTest, BodiesNestedDeeperThanGosLimitAreRefusedWithoutRecursing) {
  // A million '[' (1 MB, far below the 32 MiB body limit) once overflowed the recursive parser's
  // stack and killed berth-manager. Go's decoder stops at 10000 levels; so does the codec.
  const std::string deep(1'000'000, '[');
  for (const auto& error : {DecodeExtenderArgs(deep).error(), DecodeBindingArgs(deep).error(),
                            DecodePreemptionArgs(deep).error()}) {
    EXPECT_EQ(error.code, ErrorCode::kInvalidArgument);
    EXPECT_NE(error.message.find("deeper than 10000 levels"), std::string::npos) << error.message;
  }
  auto pod_deep = DecodeExtenderArgs(R"({"Pod":{"metadata":)" + std::string(200'000, '{'));
  ASSERT_FALSE(pod_deep.has_value());
  EXPECT_NE(pod_deep.error().message.find("deeper than 10000 levels"), std::string::npos);
  // Brackets inside strings are text, escaped quotes included.
  const std::string text = std::string(20'000, '[') + "\\\"" + std::string(20'000, '{');
  auto strings = DecodeExtenderArgs(R"({"Pod":{"metadata":{"name":")" + text + R"("}},"NodeNames":["node-0"]})");
  ASSERT_TRUE(strings.has_value()) << strings.error().message;
  EXPECT_EQ(strings->node_names, (std::vector<std::string_view>{"node-0"}));
}

TEST(ExtenderCodecTest, ANodeListNestedToTheLimitIsEchoedBack) {
  // 10000 levels in all (the body, Nodes, items, the Node, then 9996 arrays): accepted, and the
  // passing Node is written back whole; one level more is refused.
  const int inner = kMaxNestingDepth - 4;
  const std::string nested = std::string(inner, '[') + std::string(inner, ']');
  const std::string body = R"({"Pod":{},"Nodes":{"items":[{"metadata":{"name":"node-0"},"x":)" + nested + "}]}}";
  auto args = DecodeExtenderArgs(body);
  ASSERT_TRUE(args.has_value()) << args.error().message;
  ExtenderFilterResult result;
  result.passed = {args->node_names[0]};
  const std::string answer = EncodeFilterResult(result, &*args);
  EXPECT_NE(answer.find(nested), std::string::npos);
  EXPECT_FALSE(DecodeExtenderArgs(R"({"Pod":{},"Nodes":{"items":[{"metadata":{"name":"node-0"},"x":[)" + nested +
                                  "]}]}}")
                   .has_value());
}

}  // namespace
}  // namespace berth::controllers::extender
