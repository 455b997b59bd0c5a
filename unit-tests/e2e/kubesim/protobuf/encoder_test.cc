#include "e2e/kubesim/protobuf/encoder.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/decoder.h"
#include "e2e/kubesim/protobuf/message_tables.h"
#include "e2e/kubesim/protobuf/wire_reader.h"
#include "proto_builder.h"

namespace berth::kubesim::protobuf {
namespace {

using testing::Builder;
using testing::Envelope;

rapidjson::Document Json(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return doc ? std::move(*doc) : rapidjson::Document();
}

// RoundTrip encodes `text` and decodes the bytes back; the JSON must come back equal (member
// order aside: rapidjson compares objects by name).
void ExpectRoundTrip(std::string_view text) {
  auto in = Json(text);
  auto body = EncodeKubernetesProtobuf(in);
  ASSERT_TRUE(body) << body.error().message;
  ASSERT_TRUE(body->starts_with(kMagic));
  auto out = DecodeKubernetesProtobuf(*body);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_TRUE(in == *out) << "in:  " << json::Serialize(in) << "\nout: " << json::Serialize(*out);
}

// A Pod as the apiserver serves it, minus zero scalars of non-pointer fields (which protobuf
// cannot tell from absent). priority 0 and enableServiceLinks false are Go pointers: kept.
constexpr std::string_view kPod = R"({
  "kind": "Pod", "apiVersion": "v1",
  "metadata": {"name": "web-0", "namespace": "default", "uid": "0b7c3d7e-1", "resourceVersion": "42",
    "generation": 3, "creationTimestamp": "2024-05-01T10:00:00Z", "deletionGracePeriodSeconds": 0,
    "labels": {"app": "web", "tier": "front"}, "annotations": {"note": "", "x/y": "z"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "r1",
      "controller": true, "blockOwnerDeletion": false}],
    "finalizers": ["example.com/a", "example.com/b"],
    "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
      "time": "2024-05-01T10:00:01Z", "fieldsType": "FieldsV1",
      "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}]},
  "spec": {
    "containers": [{"name": "app", "image": "nginx:1.27", "command": ["nginx", "-g", "daemon off;"],
      "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
      "env": [{"name": "A", "value": "1"}, {"name": "EMPTY"},
        {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "b", "optional": true}}}],
      "envFrom": [{"secretRef": {"name": "s"}}],
      "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "1", "nvidia.com/gpu": "2"}},
      "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
        "periodSeconds": 10, "failureThreshold": 3},
      "livenessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 5},
      "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
    "volumes": [{"name": "cfg", "configMap": {"name": "web-config", "defaultMode": 420}},
      {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
    "ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "app"}],
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"kubernetes.io/os": "linux"}, "serviceAccountName": "default", "nodeName": "node-1",
    "priority": 0, "enableServiceLinks": false, "schedulerName": "default-scheduler",
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
      "tolerationSeconds": 300}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}}},
  "status": {"phase": "Running",
    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T10:00:05Z"}],
    "hostIP": "10.0.0.1", "podIP": "10.244.0.5", "podIPs": [{"ip": "10.244.0.5"}],
    "startTime": "2024-05-01T10:00:02Z", "qosClass": "Burstable",
    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 2, "image": "nginx:1.27",
      "imageID": "sha256:abc", "containerID": "containerd://1", "started": true,
      "state": {"running": {"startedAt": "2024-05-01T10:00:03Z"}}}]}
})";

TEST(ProtobufEncoderTest, PodRoundTripsThroughTheDecoder) { ExpectRoundTrip(kPod); }

TEST(ProtobufEncoderTest, NodeRoundTripsThroughTheDecoder) {
  ExpectRoundTrip(R"({"kind": "Node", "apiVersion": "v1",
    "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
    "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"], "unschedulable": true,
      "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule", "timeAdded": "2024-05-01T09:00:00Z"}]},
    "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
      "allocatable": {"cpu": "7800m", "memory": "31Gi", "pods": "110"},
      "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-01T10:00:00Z",
        "lastTransitionTime": "2024-05-01T09:00:00Z", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
      "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": "node-1"}],
      "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
      "nodeInfo": {"kubeletVersion": "v1.32.0", "architecture": "amd64", "operatingSystem": "linux"},
      "images": [{"names": ["nginx:1.27"], "sizeBytes": 68000000123}]}})");
}

