// kubesim's TokenRequest, TokenReview and SubjectAccessReview through ApiServer::Handle.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "unit-tests/e2e/kubesim/api/recording_sink.h"

namespace berth::kubesim {
namespace {

using testing::RecordingSink;

ApiServerOptions WithAdminToken() {
  ApiServerOptions o;
  o.admin_token = "admin-secret";
  return o;
}

class AuthReviewsTest : public ::testing::Test {
 protected:
  AuthReviewsTest() : api_(WithAdminToken(), store_, registry_) {
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"mon"}})");
    Create("", "serviceaccounts", "mon", R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"prom"}})");
  }
  void Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value()) << text;
    OpResult r = api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  HttpResponse Post(const std::string& path, const std::string& body) {
    HttpRequest r;
    r.method = "POST";
    r.path = path;
    r.target = path;
    r.body = body;
    r.headers["content-type"] = "application/json";
    RecordingSink sink;
    api_.Handle(r, sink);
    return sink.response_;
  }
  rapidjson::Document Review(const std::string& token) {
    HttpResponse r = Post("/apis/authentication.k8s.io/v1/tokenreviews",
                          R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token + R"("}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return std::move(*json::Parse(r.body));
  }
  bool Allowed(const std::string& user, const std::string& groups) {
    HttpResponse r = Post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                          R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":")" + user +
                              R"(","groups":)" + groups + R"(,"nonResourceAttributes":{"path":"/metrics","verb":"get"}}})");
    EXPECT_EQ(r.status, 201) << r.body;
    auto d = json::Parse(r.body);
    const auto* allowed = json::Find(*d, {"status", "allowed"});
    return allowed && allowed->IsBool() && allowed->GetBool();
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

TEST_F(AuthReviewsTest, MintedTokensReviewAsTheirServiceAccount) {
  HttpResponse minted = Post("/api/v1/namespaces/mon/serviceaccounts/prom/token",
                             R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  ASSERT_EQ(minted.status, 201) << minted.body;
  auto doc = json::Parse(minted.body);
  std::string token(json::GetString(*doc, {"status", "token"}));
  ASSERT_FALSE(token.empty());
  EXPECT_FALSE(json::GetString(*doc, {"status", "expirationTimestamp"}).empty());

  auto review = Review(token);
  EXPECT_TRUE(json::Find(review, {"status", "authenticated"})->GetBool());
  EXPECT_EQ(json::GetString(review, {"status", "user", "username"}), "system:serviceaccount:mon:prom");
  EXPECT_EQ(json::Serialize(*json::Find(review, {"status", "user", "groups"})),
            R"(["system:serviceaccounts","system:serviceaccounts:mon","system:authenticated"])");
  auto admin = Review("admin-secret");
  EXPECT_EQ(json::GetString(admin, {"status", "user", "username"}), "kubesim-admin");
  auto unknown = Review("made-up");
  EXPECT_EQ(json::Find(unknown, {"status", "authenticated"}), nullptr);
  EXPECT_FALSE(json::GetString(unknown, {"status", "error"}).empty());
}

TEST_F(AuthReviewsTest, TokenRequestErrors) {
  EXPECT_EQ(Post("/api/v1/namespaces/mon/serviceaccounts/nobody/token", R"({"kind":"TokenRequest"})").status, 404);
  EXPECT_EQ(Post("/api/v1/namespaces/mon/serviceaccounts/prom/token",
                 R"({"kind":"TokenRequest","spec":{"expirationSeconds":60}})").status, 422);
  EXPECT_EQ(Post("/api/v1/namespaces/mon/serviceaccounts/prom/token", "{not json").status, 400);
  EXPECT_EQ(Post("/apis/authentication.k8s.io/v1/tokenreviews", R"({"kind":"TokenReview","spec":{}})").status, 422);
}

TEST_F(AuthReviewsTest, SubjectAccessReviewFollowsClusterRoleBindings) {
  Create("rbac.authorization.k8s.io", "clusterroles", "",
         R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"metrics-reader"},
             "rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]})");
  const std::string sa_groups = R"(["system:serviceaccounts","system:authenticated"])";
  EXPECT_FALSE(Allowed("system:serviceaccount:mon:prom", sa_groups));
  Create("rbac.authorization.k8s.io", "clusterrolebindings", "",
         R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"prom"},
             "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"metrics-reader"},
             "subjects":[{"kind":"ServiceAccount","name":"prom","namespace":"mon"}]})");
  EXPECT_TRUE(Allowed("system:serviceaccount:mon:prom", sa_groups));
  EXPECT_FALSE(Allowed("system:serviceaccount:mon:other", sa_groups));
  EXPECT_TRUE(Allowed("kubesim-admin", R"(["system:masters"])"));
  HttpResponse both = Post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                           R"({"kind":"SubjectAccessReview","spec":{"user":"u","nonResourceAttributes":{"path":"/metrics","verb":"get"},
                               "resourceAttributes":{"verb":"get","resource":"pods"}}})");
  EXPECT_EQ(both.status, 422);
  HttpResponse nobody = Post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                             R"({"kind":"SubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"}}})");
  EXPECT_EQ(nobody.status, 422);
}

}  // namespace
}  // namespace berth::kubesim
