#include "clientgo-shim/metrics/metrics_auth.h"

#include <openssl/sha.h>

#include <cctype>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

std::string Sha256Hex(std::string_view s) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA256_DIGEST_LENGTH);
  for (unsigned char c : digest) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

}  // namespace

std::optional<std::string> ParseBearerToken(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() + 1) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return std::nullopt;
  }
  if (authorization[kScheme.size()] != ' ') return std::nullopt;
  std::string_view token = authorization.substr(kScheme.size() + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty() || token.find(' ') != std::string_view::npos) return std::nullopt;
  return std::string(token);
}

std::string TokenReviewBody(std::string_view token) {
  Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("apiVersion", "authentication.k8s.io/v1", a);
  d.AddMember("kind", "TokenReview", a);
  Value spec(rapidjson::kObjectType);
  json::SetString(spec, "token", token, a);
  d.AddMember("spec", spec, a);
  return json::Serialize(d);
}

Result<std::optional<ReviewedUser>> ParseTokenReview(std::string_view body) {
  auto d = json::Parse(body);
  if (!d) return MakeError(ErrorCode::kDecode, "TokenReview: " + d.error().message);
  if (json::GetString(*d, {"kind"}) != "TokenReview") return MakeError(ErrorCode::kDecode, "TokenReview: kind is not TokenReview");
  const Value* authenticated = json::Find(*d, {"status", "authenticated"});
  if (!authenticated) return std::optional<ReviewedUser>{};  // omitempty: false
  if (!authenticated->IsBool()) return MakeError(ErrorCode::kDecode, "TokenReview: status.authenticated is not a boolean");
  if (!authenticated->GetBool()) return std::optional<ReviewedUser>{};
  ReviewedUser user;
  user.username = std::string(json::GetString(*d, {"status", "user", "username"}));
  if (user.username.empty()) return MakeError(ErrorCode::kDecode, "TokenReview: authenticated without status.user.username");
  user.uid = std::string(json::GetString(*d, {"status", "user", "uid"}));
  if (const Value* g = json::Find(*d, {"status", "user", "groups"}); g) {
    if (!g->IsArray()) return MakeError(ErrorCode::kDecode, "TokenReview: status.user.groups is not a list");
    for (const auto& v : g->GetArray()) {
      if (!v.IsString()) return MakeError(ErrorCode::kDecode, "TokenReview: status.user.groups holds a non-string");
      user.groups.emplace_back(v.GetString());
    }
  }
  return std::optional<ReviewedUser>(std::move(user));
}

std::string SubjectAccessReviewBody(const ReviewedUser& user, std::string_view path, std::string_view verb) {
  Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("apiVersion", "authorization.k8s.io/v1", a);
  d.AddMember("kind", "SubjectAccessReview", a);
  Value spec(rapidjson::kObjectType);
  json::SetString(spec, "user", user.username, a);
  if (!user.uid.empty()) json::SetString(spec, "uid", user.uid, a);
  Value groups(rapidjson::kArrayType);
  for (const auto& g : user.groups) groups.PushBack(Value(g.c_str(), a), a);
  spec.AddMember("groups", groups, a);
  Value attrs(rapidjson::kObjectType);
  json::SetString(attrs, "path", path, a);
  json::SetString(attrs, "verb", verb, a);
  spec.AddMember("nonResourceAttributes", attrs, a);
  d.AddMember("spec", spec, a);
  return json::Serialize(d);
}

Result<bool> ParseSubjectAccessReview(std::string_view body) {
  auto d = json::Parse(body);
  if (!d) return MakeError(ErrorCode::kDecode, "SubjectAccessReview: " + d.error().message);
  if (json::GetString(*d, {"kind"}) != "SubjectAccessReview") {
    return MakeError(ErrorCode::kDecode, "SubjectAccessReview: kind is not SubjectAccessReview");
  }
  const Value* allowed = json::Find(*d, {"status", "allowed"});
  if (!allowed || !allowed->IsBool()) return MakeError(ErrorCode::kDecode, "SubjectAccessReview: status.allowed is not a boolean");
  return allowed->GetBool();
}

AuthOutcome DecideMetricsAccess(bool has_token, const Result<std::optional<ReviewedUser>>& authn,
                                const std::optional<Result<bool>>& authz) {
  if (!has_token || !authn || !authn->has_value()) return AuthOutcome{401, "Unauthorized"};
  const std::string& name = (*authn)->username;
  if (!authz || !*authz) return AuthOutcome{500, "Authorization for user " + name + " failed"};
  if (!**authz) return AuthOutcome{403, "Authorization denied for user " + name};
  return AuthOutcome{200, ""};
}

MetricsAuthorizer::MetricsAuthorizer(ReviewPoster post, std::chrono::milliseconds cache_ttl, Clock clock)
    : post_(std::move(post)), ttl_(cache_ttl),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

AuthOutcome MetricsAuthorizer::Authorize(std::string_view authorization, const std::string& path) {
  std::optional<std::string> token = ParseBearerToken(authorization);
  if (!token) return DecideMetricsAccess(false, std::optional<ReviewedUser>{}, std::nullopt);
  std::string key = Sha256Hex(*token) + "\n" + path;
  auto now = clock_();
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      if (it->second.expires > now) return it->second.outcome;
      cache_.erase(it);
    }
  }
  auto count = [this] {
    std::lock_guard lock(mu_);
    ++reviews_sent_;
  };
  count();
  Result<std::optional<ReviewedUser>> authn = [&]() -> Result<std::optional<ReviewedUser>> {
    auto answer = post_("/apis/authentication.k8s.io/v1/tokenreviews", TokenReviewBody(*token));
    if (!answer) return std::unexpected(answer.error());
    return ParseTokenReview(*answer);
  }();
  std::optional<Result<bool>> authz;
  if (authn && authn->has_value()) {
    count();
    auto answer = post_("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                        SubjectAccessReviewBody(**authn, path, "get"));
    authz = answer ? ParseSubjectAccessReview(*answer) : Result<bool>(std::unexpected(answer.error()));
  }
  AuthOutcome outcome = DecideMetricsAccess(true, authn, authz);
  // Only answers are cached: a review that errored is asked again on the next scrape.
  bool answered = authn && (!authn->has_value() || (authz && *authz));
  if (answered) {
    std::lock_guard lock(mu_);
    if (cache_.size() > 4096) cache_.clear();  // bounded: a flood of random tokens cannot grow it
    cache_[key] = Cached{outcome, now + ttl_};
  }
  return outcome;
}

HttpHandler MetricsAuthorizer::Wrap(HttpHandler inner) {
  return [this, inner = std::move(inner)](const HttpServerRequest& request) {
    AuthOutcome outcome = Authorize(request.authorization, request.path);
    if (outcome.status != 200) {
      HttpServerReply reply;
      reply.status = outcome.status;
      reply.body = outcome.message + "\n";
      return reply;
    }
    return inner(request);
  };
}

uint64_t MetricsAuthorizer::reviews_sent() const {
  std::lock_guard lock(mu_);
  return reviews_sent_;
}

}  // namespace berth::shim
