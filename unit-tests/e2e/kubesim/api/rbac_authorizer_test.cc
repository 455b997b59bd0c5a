#include "e2e/kubesim/api/rbac_authorizer.h"

#include <gtest/gtest.h>

#include <map>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::rbac {
namespace {

rapidjson::Document Doc(const std::string& text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

Attributes MetricsGet(const std::string& user, std::vector<std::string> groups = {}) {
  Attributes a;
  a.user = UserInfo{user, "", std::move(groups)};
  a.non_resource = true;
  a.path = "/metrics";
  a.verb = "get";
  return a;
}

struct Rbac {
  std::map<std::string, rapidjson::Document> roles;  // "<kind>/<ns>/<name>"
  std::vector<rapidjson::Document> crbs, rbs;
  RoleLookup Lookup() {
    return [this](const std::string& kind, const std::string& ns, const std::string& name) -> const rapidjson::Value* {
      auto it = roles.find(kind + "/" + ns + "/" + name);
      return it == roles.end() ? nullptr : &it->second;
    };
  }
  Decision Check(const Attributes& a) {
    std::vector<const rapidjson::Value*> c, r;
    for (const auto& d : crbs) c.push_back(&d);
    for (const auto& d : rbs) r.push_back(&d);
    return Authorize(a, c, r, Lookup());
  }
};

TEST(RbacAuthorizerTest, NonResourceUrlRules) {
  auto rule = Doc(R"({"nonResourceURLs":["/metrics"],"verbs":["get"]})");
  EXPECT_TRUE(RuleAllows(rule, MetricsGet("u")));
  Attributes post = MetricsGet("u");
  post.verb = "post";
  EXPECT_FALSE(RuleAllows(rule, post));
  Attributes other = MetricsGet("u");
  other.path = "/healthz";
  EXPECT_FALSE(RuleAllows(rule, other));
  EXPECT_TRUE(RuleAllows(Doc(R"({"nonResourceURLs":["/met*"],"verbs":["*"]})"), MetricsGet("u")));
  EXPECT_TRUE(RuleAllows(Doc(R"({"nonResourceURLs":["*"],"verbs":["get"]})"), MetricsGet("u")));
  // A resource rule never grants a non-resource URL.
  EXPECT_FALSE(RuleAllows(Doc(R"({"apiGroups":["*"],"resources":["*"],"verbs":["*"]})"), MetricsGet("u")));
}

TEST(RbacAuthorizerTest, ResourceRules) {
  Attributes a;
  a.verb = "create";
  a.group = "authentication.k8s.io";
  a.resource = "tokenreviews";
  EXPECT_TRUE(RuleAllows(Doc(R"({"apiGroups":["authentication.k8s.io"],"resources":["tokenreviews"],"verbs":["create"]})"), a));
  EXPECT_FALSE(RuleAllows(Doc(R"({"apiGroups":[""],"resources":["tokenreviews"],"verbs":["create"]})"), a));
  a.group = "";
  a.resource = "pods";
  a.subresource = "binding";
  EXPECT_FALSE(RuleAllows(Doc(R"({"apiGroups":[""],"resources":["pods"],"verbs":["create"]})"), a));
  EXPECT_TRUE(RuleAllows(Doc(R"({"apiGroups":[""],"resources":["pods/binding"],"verbs":["create"]})"), a));
  a.subresource = "";
  a.name = "web";
  EXPECT_TRUE(RuleAllows(Doc(R"({"apiGroups":[""],"resources":["pods"],"resourceNames":["web"],"verbs":["create"]})"), a));
  a.name = "db";
  EXPECT_FALSE(RuleAllows(Doc(R"({"apiGroups":[""],"resources":["pods"],"resourceNames":["web"],"verbs":["create"]})"), a));
}

TEST(RbacAuthorizerTest, BindingsByUserGroupAndServiceAccount) {
  Rbac r;
  r.roles.emplace("ClusterRole//metrics-reader", Doc(R"({"rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"prom"},"roleRef":{"kind":"ClusterRole","name":"metrics-reader"},
                           "subjects":[{"kind":"ServiceAccount","name":"prometheus","namespace":"monitoring"}]})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"ops"},"roleRef":{"kind":"ClusterRole","name":"metrics-reader"},
                           "subjects":[{"kind":"Group","name":"ops"},{"kind":"User","name":"alice"}]})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"dangling"},"roleRef":{"kind":"ClusterRole","name":"gone"},
                           "subjects":[{"kind":"User","name":"bob"}]})"));
  Decision sa = r.Check(MetricsGet("system:serviceaccount:monitoring:prometheus"));
  EXPECT_TRUE(sa.allowed);
  EXPECT_EQ(sa.reason, "RBAC: allowed by ClusterRoleBinding \"prom\" of ClusterRole \"metrics-reader\" to "
                       "ServiceAccount \"monitoring/prometheus\"");
  EXPECT_FALSE(r.Check(MetricsGet("system:serviceaccount:default:prometheus")).allowed);
  EXPECT_TRUE(r.Check(MetricsGet("carol", {"ops"})).allowed);
  EXPECT_TRUE(r.Check(MetricsGet("alice")).allowed);
  EXPECT_FALSE(r.Check(MetricsGet("bob")).allowed);  // its role does not exist
  EXPECT_FALSE(r.Check(MetricsGet("mallory", {"system:authenticated"})).allowed);
  EXPECT_TRUE(r.Check(MetricsGet("root", {"system:masters"})).allowed);
}

TEST(RbacAuthorizerTest, RoleBindingsGrantOnlyInTheirNamespace) {
  Rbac r;
  r.roles.emplace("Role/apps/pod-reader", Doc(R"({"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]})"));
  r.rbs.push_back(Doc(R"({"metadata":{"name":"read","namespace":"apps"},"roleRef":{"kind":"Role","name":"pod-reader"},
                          "subjects":[{"kind":"ServiceAccount","name":"bot"}]})"));
  Attributes a;
  a.user = UserInfo{"system:serviceaccount:apps:bot", "", {}};
  a.verb = "list";
  a.resource = "pods";
  a.ns = "apps";
  EXPECT_TRUE(r.Check(a).allowed);
  a.ns = "kube-system";
  EXPECT_FALSE(r.Check(a).allowed);
  // A RoleBinding never grants a non-resource URL.
  Rbac nr;
  nr.roles.emplace("ClusterRole//metrics-reader", Doc(R"({"rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]})"));
  nr.rbs.push_back(Doc(R"({"metadata":{"name":"m","namespace":"apps"},"roleRef":{"kind":"ClusterRole","name":"metrics-reader"},
                           "subjects":[{"kind":"User","name":"alice"}]})"));
  EXPECT_FALSE(nr.Check(MetricsGet("alice")).allowed);
}

TEST(RbacAuthorizerTest, MalformedObjectsGrantNothing) {
  Rbac r;
  r.roles.emplace("ClusterRole//x", Doc(R"({"rules":"all"})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"a"},"roleRef":{"kind":"ClusterRole","name":"x"},"subjects":[{"kind":"User","name":"u"}]})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"x"},"subjects":{"kind":"User"}})"));
  r.roles.emplace("ClusterRole//y", Doc(R"({"rules":[{"nonResourceURLs":"/metrics","verbs":"get"}]})"));
  r.crbs.push_back(Doc(R"({"metadata":{"name":"c"},"roleRef":{"kind":"ClusterRole","name":"y"},"subjects":[{"kind":"User","name":"u"}]})"));
  EXPECT_FALSE(r.Check(MetricsGet("u")).allowed);
}

}  // namespace
}  // namespace berth::kubesim::rbac
