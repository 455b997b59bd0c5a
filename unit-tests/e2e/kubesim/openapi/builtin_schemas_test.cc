#include "e2e/kubesim/openapi/builtin_schemas.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::openapi {
namespace {

// RefOf returns the $ref of a property, looking through the allOf wrapper used for descriptions.
std::string RefOf(const rapidjson::Value& prop) {
  if (prop.HasMember("$ref")) return prop["$ref"].GetString();
  if (prop.HasMember("allOf")) return prop["allOf"][0]["$ref"].GetString();
  return "";
}

TEST(BuiltinSchemasTest, PodSpecIsReferencedFromPodAndContainersAreContainerItems) {
  const rapidjson::Value* pod = BuiltinSchema("io.k8s.api.core.v1.Pod");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(RefOf((*pod)["properties"]["spec"]), "#/components/schemas/io.k8s.api.core.v1.PodSpec");
  EXPECT_EQ(RefOf((*pod)["properties"]["metadata"]),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  const rapidjson::Value* spec = BuiltinSchema("io.k8s.api.core.v1.PodSpec");
  ASSERT_NE(spec, nullptr);
  const rapidjson::Value& containers = (*spec)["properties"]["containers"];
  EXPECT_STREQ(containers["type"].GetString(), "array");
  EXPECT_EQ(RefOf(containers["items"]), "#/components/schemas/io.k8s.api.core.v1.Container");
  EXPECT_NE(std::string(containers["description"].GetString()).find("List of containers"), std::string::npos);
}

TEST(BuiltinSchemasTest, RequiredFieldsComeFromTheModelSetters) {
  const rapidjson::Value* container = BuiltinSchema("io.k8s.api.core.v1.Container");
  ASSERT_NE(container, nullptr);
  ASSERT_TRUE(container->HasMember("required"));
  EXPECT_EQ(json::Serialize((*container)["required"]), R"(["name"])");
  const rapidjson::Value* spec = BuiltinSchema("io.k8s.api.core.v1.PodSpec");
  EXPECT_EQ(json::Serialize((*spec)["required"]), R"(["containers"])");
}

TEST(BuiltinSchemasTest, SpecialTypesHaveTheirWireShapes) {
  const rapidjson::Value* ios = BuiltinSchema("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  ASSERT_NE(ios, nullptr);
  EXPECT_TRUE((*ios)["x-kubernetes-int-or-string"].GetBool());
  EXPECT_STREQ((*ios)["format"].GetString(), "int-or-string");
  const rapidjson::Value* time = BuiltinSchema("io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  ASSERT_NE(time, nullptr);
  EXPECT_STREQ((*time)["format"].GetString(), "date-time");
  const rapidjson::Value* reqs = BuiltinSchema("io.k8s.api.core.v1.ResourceRequirements");
  EXPECT_EQ(RefOf((*reqs)["properties"]["limits"]["additionalProperties"]),
            "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
  const rapidjson::Value* port = BuiltinSchema("io.k8s.api.core.v1.ServicePort");
  EXPECT_EQ(RefOf((*port)["properties"]["targetPort"]),
            "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString");
}

TEST(BuiltinSchemasTest, EveryReferenceResolvesToAnEmbeddedDefinition) {
  std::vector<const rapidjson::Value*> stack{&BuiltinSchemas()};
  int refs = 0;
  while (!stack.empty()) {
    const rapidjson::Value* v = stack.back();
    stack.pop_back();
    if (v->IsObject()) {
      for (const auto& m : v->GetObject()) {
        if (m.name == "$ref" && m.value.IsString()) {  // JSONSchemaProps also has a "$ref" property
          ++refs;
          EXPECT_NE(BuiltinSchema(RefTarget(m.value.GetString())), nullptr) << m.value.GetString();
        } else {
          stack.push_back(&m.value);
        }
      }
    } else if (v->IsArray()) {
      for (const auto& e : v->GetArray()) stack.push_back(&e);
    }
  }
  EXPECT_GT(refs, 100);
}

TEST(BuiltinSchemasTest, KindsAreFoundByGroupVersionKind) {
  EXPECT_EQ(BuiltinDefinitionName("", "v1", "Pod"), "io.k8s.api.core.v1.Pod");
  EXPECT_EQ(BuiltinDefinitionName("apps", "v1", "DeploymentList"), "io.k8s.api.apps.v1.DeploymentList");
  EXPECT_EQ(BuiltinDefinitionName("autoscaling", "v1", "Scale"), "io.k8s.api.autoscaling.v1.Scale");
  EXPECT_EQ(BuiltinDefinitionName("", "v1", "Event"), "io.k8s.api.core.v1.Event");
  EXPECT_EQ(BuiltinDefinitionName("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
  EXPECT_EQ(BuiltinDefinitionName("apps", "v1", "DeleteOptions"),
            "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions");
  EXPECT_EQ(BuiltinDefinitionName("", "v1", "ResourceQuota"), std::nullopt);
  EXPECT_EQ(BuiltinDefinitionName("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), "io.k8s.api.rbac.v1.ClusterRoleBinding");
  EXPECT_EQ(BuiltinDefinitionName("", "v2", "Pod"), std::nullopt);
}

TEST(BuiltinSchemasTest, EveryDefinitionIsFoundByNameAndUnknownOrPartialNamesAreNot) {
  int definitions = 0;
  for (const auto& def : BuiltinSchemas().GetObject()) {
    EXPECT_EQ(BuiltinSchema(std::string_view(def.name.GetString(), def.name.GetStringLength())), &def.value)
        << def.name.GetString();
    ++definitions;
  }
  EXPECT_GT(definitions, 100);
  EXPECT_EQ(BuiltinSchema("io.k8s.api.core.v1.Nope"), nullptr);
  EXPECT_EQ(BuiltinSchema("io.k8s.api.core.v1.Po"), nullptr);
  EXPECT_EQ(BuiltinSchema(""), nullptr);
  // A view that is not NUL-terminated is looked up by its own length.
  std::string_view longer = "io.k8s.api.core.v1.PodSpecXYZ";
  EXPECT_EQ(BuiltinSchema(longer.substr(0, longer.size() - 3)), BuiltinSchema("io.k8s.api.core.v1.PodSpec"));
}

TEST(BuiltinSchemasTest, GroupVersionKindLookupMatchesWholeComponentsOnly) {
  // The same kind in another group (Status is listed under several groups) and shifted
  // component boundaries must not match.
  EXPECT_EQ(BuiltinDefinitionName("policy", "v1", "Status"), "io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(BuiltinDefinitionName("", "v1Pod", ""), std::nullopt);
  EXPECT_EQ(BuiltinDefinitionName("v1", "Pod", ""), std::nullopt);
  EXPECT_EQ(BuiltinDefinitionName("", "", "v1Pod"), std::nullopt);
  EXPECT_EQ(BuiltinDefinitionName("", "v1", "pod"), std::nullopt);
}

TEST(BuiltinSchemasTest, RefTargetAcceptsBothDocumentVersionsOnly) {
  EXPECT_EQ(RefTarget("#/components/schemas/a.B"), "a.B");
  EXPECT_EQ(RefTarget("#/definitions/a.B"), "a.B");
  EXPECT_EQ(RefTarget("a.B"), "");
  EXPECT_EQ(RefTarget(""), "");
}

}  // namespace
}  // namespace berth::kubesim::openapi
