// The strategic-merge extensions that kubectl's client-side apply reads from /openapi/v2 and v3.
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas.h"
#include "e2e/kubesim/openapi/v2_document.h"
#include "test_resources.h"

namespace berth::kubesim::openapi {
namespace {

// Ext returns "strategy|key|listType|mapKeys" of definition.field ("" parts when absent).
std::string Ext(const rapidjson::Value& defs, const std::string& def, const std::string& field) {
  const json::Value* prop = json::Find(defs, {def, "properties", field});
  if (prop == nullptr) return "<missing>";
  std::string keys;
  if (const json::Value* k = json::Member(*prop, "x-kubernetes-list-map-keys")) keys = json::Serialize(*k);
  return std::string(json::GetString(*prop, {"x-kubernetes-patch-strategy"})) + "|" +
         std::string(json::GetString(*prop, {"x-kubernetes-patch-merge-key"})) + "|" +
         std::string(json::GetString(*prop, {"x-kubernetes-list-type"})) + "|" + keys;
}

constexpr const char* kCore = "io.k8s.api.core.v1.";

TEST(ListExtensionsTest, PodSpecListsCarryTheirMergeKeys) {
  const auto& s = BuiltinSchemas();
  std::string spec = std::string(kCore) + "PodSpec";
  EXPECT_EQ(Ext(s, spec, "containers"), R"(merge|name|map|["name"])");
  EXPECT_EQ(Ext(s, spec, "initContainers"), R"(merge|name|map|["name"])");
  EXPECT_EQ(Ext(s, spec, "volumes"), R"(merge,retainKeys|name|map|["name"])");
  EXPECT_EQ(Ext(s, spec, "imagePullSecrets"), R"(merge|name|map|["name"])");
  EXPECT_EQ(Ext(s, spec, "topologySpreadConstraints"),
            R"(merge|topologyKey|map|["topologyKey","whenUnsatisfiable"])");
}

TEST(ListExtensionsTest, TolerationsAndCommandStayAtomic) {
  const auto& s = BuiltinSchemas();
  EXPECT_EQ(Ext(s, std::string(kCore) + "PodSpec", "tolerations"), "||atomic|");
  EXPECT_EQ(Ext(s, std::string(kCore) + "Container", "command"), "|||");
  EXPECT_EQ(Ext(s, std::string(kCore) + "Container", "envFrom"), "|||");
}

TEST(ListExtensionsTest, ContainerListsMergeOnTheirKeys) {
  const auto& s = BuiltinSchemas();
  std::string c = std::string(kCore) + "Container";
  EXPECT_EQ(Ext(s, c, "env"), R"(merge|name|map|["name"])");
  EXPECT_EQ(Ext(s, c, "ports"), R"(merge|containerPort|map|["containerPort","protocol"])");
  EXPECT_EQ(Ext(s, c, "volumeMounts"), R"(merge|mountPath|map|["mountPath"])");
  EXPECT_EQ(Ext(s, c, "volumeDevices"), R"(merge|devicePath|map|["devicePath"])");
}

TEST(ListExtensionsTest, MetadataStatusAndServiceListsCarryTheirMergeKeys) {
  const auto& s = BuiltinSchemas();
  std::string meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
  EXPECT_EQ(Ext(s, meta, "finalizers"), "merge||set|");
  EXPECT_EQ(Ext(s, meta, "ownerReferences"), R"(merge|uid|map|["uid"])");
  EXPECT_EQ(Ext(s, std::string(kCore) + "ServiceSpec", "ports"), R"(merge|port|map|["port","protocol"])");
  EXPECT_EQ(Ext(s, std::string(kCore) + "NodeStatus", "addresses"), R"(merge|type|map|["type"])");
  EXPECT_EQ(Ext(s, std::string(kCore) + "PodStatus", "conditions"), R"(merge|type|map|["type"])");
  EXPECT_EQ(Ext(s, "io.k8s.api.apps.v1.DeploymentStatus", "conditions"), R"(merge|type|map|["type"])");
  EXPECT_EQ(Ext(s, "io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "conditions"),
            R"(merge|type|map|["type"])");
}

TEST(ListExtensionsTest, TheV2DocumentKeepsTheExtensions) {
  rapidjson::Document doc = BuildV2(testing::KubesimResources());
  const json::Value* defs = json::Member(doc, "definitions");
  ASSERT_NE(defs, nullptr);
  EXPECT_EQ(Ext(*defs, std::string(kCore) + "PodSpec", "containers"), R"(merge|name|map|["name"])");
  EXPECT_EQ(Ext(*defs, std::string(kCore) + "Container", "env"), R"(merge|name|map|["name"])");
}

}  // namespace
}  // namespace berth::kubesim::openapi