TEST(ProtobufEncoderTest, EventWithMicroTimeAndSeriesRoundTrips) {
  ExpectRoundTrip(R"({"kind": "Event", "apiVersion": "v1",
    "metadata": {"name": "web-0.17a", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-0", "uid": "u1", "apiVersion": "v1",
      "fieldPath": "spec.containers{app}"},
    "reason": "Scheduled", "message": "Successfully assigned default/web-0 to node-1",
    "source": {"component": "default-scheduler"}, "firstTimestamp": "2024-05-01T10:00:00Z",
    "lastTimestamp": "2024-05-01T10:05:00Z", "count": 3, "type": "Normal",
    "eventTime": "2024-05-01T10:00:00.123456Z", "series": {"count": 2, "lastObservedTime": "2024-05-01T10:04:59.000001Z"},
    "action": "Binding", "reportingComponent": "default-scheduler", "reportingInstance": "sched-1"})");
}

TEST(ProtobufEncoderTest, DeploymentKeepsPointerZeroesAndIntOrStringForms) {
  ExpectRoundTrip(R"({"kind": "Deployment", "apiVersion": "apps/v1",
    "metadata": {"name": "web", "namespace": "default", "generation": 2},
    "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {}}]}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
      "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
    "status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 2,
      "availableReplicas": 2, "unavailableReplicas": 1,
      "conditions": [{"type": "Available", "status": "True", "lastUpdateTime": "2024-05-01T10:00:00Z",
        "lastTransitionTime": "2024-05-01T10:00:00Z", "reason": "MinimumReplicasAvailable", "message": "ok"}]}})");
}

TEST(ProtobufEncoderTest, PodListRoundTripsWithItemsAndListMeta) {
  std::string pod(kPod);
  auto pod_doc = Json(pod);
  auto list = Json(R"({"kind": "PodList", "apiVersion": "v1",
    "metadata": {"resourceVersion": "99", "continue": "abc", "remainingItemCount": 5}, "items": []})");
  auto& a = list.GetAllocator();
  // Items in protobuf carry no TypeMeta (the list's Unknown names the kind), so none here.
  pod_doc.RemoveMember("kind");
  pod_doc.RemoveMember("apiVersion");
  for (int i = 0; i < 2; ++i) {
    rapidjson::Value item;
    item.CopyFrom(pod_doc, a);
    item["metadata"]["name"].SetString(("web-" + std::to_string(i)).c_str(), a);
    list["items"].PushBack(item, a);
  }
  ExpectRoundTrip(json::Serialize(list));

  // ListEncoder, item by item, writes the same bytes as encoding the whole List document.
  auto list_encoder = ListEncoder::Create("v1", "PodList");
  ASSERT_TRUE(list_encoder) << list_encoder.error().message;
  list_encoder->SetMetadata("99", "abc", 5);
  for (const auto& item : list["items"].GetArray()) ASSERT_TRUE(list_encoder->AddItem(item));
  auto whole = EncodeKubernetesProtobuf(list);
  ASSERT_TRUE(whole);
  EXPECT_EQ(list_encoder->Finish(), *whole);
}

// The bytes of a small Pod, built by hand from k8s.io/api's published field numbers: Pod {1
// metadata, 2 spec, 3 status}; ObjectMeta {1 name, 3 namespace, 5 uid, 6 resourceVersion, 8
// creationTimestamp, 11 labels}; PodSpec {2 containers, 4 terminationGracePeriodSeconds, 10
// nodeName}; Container {1 name, 2 image, 6 ports, 8 resources}; ContainerPort {3 containerPort};
// ResourceRequirements {2 requests}; PodStatus {1 phase, 6 podIP}; Time {1 seconds, 2 nanos}.
TEST(ProtobufEncoderTest, SmallPodMatchesBytesBuiltFromThePublishedFieldNumbers) {
  auto pod = Json(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"labels": {"b": "2", "a": "1"}, "name": "p", "namespace": "ns", "uid": "u",
      "resourceVersion": "7", "creationTimestamp": "2024-05-01T10:00:00Z"},
    "spec": {"nodeName": "n1", "terminationGracePeriodSeconds": 30,
      "containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 80}],
        "resources": {"requests": {"cpu": "100m"}}}]},
    "status": {"podIP": "10.0.0.9", "phase": "Running"}})");
  Builder meta;
  meta.Bytes(1, "p").Bytes(3, "ns").Bytes(5, "u").Bytes(6, "7");
  meta.Message(8, Builder().Varint(1, 1714557600).Varint(2, 0));
  meta.MapEntry(11, "a", "1").MapEntry(11, "b", "2");  // map entries in key order
  Builder container;
  container.Bytes(1, "c").Bytes(2, "busybox").Message(6, Builder().Varint(3, 80));
  container.Message(8, Builder().Message(2, Builder().Bytes(1, "cpu").Message(2, Builder().Bytes(1, "100m"))));
  Builder spec;
  spec.Message(2, container).Varint(4, 30).Bytes(10, "n1");
  Builder status;
  status.Bytes(1, "Running").Bytes(6, "10.0.0.9");
  Builder object;
  object.Message(1, meta).Message(2, spec).Message(3, status);

  auto body = EncodeKubernetesProtobuf(pod);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, Envelope("v1", "Pod", object));
}

