#include "e2e/kubesim/protobuf/decoder.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/message_tables.h"
#include "proto_builder.h"

namespace berth::kubesim::protobuf {
namespace {

using testing::Builder;
using testing::Envelope;

constexpr std::int64_t kGoZeroTime = -62135596800;

// Meta builds ObjectMeta the way gogo marshals it: every non-pointer field present, zero or not.
Builder Meta(std::string_view name) {
  Builder zero_time;
  zero_time.Varint(1, static_cast<std::uint64_t>(kGoZeroTime)).Varint(2, 0);
  Builder m;
  m.Bytes(1, name).Bytes(2, "").Bytes(3, "").Bytes(4, "").Bytes(5, "").Bytes(6, "").Varint(7, 0);
  m.Message(8, zero_time);
  return m;
}

std::string Decoded(std::string_view body) {
  auto doc = DecodeKubernetesProtobuf(body);
  if (!doc) return "error: " + doc.error().message;
  return json::Serialize(*doc);
}

TEST(ProtobufDecoderTest, NamespaceFromKubectlCreateBecomesJsonWithoutGoZeroValues) {
  Builder ns;
  ns.Message(1, Meta("n1")).Message(2, Builder()).Message(3, Builder().Bytes(1, ""));
  EXPECT_EQ(Decoded(Envelope("v1", "Namespace", ns)),
            R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n1"},"spec":{},"status":{}})");
}

TEST(ProtobufDecoderTest, ConfigMapDataAndBinaryDataAndAPointerFalseAreKept) {
  Builder cm;
  cm.Message(1, Meta("c1").MapEntry(11, "app", "x")).MapEntry(2, "a", "b").MapEntry(2, "c", "");
  cm.MapEntry(3, "bin", std::string("\x00\xff\x10", 3)).Varint(4, 0);
  EXPECT_EQ(Decoded(Envelope("v1", "ConfigMap", cm)),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c1","labels":{"app":"x"}},)"
            R"("data":{"a":"b","c":""},"binaryData":{"bin":"AP8Q"},"immutable":false})");
}

TEST(ProtobufDecoderTest, DeploymentFromKubectlCreateDeploymentKeepsReplicasZeroAndQuantities) {
  Builder container;
  container.Bytes(1, "busybox").Bytes(2, "busybox").Bytes(3, "sleep").Bytes(3, "1");  // command, repeated
  container.Message(8, Builder().Message(1, Builder().Bytes(1, "cpu").Message(2, Builder().Bytes(1, "500m"))));
  Builder pod_spec;
  pod_spec.Message(2, container).Bytes(3, "");
  Builder tmpl;
  tmpl.Message(1, Meta("").MapEntry(11, "app", "dd")).Message(2, pod_spec);
  Builder spec;
  spec.Varint(1, 0).Message(2, Builder().MapEntry(1, "app", "dd")).Message(3, tmpl).Message(4, Builder());
  spec.Varint(5, 0);
  Builder dep;
  dep.Message(1, Meta("dd")).Message(2, spec).Message(3, Builder());
  auto doc = DecodeKubernetesProtobuf(Envelope("apps/v1", "Deployment", dep));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize((*doc)["spec"]),
            R"({"replicas":0,"selector":{"matchLabels":{"app":"dd"}},"template":{"metadata":{"labels":{"app":"dd"}},)"
            R"("spec":{"containers":[{"name":"busybox","image":"busybox","command":["sleep","1"],)"
            R"("resources":{"limits":{"cpu":"500m"}}}]}},"strategy":{}})");
}

TEST(ProtobufDecoderTest, ServicePortsCarryIntOrStringTargetPortsAndDropAZeroNodePort) {
  Builder by_number, by_name;
  by_number.Bytes(1, "80").Bytes(2, "TCP").Varint(3, 80).Message(4, Builder().Varint(1, 0).Varint(2, 8080)).Varint(5, 0);
  by_name.Bytes(1, "web").Bytes(2, "TCP").Varint(3, 81).Message(4, Builder().Varint(1, 1).Varint(2, 0).Bytes(3, "http"));
  Builder spec;
  spec.Message(1, by_number).Message(1, by_name).MapEntry(2, "app", "s1").Bytes(4, "ClusterIP");
  Builder svc;
  svc.Message(1, Meta("s1")).Message(2, spec);
  auto doc = DecodeKubernetesProtobuf(Envelope("v1", "Service", svc));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize((*doc)["spec"]),
            R"({"ports":[{"name":"80","protocol":"TCP","port":80,"targetPort":8080},)"
            R"({"name":"web","protocol":"TCP","port":81,"targetPort":"http"}],"selector":{"app":"s1"},"type":"ClusterIP"})");
}

