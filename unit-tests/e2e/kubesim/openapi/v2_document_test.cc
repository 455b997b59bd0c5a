#include "e2e/kubesim/openapi/v2_document.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "test_resources.h"

namespace berth::kubesim::openapi {
namespace {

TEST(V2DocumentTest, UsesDefinitionsAndBodyParameters) {
  rapidjson::Document doc = BuildV2(testing::KubesimResources());
  EXPECT_EQ(json::GetString(doc, {"swagger"}), "2.0");
  std::string text = json::Serialize(doc);
  EXPECT_EQ(text.find("#/components/schemas/"), std::string::npos);
  EXPECT_NE(json::Find(doc, {"definitions", "io.k8s.api.core.v1.Pod"}), nullptr);
  EXPECT_NE(json::Find(doc, {"definitions", "io.k8s.api.apps.v1.Deployment"}), nullptr);
  const rapidjson::Value* post = json::Find(doc, {"paths", "/api/v1/namespaces/{namespace}/pods", "post"});
  ASSERT_NE(post, nullptr);
  bool body = false;
  for (const auto& p : (*post)["parameters"].GetArray()) {
    if (json::GetString(p, {"in"}) == "body") {
      body = true;
      EXPECT_EQ(json::GetString(p, {"schema", "$ref"}), "#/definitions/io.k8s.api.core.v1.Pod");
    }
  }
  EXPECT_TRUE(body);
  EXPECT_EQ(json::GetString(*post, {"responses", "201", "schema", "$ref"}), "#/definitions/io.k8s.api.core.v1.Pod");
  // A description-carrying allOf becomes a plain $ref.
  EXPECT_EQ(json::GetString(doc, {"definitions", "io.k8s.api.core.v1.Pod", "properties", "spec", "$ref"}),
            "#/definitions/io.k8s.api.core.v1.PodSpec");
}

TEST(V2DocumentTest, NothingServedGivesEmptyPathsAndDefinitions) {
  rapidjson::Document doc = BuildV2({});
  EXPECT_EQ(doc["paths"].MemberCount(), 0u);
  EXPECT_EQ(doc["definitions"].MemberCount(), 0u);
}

}  // namespace
}  // namespace berth::kubesim::openapi