TEST(ProtobufEncoderTest, SpecialMessagesHaveUpstreamLayouts) {
  auto deployment = Json(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
    "spec": {"strategy": {"rollingUpdate": {"maxUnavailable": -1, "maxSurge": "25%"}}}})");
  Builder rolling;
  rolling.Message(1, Builder().Varint(1, 0).Varint(2, static_cast<std::uint64_t>(-1)).Bytes(3, ""));
  rolling.Message(2, Builder().Varint(1, 1).Varint(2, 0).Bytes(3, "25%"));
  Builder object;
  object.Message(1, Builder().Bytes(1, "d")).Message(2, Builder().Message(4, Builder().Message(2, rolling)));
  auto body = EncodeKubernetesProtobuf(deployment);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, Envelope("apps/v1", "Deployment", object));

  // managedFields[].fieldsV1 is RawExtension-like {1 raw JSON}; a Quantity given as a number is
  // its canonical string.
  auto pod = Json(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"managedFields": [{"fieldsV1": {"f:a": {}}}]},
    "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 2, "memory": 0.5}}}]}})");
  Builder limits;
  limits.Message(1, Builder().Bytes(1, "cpu").Message(2, Builder().Bytes(1, "2")));
  limits.Message(1, Builder().Bytes(1, "memory").Message(2, Builder().Bytes(1, "0.5")));
  Builder pod_object;
  pod_object.Message(1, Builder().Message(17, Builder().Message(7, Builder().Bytes(1, R"({"f:a":{}})"))));
  pod_object.Message(2, Builder().Message(2, Builder().Bytes(1, "c").Message(8, limits)));
  auto pod_body = EncodeKubernetesProtobuf(pod);
  ASSERT_TRUE(pod_body) << pod_body.error().message;
  EXPECT_EQ(*pod_body, Envelope("v1", "Pod", pod_object));
}

// Probe embeds ProbeHandler and Volume embeds VolumeSource (`json:",inline"`): flat in JSON, one
// message field on the wire (Probe {1 handler {2 httpGet {1 path}}}; Volume {1 name, 2 volumeSource {2 emptyDir}}).
TEST(ProtobufEncoderTest, InlinedGoStructsAreOneMessageFieldOnTheWire) {
  auto pod = Json(R"({"apiVersion": "v1", "kind": "Pod", "spec": {"volumes": [{"name": "v", "emptyDir": {}}],
    "containers": [{"name": "c", "livenessProbe": {"httpGet": {"path": "/h"}, "periodSeconds": 3}}]}})");
  Builder probe;
  probe.Message(1, Builder().Message(2, Builder().Bytes(1, "/h"))).Varint(4, 3);
  Builder spec;
  spec.Message(1, Builder().Bytes(1, "v").Message(2, Builder().Message(2, Builder())));
  spec.Message(2, Builder().Bytes(1, "c").Message(10, probe));
  auto body = EncodeKubernetesProtobuf(pod);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, Envelope("v1", "Pod", Builder().Message(2, spec)));
}

TEST(ProtobufEncoderTest, SecretBytesAreBase64DecodedOntoTheWire) {
  auto secret = Json(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "AP8Q"}})");
  Builder object;
  object.Message(1, Builder().Bytes(1, "s")).MapEntry(2, "k", std::string("\x00\xff\x10", 3));
  auto body = EncodeKubernetesProtobuf(secret);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, Envelope("v1", "Secret", object));
}