TEST(ProtobufDecoderTest, PodDisruptionBudgetKeepsPercentAndIntegerBudgets) {
  Builder spec;
  spec.Message(1, Builder().Varint(1, 1).Bytes(3, "50%")).Message(2, Builder().MapEntry(1, "app", "x"));
  Builder pdb;
  pdb.Message(1, Meta("p1")).Message(2, spec);
  auto doc = DecodeKubernetesProtobuf(Envelope("policy/v1", "PodDisruptionBudget", pdb));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize((*doc)["spec"]), R"({"minAvailable":"50%","selector":{"matchLabels":{"app":"x"}}})");
}

TEST(ProtobufDecoderTest, TimesBecomeRfc3339AndOwnerReferencesRepeat) {
  Builder meta = Meta("t");
  meta.Message(9, Builder().Varint(1, 1700000000));  // deletionTimestamp
  meta.Message(13, Builder().Bytes(1, "ReplicaSet").Bytes(3, "rs").Bytes(4, "u1").Bytes(5, "apps/v1").Varint(6, 1));
  meta.Bytes(14, "f1").Bytes(14, "f2");
  auto doc = DecodeKubernetesProtobuf(Envelope("v1", "Pod", Builder().Message(1, meta)));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize((*doc)["metadata"]),
            R"({"name":"t","deletionTimestamp":"2023-11-14T22:13:20Z","ownerReferences":[{"kind":"ReplicaSet",)"
            R"("name":"rs","uid":"u1","apiVersion":"apps/v1","controller":true}],"finalizers":["f1","f2"]})");
}

TEST(ProtobufDecoderTest, UnknownFieldsAreSkipped) {
  Builder ns;
  ns.Message(1, Meta("n").Varint(900, 5).Bytes(901, "x")).Varint(77, 1);
  EXPECT_EQ(Decoded(Envelope("v1", "Namespace", ns)), R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n"}})");
}

// Go structs embedded with `json:",inline"` are one message field on the wire and flat in JSON:
// ConfigMapKeySelector {1 localObjectReference {1 name}, 2 key}, Volume {1 name, 2 volumeSource
// {2 emptyDir}}, Probe {1 handler {3 tcpSocket {1 port}}, 4 periodSeconds}.
TEST(ProtobufDecoderTest, InlinedGoStructsAreFlattenedIntoTheirParent) {
  Builder env;
  env.Bytes(1, "A").Message(3, Builder().Message(3, Builder().Message(1, Builder().Bytes(1, "cm")).Bytes(2, "k")));
  Builder probe;
  probe.Message(1, Builder().Message(3, Builder().Message(1, Builder().Varint(1, 0).Varint(2, 80)))).Varint(4, 5);
  Builder container;
  container.Bytes(1, "c").Message(7, env).Message(10, probe);
  Builder spec;
  spec.Message(1, Builder().Bytes(1, "v").Message(2, Builder().Message(2, Builder()))).Message(2, container);
  auto doc = DecodeKubernetesProtobuf(Envelope("v1", "Pod", Builder().Message(2, spec)));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize((*doc)["spec"]),
            R"({"volumes":[{"name":"v","emptyDir":{}}],"containers":[{"name":"c","env":[{"name":"A",)"
            R"("valueFrom":{"configMapKeyRef":{"name":"cm","key":"k"}}}],"livenessProbe":{"tcpSocket":{"port":80},)"
            R"("periodSeconds":5}}]})");
}

TEST(ProtobufDecoderTest, AKindWithoutATableIsNotFoundSoTheServerAnswers415) {
  auto doc = DecodeKubernetesProtobuf(
      Envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", Builder().Message(1, Meta("p"))));
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code, ErrorCode::kNotFound);
}

