#include "clientgo-shim/cache/transform.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

// A Running pod as an API server returns it, with the fields transforms should drop.
constexpr char kFullPod[] = R"({
 "apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-7d4b9c-x2x9z","generateName":"web-7d4b9c-","namespace":"shop",
  "uid":"6b1f9a52-3f7e-4c59-9d6e-0a9c7a1e2b11","resourceVersion":"123456","generation":1,
  "creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app":"web","pod-template-hash":"7d4b9c"},
  "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\"}}","team":"a"},
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c","uid":"0e1d","controller":true,"blockOwnerDeletion":true}],
  "managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}],
  "selfLink":"/api/v1/namespaces/shop/pods/web"},
 "spec":{"nodeName":"node-3","schedulerName":"default-scheduler","priority":0,"restartPolicy":"Always",
  "containers":[{"name":"app","image":"registry.example.com/shop/web:1.2.3","imagePullPolicy":"IfNotPresent",
   "ports":[{"containerPort":8080,"protocol":"TCP"}],
   "resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"memory":"512Mi"}},
   "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
  "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},
 "status":{"phase":"Running","podIP":"10.0.3.17","hostIP":"192.168.0.3","startTime":"2024-05-01T10:00:01Z",
  "conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True","lastTransitionTime":"2024-05-01T10:00:05Z"},
   {"type":"PodScheduled","status":"True"}],
  "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"registry.example.com/shop/web:1.2.3",
   "containerID":"containerd://4f1b0c","state":{"running":{"startedAt":"2024-05-01T10:00:04Z"}}}]}})";

rapidjson::Document Pod() {
  auto d = json::Parse(kFullPod);
  EXPECT_TRUE(d.has_value());
  return std::move(*d);
}

TEST(TransformTest, DefaultTransformDropsManagedFieldsLastAppliedAndTypeMeta) {
  auto pod = Pod();
  ASSERT_TRUE(DefaultTransformFn(pod, pod.GetAllocator()));
  EXPECT_EQ(json::Find(pod, {"metadata", "managedFields"}), nullptr);
  EXPECT_EQ(json::Find(pod, {"metadata", "selfLink"}), nullptr);
  EXPECT_EQ(json::Find(pod, {"metadata", "generateName"}), nullptr);
  EXPECT_EQ(json::Find(pod, {"metadata", "annotations", kLastAppliedAnnotation}), nullptr);
  EXPECT_EQ(json::Member(pod, "apiVersion"), nullptr);
  EXPECT_EQ(json::Member(pod, "kind"), nullptr);
  // Kept: identity, labels, other annotations, owners, spec and status whole.
  EXPECT_EQ(json::GetString(pod, {"metadata", "annotations", "team"}), "a");
  EXPECT_EQ(json::GetString(pod, {"metadata", "labels", "app"}), "web");
  EXPECT_EQ(json::GetString(pod, {"metadata", "creationTimestamp"}), "2024-05-01T10:00:00Z");
  EXPECT_NE(json::Find(pod, {"metadata", "ownerReferences"}), nullptr);
  EXPECT_NE(json::Find(pod, {"spec", "tolerations"}), nullptr);
  EXPECT_NE(json::Find(pod, {"status", "containerStatuses"}), nullptr);
  EXPECT_EQ(json::GetString(pod, {"status", "podIP"}), "10.0.3.17");
}

TEST(TransformTest, AnAnnotationsMapLeftEmptyIsRemoved) {
  auto d = json::Parse(R"({"metadata":{"name":"a","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}})");
  ASSERT_TRUE(d);
  ASSERT_TRUE(DefaultTransformFn(*d, d->GetAllocator()));
  EXPECT_EQ(json::Find(*d, {"metadata", "annotations"}), nullptr);
}

TEST(TransformTest, PodViewKeepsOnlySchedulingFields) {
  auto pod = Pod();
  ASSERT_TRUE(PodViewTransformFn(pod, pod.GetAllocator()));
  EXPECT_EQ(json::Serialize(*json::Find(pod, {"spec"})),
            R"({"nodeName":"node-3","schedulerName":"default-scheduler","priority":0,)"
            R"("containers":[{"name":"app","resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}]})");
  EXPECT_EQ(json::Serialize(*json::Find(pod, {"status"})),
            R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}]})");
}

TEST(TransformTest, TransformsRejectNonObjects) {
  rapidjson::Document d;
  d.SetArray();
  EXPECT_FALSE(DefaultTransformFn(d, d.GetAllocator()));
  EXPECT_FALSE(PodViewTransformFn(d, d.GetAllocator()));
}

