#include "e2e/kubesim/openapi/v3_document.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "test_resources.h"

namespace berth::kubesim::openapi {
namespace {

using testing::Builtin;
using testing::KubesimResources;

rapidjson::Document ParseGv(std::string_view gv, const std::vector<ResourceInfo>& resources) {
  std::optional<std::string> text = BuildV3GroupVersion(gv, resources);
  EXPECT_TRUE(text.has_value()) << gv;
  auto doc = json::Parse(text.value_or("{}"));
  EXPECT_TRUE(doc.has_value());
  return std::move(*doc);
}

bool HasParam(const rapidjson::Value& op, std::string_view name) {
  if (!op.HasMember("parameters")) return false;
  for (const auto& p : op["parameters"].GetArray()) {
    if (json::GetString(p, {"name"}) == name) return true;
  }
  return false;
}

TEST(V3DocumentTest, RootListsEveryGroupVersionWithAHashedUrl) {
  rapidjson::Document root = BuildV3Root(KubesimResources());
  const rapidjson::Value& paths = root["paths"];
  for (std::string_view gv : {"api/v1", "apis/apps/v1", "apis/policy/v1", "apis/coordination.k8s.io/v1",
                              "apis/apiextensions.k8s.io/v1"}) {
    const rapidjson::Value* entry = json::Member(paths, gv);
    ASSERT_NE(entry, nullptr) << gv;
    std::string url(json::GetString(*entry, {"serverRelativeURL"}));
    std::string prefix = "/openapi/v3/" + std::string(gv) + "?hash=";
    ASSERT_TRUE(url.starts_with(prefix)) << url;
    std::string hash = url.substr(prefix.size());
    EXPECT_EQ(hash, ContentHash(*BuildV3GroupVersion(gv, KubesimResources())));
    EXPECT_EQ(hash.find_first_not_of("0123456789ABCDEF"), std::string::npos) << hash;
  }
  EXPECT_EQ(paths.MemberCount(), 5u);
}

TEST(V3DocumentTest, HashChangesWithTheDocumentAndIsStable) {
  EXPECT_EQ(ContentHash("abc"), ContentHash("abc"));
  EXPECT_NE(ContentHash("abc"), ContentHash("abd"));
  EXPECT_NE(ContentHash(""), ContentHash(" "));
}

TEST(V3DocumentTest, PodPatchOperationCarriesGvkAndFieldValidation) {
  rapidjson::Document doc = ParseGv("api/v1", KubesimResources());
  EXPECT_STREQ(doc["openapi"].GetString(), "3.0.0");
  const rapidjson::Value* patch = json::Find(doc, {"paths", "/api/v1/namespaces/{namespace}/pods/{name}", "patch"});
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(json::Serialize((*patch)["x-kubernetes-group-version-kind"]),
            R"({"group":"","kind":"Pod","version":"v1"})");
  EXPECT_TRUE(HasParam(*patch, "fieldValidation"));
  const rapidjson::Value& content = (*patch)["requestBody"]["content"];
  for (std::string_view type : {"application/json-patch+json", "application/merge-patch+json",
                                "application/strategic-merge-patch+json", "application/apply-patch+yaml"}) {
    EXPECT_NE(json::Member(content, type), nullptr) << type;
  }
}

TEST(V3DocumentTest, CollectionAndSubresourcePathsFollowScopeAndVerbs) {
  rapidjson::Document doc = ParseGv("api/v1", KubesimResources());
  const rapidjson::Value& paths = doc["paths"];
  const rapidjson::Value* list = json::Find(paths, {"/api/v1/namespaces/{namespace}/pods", "get"});
  ASSERT_NE(list, nullptr);
  for (std::string_view p : {"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "watch"}) {
    EXPECT_TRUE(HasParam(*list, p)) << p;
  }
  const rapidjson::Value* create = json::Find(paths, {"/api/v1/namespaces/{namespace}/pods", "post"});
  ASSERT_NE(create, nullptr);
  EXPECT_TRUE(HasParam(*create, "fieldValidation"));
  EXPECT_TRUE(HasParam(*create, "fieldManager"));
  EXPECT_TRUE(HasParam(*create, "dryRun"));
  EXPECT_NE(json::Find(paths, {"/api/v1/nodes/{name}", "patch"}), nullptr);
  EXPECT_EQ(json::Member(paths, "/api/v1/namespaces/{namespace}/nodes/{name}"), nullptr);
  EXPECT_NE(json::Find(paths, {"/api/v1/pods", "get"}), nullptr);
  EXPECT_NE(json::Find(paths, {"/api/v1/namespaces/{namespace}/pods/{name}/status", "patch"}), nullptr);
  const rapidjson::Value* eviction =
      json::Find(paths, {"/api/v1/namespaces/{namespace}/pods/{name}/eviction", "post"});
  ASSERT_NE(eviction, nullptr);
  EXPECT_EQ(json::GetString(*eviction, {"x-kubernetes-group-version-kind", "kind"}), "Eviction");
  EXPECT_NE(json::Find(paths, {"/api/v1/namespaces/{namespace}/pods/{name}/binding", "post"}), nullptr);
  // ConfigMap has no status subresource.
  EXPECT_EQ(json::Member(paths, "/api/v1/namespaces/{namespace}/configmaps/{name}/status"), nullptr);
  // Schemas referenced by the paths are published, and only the group-version's kinds.
  const rapidjson::Value& schemas = doc["components"]["schemas"];
  EXPECT_NE(json::Member(schemas, "io.k8s.api.core.v1.Pod"), nullptr);
  EXPECT_NE(json::Member(schemas, "io.k8s.api.core.v1.Container"), nullptr);
  EXPECT_NE(json::Member(schemas, "io.k8s.api.policy.v1.Eviction"), nullptr);
  EXPECT_NE(json::Member(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"), nullptr);
  EXPECT_EQ(json::Member(schemas, "io.k8s.api.apps.v1.Deployment"), nullptr);
}

TEST(V3DocumentTest, ReadOnlyResourceGetsNoWriteOperations) {
  ResourceInfo r = Builtin("", "ConfigMap", "configmaps", true);
  r.verbs = {"get", "list"};
  rapidjson::Document doc = ParseGv("api/v1", {r});
  EXPECT_NE(json::Find(doc, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "get"}), nullptr);
  EXPECT_EQ(json::Find(doc, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"}), nullptr);
  EXPECT_EQ(json::Find(doc, {"paths", "/api/v1/namespaces/{namespace}/configmaps", "post"}), nullptr);
}

TEST(V3DocumentTest, DeploymentScaleUsesAutoscalingScale) {
  rapidjson::Document doc = ParseGv("apis/apps/v1", KubesimResources());
  const rapidjson::Value* patch =
      json::Find(doc, {"paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "patch"});
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(json::Serialize((*patch)["x-kubernetes-group-version-kind"]),
            R"({"group":"autoscaling","kind":"Scale","version":"v1"})");
  EXPECT_EQ(json::GetString(*patch, {"operationId"}), "patchAppsV1NamespacedDeploymentScale");
  EXPECT_NE(json::Find(doc, {"components", "schemas", "io.k8s.api.autoscaling.v1.Scale"}), nullptr);
}

TEST(V3DocumentTest, CustomResourceSchemaIsPublishedUnderItsReversedGroupName) {
  auto crd_schema = json::Parse(R"({"type":"object","properties":{
      "metadata":{"type":"object"},
      "spec":{"type":"object","properties":{"size":{"type":"integer"}}}}})");
  ASSERT_TRUE(crd_schema.has_value());
  ResourceInfo r = Builtin("stable.example.com", "CronTab", "crontabs", true, {"status", "scale"});
  r.schema = &*crd_schema;
  rapidjson::Document doc = ParseGv("apis/stable.example.com/v1", {r});
  const rapidjson::Value* def = json::Find(doc, {"components", "schemas", "com.example.stable.v1.CronTab"});
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(json::Serialize((*def)["x-kubernetes-group-version-kind"]),
            R"([{"group":"stable.example.com","kind":"CronTab","version":"v1"}])");
  EXPECT_EQ(json::GetString(*def, {"properties", "spec", "properties", "size", "type"}), "integer");
  EXPECT_EQ(json::GetString((*def)["properties"]["metadata"]["allOf"][0], {"$ref"}),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(json::GetString(*def, {"properties", "apiVersion", "type"}), "string");
  EXPECT_NE(json::Find(doc, {"components", "schemas", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}), nullptr);
  const rapidjson::Value* list = json::Find(doc, {"components", "schemas", "com.example.stable.v1.CronTabList"});
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(json::GetString((*list)["properties"]["items"]["items"], {"$ref"}),
            "#/components/schemas/com.example.stable.v1.CronTab");
  const rapidjson::Value* patch =
      json::Find(doc, {"paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch"});
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(json::GetString(*patch, {"x-kubernetes-group-version-kind", "group"}), "stable.example.com");
  EXPECT_EQ(json::Find(*patch, {"requestBody", "content", "application/strategic-merge-patch+json"}), nullptr);
  EXPECT_NE(json::Find(*patch, {"requestBody", "content", "application/merge-patch+json"}), nullptr);
  // The caller's schema is left untouched.
  EXPECT_EQ(json::Serialize((*crd_schema)["properties"]["metadata"]), R"({"type":"object"})");
}

TEST(V3DocumentTest, UnknownOrMalformedGroupVersionIsNotServed) {
  EXPECT_EQ(BuildV3GroupVersion("apis/batch/v1", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("api/v2", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("apis/apps", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("apis//v1", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("api/v1/extra", KubesimResources()), std::nullopt);
  EXPECT_EQ(BuildV3GroupVersion("api/v1", {}), std::nullopt);
}

TEST(V3DocumentTest, NonObjectCrdSchemaStillYieldsAnOpenObject) {
  rapidjson::Document bad;
  bad.SetArray();
  ResourceInfo r = Builtin("example.com", "Widget", "widgets", false);
  r.schema = &bad;
  rapidjson::Document doc = ParseGv("apis/example.com/v1", {r});
  const rapidjson::Value* def = json::Find(doc, {"components", "schemas", "com.example.v1.Widget"});
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(json::GetString(*def, {"type"}), "object");
  EXPECT_NE(json::Find(doc, {"paths", "/apis/example.com/v1/widgets/{name}", "get"}), nullptr);
}

}  // namespace
}  // namespace berth::kubesim::openapi