TEST(ProtobufDecoderTest, ABodyWithoutTheMagicIsRejectedWithTheApiserverMessage) {
  auto doc = DecodeKubernetesProtobuf(R"({"kind":"Namespace"})");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(doc.error().message,
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
}

TEST(ProtobufDecoderTest, WrongWireTypesInvalidUtf8AndMissingKindAreMalformed) {
  auto wrong_wire = DecodeKubernetesProtobuf(Envelope("v1", "Namespace", Builder().Varint(1, 3)));
  ASSERT_FALSE(wrong_wire);
  EXPECT_EQ(wrong_wire.error().code, ErrorCode::kInvalidArgument);
  auto bad_utf8 = DecodeKubernetesProtobuf(Envelope("v1", "Namespace", Builder().Message(1, Builder().Bytes(1, "\xff\xfe"))));
  ASSERT_FALSE(bad_utf8);
  EXPECT_NE(bad_utf8.error().message.find("UTF-8"), std::string::npos);
  auto no_kind = DecodeKubernetesProtobuf(Envelope("v1", "", Builder()));
  ASSERT_FALSE(no_kind);
  EXPECT_EQ(no_kind.error().code, ErrorCode::kInvalidArgument);
}

TEST(ProtobufDecoderTest, EveryTruncationOfAValidBodyFailsCleanlyOrDecodes) {
  Builder cm;
  cm.Message(1, Meta("c1").MapEntry(11, "app", "x")).MapEntry(2, "a", "b").Varint(4, 1);
  std::string body = Envelope("v1", "ConfigMap", cm);
  ASSERT_TRUE(DecodeKubernetesProtobuf(body));
  int failures = 0;
  for (std::size_t n = 0; n < body.size(); ++n) {
    auto doc = DecodeKubernetesProtobuf(std::string_view(body).substr(0, n));
    if (!doc) {
      ++failures;
      EXPECT_TRUE(doc.error().code == ErrorCode::kInvalidArgument) << n;
    }
  }
  // Only cuts on a field boundary of the envelope can still parse; almost every prefix must fail.
  EXPECT_GT(failures, static_cast<int>(body.size()) - 4);
}

TEST(ProtobufDecoderTest, RandomBytesNeverCrashAndSuccessesAreObjectsWithAKind) {
  std::mt19937 rng(12345);
  Builder cm;
  cm.Message(1, Meta("c1")).MapEntry(2, "a", "b");
  std::string valid = Envelope("v1", "ConfigMap", cm);
  for (int i = 0; i < 3000; ++i) {
    std::string body = valid;
    if (i % 2 == 0) {  // mutate a valid body
      for (int k = 0; k < 1 + i % 5; ++k) body[4 + rng() % (body.size() - 4)] = static_cast<char>(rng());
    } else {  // random tail after the magic
      body.resize(4 + rng() % 64);
      for (std::size_t k = 4; k < body.size(); ++k) body[k] = static_cast<char>(rng());
    }
    auto doc = DecodeKubernetesProtobuf(body);
    if (doc) {
      EXPECT_TRUE(doc->IsObject());
      EXPECT_TRUE(doc->HasMember("kind"));
    } else {
      EXPECT_TRUE(doc.error().code == ErrorCode::kInvalidArgument || doc.error().code == ErrorCode::kNotFound);
    }
  }
}

TEST(ProtobufMessageTablesTest, FieldNumbersMatchTheUpstreamProtoForObjectMetaAndContainer) {
  int ns = FindRootMessage("v1", "Namespace");
  ASSERT_GE(ns, 0);
  const FieldSpec* meta_field = FindField(kMessages[ns], 1);
  ASSERT_NE(meta_field, nullptr);
  const MessageSpec& meta = kMessages[meta_field->message];
  EXPECT_STREQ(meta.name, "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_STREQ(FindField(meta, 3)->json_name, "namespace");
  EXPECT_EQ(FindField(meta, 11)->kind, FieldKind::kMap);
  EXPECT_STREQ(FindField(meta, 13)->json_name, "ownerReferences");
  EXPECT_EQ(FindField(meta, 15), nullptr);
  EXPECT_EQ(FindRootMessage("apps/v1", "Deployment") >= 0, true);
  EXPECT_EQ(FindRootMessage("v1", "ResourceQuota"), -1);  // not served by kubesim
  EXPECT_GE(FindRootMessage("v1", "Secret"), 0);  // Helm stores releases in Secrets
  EXPECT_EQ(FindRootMessage("rbac.authorization.k8s.io/v1", "DeleteOptions"), FindRootMessage("v1", "DeleteOptions"));
}

}  // namespace
}  // namespace berth::kubesim::protobuf