TEST(TransformTest, ReadPodViewDecodesTheCachedPod) {
  auto pod = Pod();
  ASSERT_TRUE(PodViewTransformFn(pod, pod.GetAllocator()));
  InternPool pool;
  auto obj = CachedObject::FromJson(pod, pool);
  ASSERT_TRUE(obj);
  auto view = ReadPodView(**obj);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->name, "web-7d4b9c-x2x9z");
  EXPECT_EQ(view->namespace_name, "shop");
  EXPECT_EQ(view->node_name, "node-3");
  EXPECT_EQ(view->scheduler_name, "default-scheduler");
  EXPECT_EQ(view->phase, "Running");
  EXPECT_TRUE(view->ready);
  ASSERT_EQ(view->containers.size(), 1u);
  EXPECT_EQ(view->containers[0].requests.at("cpu"), "250m");
  EXPECT_EQ(view->annotations.at("team"), "a");
  EXPECT_EQ(view->labels.at("pod-template-hash"), "7d4b9c");
}

TEST(TransformTest, StatusSubsetKeepsOnlyTheNamedStatusMembersAndTheRestAsTheDefault) {
  auto subset = Pod();
  ASSERT_TRUE(StatusSubsetTransform({"phase", "conditions", "startTime", "nominatedNodeName"})(subset, subset.GetAllocator()));
  auto by_default = Pod();
  ASSERT_TRUE(DefaultTransformFn(by_default, by_default.GetAllocator()));
  const rapidjson::Value& status = subset["status"];
  std::vector<std::string> kept;
  for (const auto& m : status.GetObject()) kept.emplace_back(m.name.GetString());
  EXPECT_EQ(kept, (std::vector<std::string>{"phase", "startTime", "conditions"}));  // the pod's order; none asked is absent
  EXPECT_EQ(status["conditions"], by_default["status"]["conditions"]);
  EXPECT_EQ(subset["metadata"], by_default["metadata"]);  // managedFields and last-applied gone as by default
  EXPECT_EQ(subset["spec"], by_default["spec"]);
  EXPECT_FALSE(subset.HasMember("apiVersion"));
}

TEST(TransformTest, StatusSubsetLeavesAStatusThatIsNotAnObjectAndRejectsNonObjects) {
  auto odd = json::Parse(R"({"metadata":{"name":"p","managedFields":[]},"status":"pending"})");
  ASSERT_TRUE(odd);
  ASSERT_TRUE(StatusSubsetTransform({"phase"})(*odd, odd->GetAllocator()));
  EXPECT_STREQ((*odd)["status"].GetString(), "pending");
  EXPECT_FALSE((*odd)["metadata"].HasMember("managedFields"));
  auto no_status = json::Parse(R"({"metadata":{"name":"p"},"spec":{}})");
  ASSERT_TRUE(no_status);
  ASSERT_TRUE(StatusSubsetTransform({"phase"})(*no_status, no_status->GetAllocator()));
  EXPECT_FALSE(no_status->HasMember("status"));
  auto array = json::Parse("[1]");
  ASSERT_TRUE(array);
  auto st = StatusSubsetTransform({"phase"})(*array, array->GetAllocator());
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
}

// The headline figure: bytes a cached pod costs with the default transform. The pool is shared
// by 5000 pods that differ in name, uid, IP and node, as in a real cluster.
TEST(TransformTest, DefaultTransformCachesARealisticPodInUnderOneKilobyte) {
  InternPool pool;
  std::vector<ObjectPtr> pods;
  const size_t raw_size = std::string(kFullPod).size();
  size_t own = 0;
  for (int i = 0; i < 5000; ++i) {
    auto pod = Pod();
    auto& a = pod.GetAllocator();
    json::SetString(*json::FindMutable(pod, {"metadata"}), "name", "web-" + std::to_string(i), a);
    json::SetString(*json::FindMutable(pod, {"metadata"}), "uid",
                    "6b1f9a52-3f7e-4c59-9d6e-" + std::to_string(100000000000 + i), a);
    json::SetString(*json::FindMutable(pod, {"spec"}), "nodeName", "node-" + std::to_string(i % 50), a);
    json::SetString(*json::FindMutable(pod, {"status"}), "podIP", "10.0." + std::to_string(i % 250) + "." + std::to_string(i / 250), a);
    ASSERT_TRUE(DefaultTransformFn(pod, pod.GetAllocator()));
    auto obj = CachedObject::FromJson(pod, pool);
    ASSERT_TRUE(obj);
    own += (*obj)->FootprintBytes();
    pods.push_back(*obj);
  }
  const size_t per_pod = (own + pool.FootprintBytes()) / pods.size();
  std::printf("cached pod: %zu bytes (raw JSON %zu, packed body %zu)\n", per_pod, raw_size,
              pods.back()->PackedSize());
  EXPECT_LT(per_pod, 1024u) << "raw JSON " << raw_size << " bytes";
  EXPECT_LT(per_pod, raw_size / 2);
}

}  // namespace
}  // namespace berth::shim
