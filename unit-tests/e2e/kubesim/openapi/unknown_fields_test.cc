#include "e2e/kubesim/openapi/unknown_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::openapi {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

rapidjson::Document P(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return doc ? std::move(*doc) : rapidjson::Document();
}

TEST(UnknownFieldsTest, MisspelledContainerFieldIsReportedWithItsIndexedPath) {
  auto pod = P(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","labels":{"anything.io/key":"v"},"annotations":{"x":"y"}},
      "spec":{"containers":[{"name":"a","image":"busybox"},{"name":"b","imagee":"busybox",
        "resources":{"limits":{"cpu":"1"}},"ports":[{"containerPort":80,"protocoll":"TCP"}]}]}})");
  EXPECT_THAT(UnknownFields("", "v1", "Pod", pod),
              ElementsAre("spec.containers[1].imagee", "spec.containers[1].ports[0].protocoll"));
}

TEST(UnknownFieldsTest, KnownFieldsAndMapKeysAreAccepted) {
  auto deploy = P(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"},
      "creationTimestamp":null,"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},
        "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
        "template":{"metadata":{"labels":{"app":"x"}},"spec":{"nodeSelector":{"k":"v"},
          "containers":[{"name":"c","image":"i","env":[{"name":"A","value":"1"}],
            "livenessProbe":{"httpGet":{"port":"http","path":"/"}}}]}}},
      "status":{"replicas":1}})");
  EXPECT_THAT(UnknownFields("apps", "v1", "Deployment", deploy), IsEmpty());
}

TEST(UnknownFieldsTest, FieldsAddedAfterTheModelVersionAreKnown) {
  auto pod = P(R"({"spec":{"schedulingGates":[{"name":"g"}],"os":{"name":"linux"},
      "containers":[{"name":"c","restartPolicy":"Always","readinessProbe":{"grpc":{"port":1}}}]}})");
  EXPECT_THAT(UnknownFields("", "v1", "Pod", pod), IsEmpty());
}

TEST(UnknownFieldsTest, UnknownTopLevelAndMetadataFieldsAreReported) {
  auto cm = P(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","lables":{"a":"b"}},
      "data":{"k":"v"},"extra":1})");
  EXPECT_THAT(UnknownFields("", "v1", "ConfigMap", cm), ElementsAre("metadata.lables", "extra"));
}

TEST(UnknownFieldsTest, CrdSchemaBodiesAreFreeFormWhereTheApiSaysSo) {
  auto crd = P(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.example.com"},
      "spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced",
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
          "type":"object","x-kubernetes-validations":[{"rule":"true"}],
          "properties":{"spec":{"type":"object","default":{"a":1},"properties":{"x":{"type":"string"}},
            "x-kubernetes-preserve-unknown-fields":true}}}},
          "subresources":{"status":{}},"bogus":true}]}})");
  EXPECT_THAT(UnknownFields("apiextensions.k8s.io", "v1", "CustomResourceDefinition", crd),
              ElementsAre("spec.versions[0].bogus"));
}

TEST(UnknownFieldsTest, UnknownKindOrNonObjectInputReportsNothing) {
  auto obj = P(R"({"whatever":1})");
  EXPECT_THAT(UnknownFields("", "v1", "ResourceQuota", obj), IsEmpty());
  auto arr = P(R"([1,2])");
  EXPECT_THAT(UnknownFields("", "v1", "Pod", arr), IsEmpty());
  auto wrong_types = P(R"({"spec":"not an object","metadata":[1]})");
  EXPECT_THAT(UnknownFields("", "v1", "Pod", wrong_types), IsEmpty());
}

TEST(UnknownFieldsTest, CustomResourcesFollowStructuralPruningRules) {
  auto schema = P(R"({"type":"object","properties":{
      "spec":{"type":"object","properties":{"size":{"type":"integer"},
        "labels":{"type":"object","additionalProperties":{"type":"string"}},
        "items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}},
        "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
        "empty":{"type":"object"}}}}})");
  auto cr = P(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labls":{}},
      "spec":{"size":1,"labels":{"any":"x"},"items":[{"n":"a"},{"m":"b"}],"free":{"z":{"y":1}},
        "empty":{"q":1},"sise":2},"status":{}})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&schema, cr),
              ElementsAre("metadata.labls", "spec.items[1].m", "spec.empty.q", "spec.sise", "status"));
  EXPECT_THAT(UnknownFieldsInCustomResource(nullptr, cr), IsEmpty());
}

TEST(UnknownFieldsTest, CustomResourceRootAlwaysAllowsApiVersionKindAndMetadata) {
  // No root properties: only the three implicit fields are known; they are strings (apiVersion,
  // kind) or ObjectMeta, so an object given for apiVersion has undeclared members.
  auto bare = P(R"({"type":"object"})");
  auto cr = P(R"({"apiVersion":{"x":1},"kind":"W","metadata":{"name":"w","nam":1},"spec":{}})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&bare, cr), ElementsAre("apiVersion.x", "metadata.nam", "spec"));
  // Non-object "properties" declares nothing beyond the implicit fields; other fields go to
  // additionalProperties (an empty object against a string schema has no undeclared member).
  auto odd = P(R"({"type":"object","properties":[1],"additionalProperties":{"type":"string"}})");
  auto cr2 = P(R"({"apiVersion":"v","metadata":{"name":"w"},"spec":{"a":1},"more":{}})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&odd, cr2), ElementsAre("spec.a"));
  // A schema's own declaration of apiVersion wins over the implicit string.
  auto own = P(R"({"type":"object","properties":{"apiVersion":{"type":"object","properties":{"x":{}}}}})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&own, cr), ElementsAre("metadata.nam", "spec"));
  // The implicit fields apply at the root only.
  auto nested = P(R"({"type":"object","properties":{"spec":{"type":"object","properties":{"a":{}}}}})");
  auto inner = P(R"({"spec":{"a":1,"kind":"K","apiVersion":"v"}})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&nested, inner), ElementsAre("spec.kind", "spec.apiVersion"));
  // The schema itself is not modified by the check.
  EXPECT_EQ(json::Serialize(bare), R"({"type":"object"})");
}

TEST(UnknownFieldsTest, CustomResourceRootReferenceIsFollowedToTheBuiltinDefinition) {
  auto schema = P(R"({"$ref":"#/components/schemas/io.k8s.api.core.v1.ConfigMap"})");
  auto cm = P(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"},"extra":1})");
  EXPECT_THAT(UnknownFieldsInCustomResource(&schema, cm), ElementsAre("extra"));
}

TEST(UnknownFieldsTest, StrictDecodingErrorUsesApiserverWording) {
  EXPECT_EQ(StrictDecodingError("Pod", "v1", {"spec.containers[0].imagee", "foo"}),
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
            "unknown field \"spec.containers[0].imagee\", unknown field \"foo\"");
}

}  // namespace
}  // namespace berth::kubesim::openapi