std::string EncodeError(std::string_view text) {
  auto body = EncodeKubernetesProtobuf(Json(text));
  return body ? "encoded" : body.error().message;
}

TEST(ProtobufEncoderTest, ValuesThatDoNotFitTheirFieldsAreErrorsNamingTheField) {
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}})"),
            "cannot encode spec.containers.ports.containerPort as protobuf: expected a 32-bit integer");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","spec":{"terminationGracePeriodSeconds":1.5}})"),
            "cannot encode spec.terminationGracePeriodSeconds as protobuf: expected a 64-bit integer");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":4294967296}]}]}})"),
            "cannot encode spec.containers.ports.containerPort as protobuf: expected a 32-bit integer");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","metadata":"x"})"),
            "cannot encode metadata as protobuf: expected an object");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":1}}})"),
            "cannot encode metadata.labels.a as protobuf: expected a string");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":null}}})"),
            "cannot encode metadata.labels.a as protobuf: a map value is null");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","metadata":{"finalizers":"a"}})"),
            "cannot encode metadata.finalizers as protobuf: expected an array");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","spec":{"hostNetwork":"true"}})"),
            "cannot encode spec.hostNetwork as protobuf: expected a boolean");
  EXPECT_NE(EncodeError(R"({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"yesterday"}})")
                .find("cannot encode metadata.creationTimestamp as protobuf: parsing time"),
            std::string::npos);
  EXPECT_NE(EncodeError(R"({"apiVersion":"v1","kind":"Secret","data":{"k":"!!"}})")
                .find("cannot encode data.k as protobuf: illegal base64 data"),
            std::string::npos);
  EXPECT_EQ(EncodeError(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}})"),
            "cannot encode spec.strategy.rollingUpdate.maxSurge as protobuf: expected a 32-bit integer or a string");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"resources":{"limits":{"cpu":[]}}}]}})"),
            "cannot encode spec.containers.resources.limits.cpu as protobuf: expected a quantity string");
  EXPECT_EQ(EncodeError(R"({"apiVersion":"example.com/v1","kind":"Widget"})"),
            "no protobuf encoding for example.com/v1, Kind=Widget");
  EXPECT_EQ(EncodeError(R"([1])"), "cannot encode a non-object as protobuf");
}

TEST(ProtobufEncoderTest, JsonNullsAndUnknownMembersAreLeftOut) {
  auto pod = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","deletionTimestamp":null,"futureField":{"x":1}},"spec":null})");
  auto body = EncodeKubernetesProtobuf(pod);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, Envelope("v1", "Pod", Builder().Message(1, Builder().Bytes(1, "p"))));
}

// Reads one length-delimited or varint field set of a message into (number -> last bytes).
std::map<std::uint32_t, std::string> Fields(std::string_view bytes) {
  std::map<std::uint32_t, std::string> out;
  WireReader r(bytes);
  while (!r.AtEnd()) {
    auto key = r.ReadKey();
    if (!key) return {};
    auto v = r.ReadLengthDelimited();
    if (!v) return {};
    out[key->number] = std::string(*v);
  }
  return out;
}

TEST(ProtobufEncoderTest, WatchEventFrameIsALengthPrefixedRawWatchEventEmbeddingTheEnvelopedObject) {
  auto object = EncodeKubernetesProtobuf(Json(kPod));
  ASSERT_TRUE(object);
  std::string frame = WatchEventFrame("MODIFIED", *object);
  ASSERT_GE(frame.size(), 4u);
  std::uint32_t length = (static_cast<std::uint8_t>(frame[0]) << 24) | (static_cast<std::uint8_t>(frame[1]) << 16) |
                         (static_cast<std::uint8_t>(frame[2]) << 8) | static_cast<std::uint8_t>(frame[3]);
  ASSERT_EQ(length, frame.size() - 4);
  std::string_view event(frame.data() + 4, length);
  EXPECT_FALSE(event.starts_with(kMagic));  // the stream serializer is the raw one: no envelope
  auto fields = Fields(event);
  EXPECT_EQ(fields[1], "MODIFIED");
  auto raw_extension = Fields(fields[2]);
  EXPECT_EQ(raw_extension[1], *object);
  auto decoded = DecodeKubernetesProtobuf(raw_extension[1]);
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(json::GetString(*decoded, {"metadata", "name"}), "web-0");
}

}  // namespace
}  // namespace berth::kubesim::protobuf
