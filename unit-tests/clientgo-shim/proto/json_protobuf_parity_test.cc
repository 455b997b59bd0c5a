// The same Pod and Node served as JSON and as protobuf (kubesim's encoder, the bytes an informer
// asking for protobuf receives) must be cached identically: every field berth reads from a JSON
// pod or node, including the whole spec a migration copies into its Reservation template.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/cached_object.h"
#include "clientgo-shim/cache/transform.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "clientgo-shim/watch/watch_event.h"
#include "e2e/kubesim/protobuf/encoder.h"

namespace berth::shim::proto {
namespace {

// A Running pod as kube-apiserver writes it (Go's JSON: omitempty zeros absent, map keys sorted),
// with every part of the spec and status berth's controllers read or copy.
constexpr char kPodJson[] = R"({
 "metadata":{"name":"web-7d4b9-x2k","generateName":"web-7d4b9-","namespace":"shop","uid":"5f0c1a9e-1",
  "resourceVersion":"4711","generation":1,"creationTimestamp":"2024-05-01T12:00:00Z",
  "labels":{"app":"web","pod-template-hash":"7d4b9"},
  "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","scheduling.koordinator.sh/reservation-affinity":"{\"name\":\"r1\"}"},
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9","uid":"rs-1","controller":true,"blockOwnerDeletion":true}],
  "finalizers":["example.com/keep"],
  "managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2024-05-01T12:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{}}}]},
 "spec":{
  "volumes":[{"name":"config","configMap":{"name":"web-config","defaultMode":420}},
   {"name":"data","persistentVolumeClaim":{"claimName":"data-web"}},
   {"name":"scratch","emptyDir":{"sizeLimit":"1Gi"}},
   {"name":"host","hostPath":{"path":"/var/log","type":""}},
   {"name":"kube-api-access-x1","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
     {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
     {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],
  "initContainers":[{"name":"proxy","image":"proxy:2","restartPolicy":"Always","resources":{"requests":{"cpu":"50m"}}}],
  "containers":[{"name":"app","image":"registry.example.com/web:1.4.2","command":["/web"],"args":["--port=8080"],
    "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"admin","hostPort":9443,"containerPort":9443,"protocol":"TCP","hostIP":"0.0.0.0"}],
    "env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},
     {"name":"TOKEN","valueFrom":{"secretKeyRef":{"name":"web-secret","key":"token","optional":false}}}],
    "envFrom":[{"configMapRef":{"name":"web-env"}}],
    "resources":{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":"250m","memory":"256Mi"}},
    "volumeMounts":[{"name":"config","mountPath":"/etc/web"},{"name":"kube-api-access-x1","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],
    "livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":5,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
    "readinessProbe":{"tcpSocket":{"port":"http"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
    "lifecycle":{"preStop":{"exec":{"command":["/bin/sleep","5"]}}},
    "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent",
    "securityContext":{"capabilities":{"drop":["ALL"]},"runAsUser":1000,"runAsNonRoot":true,"allowPrivilegeEscalation":false}}],
  "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
  "nodeSelector":{"kubernetes.io/os":"linux"},"serviceAccountName":"web","serviceAccount":"web","nodeName":"node-3",
  "securityContext":{"fsGroup":2000},"imagePullSecrets":[{"name":"regcred"}],
  "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]},
     "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["node-9"]}]}}]},
   "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname","matchLabelKeys":["pod-template-hash"]}],
     "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"tier","operator":"Exists"}]},"namespaceSelector":{},"topologyKey":"zone"}}]}},
  "schedulerName":"koord-scheduler",
  "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
   {"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"},{"key":"evict-now","operator":"Exists","effect":"NoExecute","tolerationSeconds":0}],
  "priorityClassName":"high","priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority",
  "overhead":{"cpu":"10m"},
  "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}},"minDomains":2,"nodeAffinityPolicy":"Honor","matchLabelKeys":["pod-template-hash"]}],
  "readinessGates":[{"conditionType":"example.com/ready"}]},
 "status":{"phase":"Running",
  "conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:09Z"},
   {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:01Z"}],
  "hostIP":"10.0.0.3","hostIPs":[{"ip":"10.0.0.3"}],"podIP":"10.1.3.7","podIPs":[{"ip":"10.1.3.7"}],
  "startTime":"2024-05-01T12:00:01Z","nominatedNodeName":"node-3",
  "containerStatuses":[{"name":"app","state":{"running":{"startedAt":"2024-05-01T12:00:04Z"}},
    "lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2024-05-01T12:00:02Z","finishedAt":"2024-05-01T12:00:03Z","containerID":"containerd://a1"}},
    "ready":true,"restartCount":1,"image":"registry.example.com/web:1.4.2","imageID":"registry.example.com/web@sha256:00","containerID":"containerd://b2","started":true}],
  "qosClass":"Burstable"}})";

constexpr char kNodeJson[] = R"({
 "metadata":{"name":"node-3","uid":"n-3","resourceVersion":"12","creationTimestamp":"2024-04-01T00:00:00Z",
  "labels":{"kubernetes.io/hostname":"node-3","zone":"a"},"annotations":{"node.alpha.kubernetes.io/ttl":"0"}},
 "spec":{"podCIDR":"10.1.3.0/24","podCIDRs":["10.1.3.0/24"],"providerID":"kind://node-3","unschedulable":true,
  "taints":[{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":"2024-05-01T11:00:00Z"},{"key":"dedicated","value":"web","effect":"NoSchedule"}]},
 "status":{"capacity":{"cpu":"8","memory":"32Gi","pods":"110"},"allocatable":{"cpu":"7800m","memory":"31Gi","pods":"110"},
  "conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2024-05-01T12:00:00Z","lastTransitionTime":"2024-04-01T00:01:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],
  "addresses":[{"type":"InternalIP","address":"10.0.0.3"},{"type":"Hostname","address":"node-3"}],
  "daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},
  "nodeInfo":{"machineID":"m","systemUUID":"s","bootID":"b","kernelVersion":"6.1","osImage":"Debian","containerRuntimeVersion":"containerd://1.7","kubeletVersion":"v1.32.0","kubeProxyVersion":"v1.32.0","operatingSystem":"linux","architecture":"amd64"},
  "images":[{"names":["registry.example.com/web@sha256:00","registry.example.com/web:1.4.2"],"sizeBytes":52428800}]}})";

rapidjson::Document Parse(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : rapidjson::Document();
}

// CachedFromJson / CachedFromProtobuf: the object as the informer caches it from a LIST page of
// each format (DefaultTransform, then the packed form), rebuilt as JSON.
rapidjson::Document CachedFromJson(std::string_view list_kind, std::string_view item) {
  auto page = DecodeListPage(R"({"kind":")" + std::string(list_kind) +
                             R"(","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[)" +
                             std::string(item) + "]}");
  EXPECT_TRUE(page) << page.error().message;
  if (!page) return {};
  auto& items = page->body["items"];
  EXPECT_EQ(items.Size(), 1u);
  EXPECT_TRUE(DefaultTransformFn(items[0], page->body.GetAllocator()));
  auto obj = CachedObject::FromJson(items[0]);
  EXPECT_TRUE(obj) << obj.error().message;
  auto out = (*obj)->ToJson();
  EXPECT_TRUE(out);
  return std::move(*out);
}

rapidjson::Document CachedFromProtobuf(std::string_view list_kind, std::string_view item) {
  auto encoder = kubesim::protobuf::ListEncoder::Create("v1", list_kind);
  EXPECT_TRUE(encoder) << encoder.error().message;
  if (!encoder) return {};
  encoder->SetMetadata("9", "", 0);
  EXPECT_TRUE(encoder->AddItem(Parse(item)));
  const std::string body = encoder->Finish();
  std::vector<ObjectPtr> cached;
  auto meta = DecodeListItems(body, [&](rapidjson::Value& v, rapidjson::Document::AllocatorType& a) -> Status {
    if (auto st = DefaultTransformFn(v, a); !st) return st;
    auto obj = CachedObject::FromJson(v);
    if (!obj) return std::unexpected(obj.error());
    cached.push_back(*obj);
    return {};
  });
  EXPECT_TRUE(meta) << meta.error().message;
  if (!meta) return {};
  EXPECT_EQ(meta->resource_version, "9");
  EXPECT_EQ(cached.size(), 1u);
  if (cached.empty()) return {};
  auto out = cached[0]->ToJson();
  EXPECT_TRUE(out);
  return std::move(*out);
}

TEST(JsonProtobufParityTest, APodIsCachedTheSameFromJsonAndFromProtobuf) {
  rapidjson::Document from_json = CachedFromJson("PodList", kPodJson);
  rapidjson::Document from_protobuf = CachedFromProtobuf("PodList", kPodJson);
  EXPECT_TRUE(from_json == from_protobuf) << "json:     " << json::Serialize(from_json)
                                          << "\nprotobuf: " << json::Serialize(from_protobuf);
  // The parts that make the comparison meaningful are there (the transform kept them).
  ASSERT_NE(json::Find(from_protobuf, {"spec", "containers"}), nullptr);
  EXPECT_NE(json::Find(from_protobuf, {"spec", "containers"})->Size(), 0u);
  ASSERT_NE(json::Find(from_protobuf, {"spec", "volumes"}), nullptr);
  EXPECT_EQ(json::Find(from_protobuf, {"spec", "volumes"})->Size(), 5u);
  EXPECT_NE(json::Find(from_protobuf, {"status", "containerStatuses"}), nullptr);
  EXPECT_EQ(json::Find(from_protobuf, {"metadata", "managedFields"}), nullptr);
}

TEST(JsonProtobufParityTest, ANodeIsCachedTheSameFromJsonAndFromProtobuf) {
  rapidjson::Document from_json = CachedFromJson("NodeList", kNodeJson);
  rapidjson::Document from_protobuf = CachedFromProtobuf("NodeList", kNodeJson);
  EXPECT_TRUE(from_json == from_protobuf) << "json:     " << json::Serialize(from_json)
                                          << "\nprotobuf: " << json::Serialize(from_protobuf);
  ASSERT_NE(json::Find(from_protobuf, {"status", "images"}), nullptr);
}

TEST(JsonProtobufParityTest, PointerZerosSurviveAndNonPointerZerosFollowOmitempty) {
  // priority 0, tolerationSeconds 0 and allowPrivilegeEscalation false are Go pointers: present
  // and zero, unlike absent (tolerationSeconds absent = tolerate forever).
  rapidjson::Document pod = CachedFromProtobuf("PodList", kPodJson);
  const rapidjson::Value* priority = json::Find(pod, {"spec", "priority"});
  ASSERT_NE(priority, nullptr);
  EXPECT_EQ(priority->GetInt(), 0);
  const rapidjson::Value& tolerations = *json::Find(pod, {"spec", "tolerations"});
  ASSERT_EQ(tolerations.Size(), 3u);
  EXPECT_EQ(json::Member(tolerations[1], "tolerationSeconds"), nullptr);
  ASSERT_NE(json::Member(tolerations[2], "tolerationSeconds"), nullptr);
  EXPECT_EQ(json::Member(tolerations[2], "tolerationSeconds")->GetInt64(), 0);
  const rapidjson::Value* escalation =
      json::Find(pod, {"spec", "containers"}) ? &(*json::Find(pod, {"spec", "containers"}))[0] : nullptr;
  ASSERT_NE(escalation, nullptr);
  EXPECT_FALSE(json::Find(*escalation, {"securityContext", "allowPrivilegeEscalation"})->GetBool());
}

}  // namespace
}  // namespace berth::shim::proto
