#include "clientgo-shim/metrics/metrics_auth.h"

#include <map>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

constexpr char kTokenReviewPath[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kSarPath[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

TEST(MetricsAuthTest, ParseBearerToken) {
  EXPECT_EQ(ParseBearerToken("Bearer abc"), "abc");
  EXPECT_EQ(ParseBearerToken("bearer abc"), "abc");
  EXPECT_EQ(ParseBearerToken("Bearer   abc  "), "abc");
  EXPECT_EQ(ParseBearerToken(""), std::nullopt);
  EXPECT_EQ(ParseBearerToken("Bearer"), std::nullopt);
  EXPECT_EQ(ParseBearerToken("Bearer "), std::nullopt);
  EXPECT_EQ(ParseBearerToken("Basic dXNlcjpwdw=="), std::nullopt);
  EXPECT_EQ(ParseBearerToken("Bearerabc"), std::nullopt);
  EXPECT_EQ(ParseBearerToken("Bearer a b"), std::nullopt);
}

TEST(MetricsAuthTest, TokenReviewRoundTrip) {
  auto body = json::Parse(TokenReviewBody("t0k"));
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::GetString(*body, {"apiVersion"}), "authentication.k8s.io/v1");
  EXPECT_EQ(json::GetString(*body, {"spec", "token"}), "t0k");

  auto user = ParseTokenReview(R"({"kind":"TokenReview","status":{"authenticated":true,
      "user":{"username":"system:serviceaccount:mon:prom","uid":"u1","groups":["system:serviceaccounts","g2"]}}})");
  ASSERT_TRUE(user.has_value()) << user.error().message;
  ASSERT_TRUE(user->has_value());
  EXPECT_EQ((*user)->username, "system:serviceaccount:mon:prom");
  EXPECT_EQ((*user)->uid, "u1");
  EXPECT_EQ((*user)->groups, (std::vector<std::string>{"system:serviceaccounts", "g2"}));

  auto denied = ParseTokenReview(R"({"kind":"TokenReview","status":{"authenticated":false,"error":"invalid bearer token"}})");
  ASSERT_TRUE(denied.has_value());
  EXPECT_FALSE(denied->has_value());
  auto omitted = ParseTokenReview(R"({"kind":"TokenReview","status":{"user":{}}})");
  ASSERT_TRUE(omitted.has_value());
  EXPECT_FALSE(omitted->has_value());
}

TEST(MetricsAuthTest, MalformedTokenReviewsAreDecodeErrors) {
  for (const char* bad : {"", "{", "[]", R"({"kind":"Status"})",
                          R"({"kind":"TokenReview","status":{"authenticated":"yes"}})",
                          R"({"kind":"TokenReview","status":{"authenticated":true}})",
                          R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"u","groups":"g"}}})",
                          R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"u","groups":[1]}}})"}) {
    auto r = ParseTokenReview(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kDecode) << bad;
  }
}

TEST(MetricsAuthTest, SubjectAccessReviewRoundTrip) {
  auto body = json::Parse(SubjectAccessReviewBody(ReviewedUser{"alice", "u1", {"dev"}}, "/metrics", "get"));
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(json::GetString(*body, {"spec", "user"}), "alice");
  EXPECT_EQ(json::GetString(*body, {"spec", "uid"}), "u1");
  EXPECT_EQ((*json::Find(*body, {"spec", "groups"}))[0].GetString(), std::string("dev"));
  EXPECT_EQ(json::GetString(*body, {"spec", "nonResourceAttributes", "path"}), "/metrics");
  EXPECT_EQ(json::GetString(*body, {"spec", "nonResourceAttributes", "verb"}), "get");
  EXPECT_EQ(ParseSubjectAccessReview(R"({"kind":"SubjectAccessReview","status":{"allowed":true}})"), true);
  EXPECT_EQ(ParseSubjectAccessReview(R"({"kind":"SubjectAccessReview","status":{"allowed":false,"reason":""}})"), false);
  for (const char* bad : {"", "nope", R"({"kind":"SubjectAccessReview","status":{}})",
                          R"({"kind":"SubjectAccessReview","status":{"allowed":"true"}})", R"({"status":{"allowed":true}})"}) {
    auto r = ParseSubjectAccessReview(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kDecode);
  }
}

