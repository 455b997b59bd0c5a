#include "e2e/kubesim/api/builtin_defaults.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

rapidjson::Document Parse(const char* text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

TEST(BuiltinDefaultsTest, SecretStringDataIsMergedIntoDataAsBase64AndTypeDefaultsToOpaque) {
  Registry registry;
  auto type = registry.Find("", "v1", "secrets");
  ASSERT_TRUE(type);
  auto s = Parse(R"({"data":{"a":"eA==","b":"eA=="},"stringData":{"b":"hello","c":"","d":"ab","e":7}})");
  ApplyBuiltinDefaults(*type, s);
  EXPECT_EQ(json::GetString(s, {"type"}), "Opaque");
  EXPECT_EQ(json::GetString(s, {"data", "a"}), "eA==");
  EXPECT_EQ(json::GetString(s, {"data", "b"}), "aGVsbG8=");
  EXPECT_EQ(json::GetString(s, {"data", "c"}), "");
  EXPECT_EQ(json::GetString(s, {"data", "d"}), "YWI=");
  EXPECT_FALSE(json::Find(s, {"data", "e"}));  // not a string: ignored
  EXPECT_FALSE(s.HasMember("stringData"));
  auto typed = Parse(R"({"type":"helm.sh/release.v1","stringData":"garbage"})");
  ApplyBuiltinDefaults(*type, typed);
  EXPECT_EQ(json::GetString(typed, {"type"}), "helm.sh/release.v1");
  EXPECT_FALSE(typed.HasMember("stringData"));
}

TEST(BuiltinDefaultsTest, AHostNetworkPodsContainerPortsDefaultTheirHostPort) {
  Registry registry;
  auto type = registry.Find("", "v1", "pods");
  ASSERT_TRUE(type);
  auto pod = Parse(R"({"spec":{"hostNetwork":true,
      "containers":[{"name":"a","image":"x","ports":[{"containerPort":8080},{"containerPort":53,"protocol":"UDP"},
                                                     {"containerPort":9000,"hostPort":9001}]}],
      "initContainers":[{"name":"i","image":"x","ports":[{"containerPort":7000,"hostPort":0}]}]}})");
  ApplyBuiltinDefaults(*type, pod);
  const auto& ports = *json::Find(pod, {"spec", "containers"});
  EXPECT_EQ(json::Find(ports[0], {"ports"})->GetArray()[0]["hostPort"].GetInt64(), 8080);
  EXPECT_EQ(json::Find(ports[0], {"ports"})->GetArray()[1]["hostPort"].GetInt64(), 53);
  EXPECT_EQ(json::Find(ports[0], {"ports"})->GetArray()[2]["hostPort"].GetInt64(), 9001);  // set: kept
  EXPECT_EQ((*json::Find(pod, {"spec", "initContainers"}))[0]["ports"][0]["hostPort"].GetInt64(), 7000);
  // Without hostNetwork a container port binds no node port.
  auto plain = Parse(R"({"spec":{"containers":[{"name":"a","image":"x","ports":[{"containerPort":8080}]}]}})");
  ApplyBuiltinDefaults(*type, plain);
  EXPECT_FALSE((*json::Find(plain, {"spec", "containers"}))[0]["ports"][0].HasMember("hostPort"));
  auto off = Parse(R"({"spec":{"hostNetwork":false,"containers":[{"name":"a","image":"x","ports":[{"containerPort":1}]}]}})");
  ApplyBuiltinDefaults(*type, off);
  EXPECT_FALSE((*json::Find(off, {"spec", "containers"}))[0]["ports"][0].HasMember("hostPort"));
}

TEST(BuiltinValidationTest, APodDeletionCostThatIsNoInt32IsRejectedWithTheApiServersWording) {
  Registry registry;
  auto type = registry.Find("", "v1", "pods");
  ASSERT_TRUE(type);
  auto pod_with_cost = [](const std::string& cost) {
    return Parse((R"({"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":")" + cost +
                  R"("}},"spec":{"containers":[{"name":"c","image":"i"}]}})")
                     .c_str());
  };
  for (const char* valid : {"0", "-7", "2147483647", "-2147483648", "123"}) {
    EXPECT_TRUE(ValidateBuiltin(*type, pod_with_cost(valid)).empty()) << valid;
  }
  for (const char* invalid : {"+5", "008", "", "2147483648", "abc", "1.5"}) {
    auto causes = ValidateBuiltin(*type, pod_with_cost(invalid));
    ASSERT_EQ(causes.size(), 1u) << invalid;
    EXPECT_EQ(causes[0].reason, "FieldValueInvalid");
    EXPECT_EQ(causes[0].field, "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]");
    EXPECT_EQ(causes[0].message, "Invalid value: \"" + std::string(invalid) + "\": must be a 32bit integer");
  }
}

TEST(BuiltinDefaultsTest, ReplicaSetsGetNoRevisionHistoryLimitButDeploymentsDo) {
  Registry registry;
  auto rs = Parse(R"({"spec":{"selector":{}}})");
  ApplyBuiltinDefaults(*registry.Find("apps", "v1", "replicasets"), rs);
  EXPECT_FALSE(json::Find(rs, {"spec", "revisionHistoryLimit"}));
  EXPECT_EQ(rs["spec"]["replicas"].GetInt64(), 1);
  auto d = Parse(R"({"spec":{"selector":{}}})");
  ApplyBuiltinDefaults(*registry.Find("apps", "v1", "deployments"), d);
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"].GetInt64(), 10);
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"].GetInt64(), 600);
  EXPECT_EQ(json::GetString(d, {"spec", "strategy", "rollingUpdate", "maxSurge"}), "25%");
}

TEST(RegistryTest, ServiceAccountsSecretsAndRbacKindsAreServed) {
  Registry registry;
  auto sa = registry.Find("", "v1", "serviceaccounts");
  ASSERT_TRUE(sa);
  EXPECT_EQ(sa->short_names, std::vector<std::string>{"sa"});
  for (const char* plural : {"roles", "rolebindings"}) {
    auto t = registry.Find("rbac.authorization.k8s.io", "v1", plural);
    ASSERT_TRUE(t) << plural;
    EXPECT_TRUE(t->namespaced);
  }
  for (const char* plural : {"clusterroles", "clusterrolebindings"}) {
    auto t = registry.Find("rbac.authorization.k8s.io", "v1", plural);
    ASSERT_TRUE(t) << plural;
    EXPECT_FALSE(t->namespaced);
  }
  EXPECT_EQ(registry.FindByKind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding")->plural, "clusterrolebindings");
}

}  // namespace
}  // namespace berth::kubesim