TEST(MetricsAuthTest, DecideMetricsAccess) {
  using User = std::optional<ReviewedUser>;
  const User alice = ReviewedUser{"alice", "", {}};
  const Error boom{ErrorCode::kInternal, "boom", 500, {}, {}};
  EXPECT_EQ(DecideMetricsAccess(false, User{}, std::nullopt).status, 401);
  EXPECT_EQ(DecideMetricsAccess(true, User{}, std::nullopt).status, 401);
  AuthOutcome authn_error = DecideMetricsAccess(true, std::unexpected(boom), std::nullopt);
  EXPECT_EQ(authn_error.status, 401);
  EXPECT_EQ(authn_error.message, "Unauthorized");
  AuthOutcome authz_error = DecideMetricsAccess(true, alice, Result<bool>(std::unexpected(boom)));
  EXPECT_EQ(authz_error.status, 500);
  EXPECT_EQ(authz_error.message, "Authorization for user alice failed");
  AuthOutcome denied = DecideMetricsAccess(true, alice, Result<bool>(false));
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.message, "Authorization denied for user alice");
  EXPECT_EQ(DecideMetricsAccess(true, alice, Result<bool>(true)).status, 200);
}

// FakeApi answers reviews from a token → (user, allowed) table, and can fail.
struct FakeApi {
  std::map<std::string, std::pair<std::string, bool>> tokens;
  bool fail = false;
  std::vector<std::string> paths;
  Result<std::string> operator()(const std::string& path, const std::string& body) {
    paths.push_back(path);
    if (fail) return MakeError(ErrorCode::kTransport, "connection refused");
    auto doc = json::Parse(body);
    if (path == kTokenReviewPath) {
      auto it = tokens.find(std::string(json::GetString(*doc, {"spec", "token"})));
      if (it == tokens.end()) return std::string(R"({"kind":"TokenReview","status":{"authenticated":false}})");
      return R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":")" + it->second.first + R"("}}})";
    }
    EXPECT_EQ(json::GetString(*doc, {"spec", "nonResourceAttributes", "path"}), "/metrics");
    for (const auto& [token, entry] : tokens) {
      if (entry.first == json::GetString(*doc, {"spec", "user"})) {
        return std::string(R"({"kind":"SubjectAccessReview","status":{"allowed":)") + (entry.second ? "true" : "false") + "}}";
      }
    }
    return std::string(R"({"kind":"SubjectAccessReview","status":{"allowed":false}})");
  }
};

TEST(MetricsAuthorizerTest, AnswersAndCachesDecisionsForTheirTtl) {
  FakeApi api;
  api.tokens = {{"good", {"prom", true}}, {"nosy", {"nosy", false}}};
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  MetricsAuthorizer auth([&](const std::string& p, const std::string& b) { return api(p, b); },
                         std::chrono::minutes(1), [&] { return now; });
  EXPECT_EQ(auth.Authorize("", "/metrics").status, 401);
  EXPECT_EQ(auth.reviews_sent(), 0u);  // no token, no review
  EXPECT_EQ(auth.Authorize("Bearer bad", "/metrics").status, 401);
  EXPECT_EQ(auth.Authorize("Bearer nosy", "/metrics").status, 403);
  EXPECT_EQ(auth.Authorize("Bearer good", "/metrics").status, 200);
  uint64_t sent = auth.reviews_sent();
  EXPECT_EQ(sent, 5u);  // bad: 1, nosy: 2, good: 2
  EXPECT_EQ(auth.Authorize("Bearer good", "/metrics").status, 200);
  EXPECT_EQ(auth.Authorize("Bearer bad", "/metrics").status, 401);
  EXPECT_EQ(auth.reviews_sent(), sent);  // cached
  now += std::chrono::seconds(61);
  api.tokens["good"].second = false;  // its binding went away
  EXPECT_EQ(auth.Authorize("Bearer good", "/metrics").status, 403);
  EXPECT_EQ(auth.reviews_sent(), sent + 2);
}

TEST(MetricsAuthorizerTest, FailedReviewsAreNotCached) {
  FakeApi api;
  api.tokens = {{"good", {"prom", true}}};
  api.fail = true;
  MetricsAuthorizer auth([&](const std::string& p, const std::string& b) { return api(p, b); });
  EXPECT_EQ(auth.Authorize("Bearer good", "/metrics").status, 401);
  api.fail = false;
  EXPECT_EQ(auth.Authorize("Bearer good", "/metrics").status, 200);
}

TEST(MetricsAuthorizerTest, WrapRunsTheHandlerOnlyWhenAllowed) {
  FakeApi api;
  api.tokens = {{"good", {"prom", true}}};
  MetricsAuthorizer auth([&](const std::string& p, const std::string& b) { return api(p, b); });
  int calls = 0;
  HttpHandler h = auth.Wrap([&](const HttpServerRequest&) {
    ++calls;
    HttpServerReply r;
    r.body = "ok";
    return r;
  });
  HttpServerRequest req;
  req.path = "/metrics";
  EXPECT_EQ(h(req).status, 401);
  req.authorization = "Bearer good";
  HttpServerReply ok = h(req);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "ok");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace berth::shim
