// clientgo-shim/metrics/metrics_auth.h
//
// Secure metrics as controller-runtime's filters.WithAuthenticationAndAuthorization serves them
// (kubebuilder's --metrics-secure): each scrape's bearer token is authenticated with a TokenReview
// (authentication.k8s.io/v1) and the user authorised with a SubjectAccessReview
// (authorization.k8s.io/v1, nonResourceAttributes {path, verb: "get"}). No or a bad token → 401
// "Unauthorized"; not allowed → 403 "Authorization denied for user <name>"; a review that fails
// (no answer, 5xx, an undecodable body) → 401 for authentication (as the delegating authenticator
// treats errors) and 500 "Authorization for user <name> failed" for authorization; nothing is cached
// then. Decisions are cached for a minute (controller-runtime's delegating authenticator's
// CacheTTL), keyed by a SHA-256 of the token, never the token itself.
//
// The codecs and the decision are pure; MetricsAuthorizer does the calls through a ReviewPoster
// (the manager passes one over its RestClient) and may block its caller for the review's timeout,
// so it runs on the metrics server's own thread, never the probes'.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/http_server.h"

namespace berth::shim {

// ParseBearerToken returns the token of "Bearer <token>" (scheme case-insensitive), or nullopt.
std::optional<std::string> ParseBearerToken(std::string_view authorization);

// ReviewedUser: TokenReview status.user of an authenticated token.
struct ReviewedUser {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
};

// TokenReviewBody: the TokenReview to POST for `token`.
std::string TokenReviewBody(std::string_view token);
// ParseTokenReview reads the answer: the user when status.authenticated is true, nullopt when
// false. Errors: kDecode for a body that is not a TokenReview with a boolean status.authenticated
// (or an authenticated one without a username).
Result<std::optional<ReviewedUser>> ParseTokenReview(std::string_view body);

// SubjectAccessReviewBody: the SubjectAccessReview to POST for `user` doing `verb` on `path`.
std::string SubjectAccessReviewBody(const ReviewedUser& user, std::string_view path, std::string_view verb);
// ParseSubjectAccessReview returns status.allowed. Errors: kDecode when it is missing or not boolean.
Result<bool> ParseSubjectAccessReview(std::string_view body);

// AuthOutcome: what the filter answers (200 lets the request through to the handler).
struct AuthOutcome {
  int status = 200;
  std::string message;  // the body for a refusal, http.Error's text
};

// DecideMetricsAccess is the filter's decision once the reviews are known (pure):
// no token → 401; authentication failed or errored → 401; authorization errored → 500;
// denied → 403; allowed → 200.
AuthOutcome DecideMetricsAccess(bool has_token, const Result<std::optional<ReviewedUser>>& authn,
                                const std::optional<Result<bool>>& authz);

// ReviewPoster POSTs a review body to an API path and returns the response body.
using ReviewPoster = std::function<Result<std::string>(const std::string& path, const std::string& body)>;

// MetricsAuthorizer: see the file comment. Thread-safe.
class MetricsAuthorizer {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit MetricsAuthorizer(ReviewPoster post, std::chrono::milliseconds cache_ttl = std::chrono::minutes(1),
                             Clock clock = nullptr);
  // Authorize decides one request for `path` with its Authorization header.
  AuthOutcome Authorize(std::string_view authorization, const std::string& path);
  // Wrap returns a handler that runs `inner` only for authorised requests.
  HttpHandler Wrap(HttpHandler inner);
  // reviews_sent counts TokenReviews and SubjectAccessReviews posted (tests check the cache).
  uint64_t reviews_sent() const;

 private:
  ReviewPoster post_;
  std::chrono::milliseconds ttl_;
  Clock clock_;
  mutable std::mutex mu_;
  struct Cached {
    AuthOutcome outcome;
    std::chrono::steady_clock::time_point expires;
  };
  std::unordered_map<std::string, Cached> cache_;  // sha256(token) + "\n" + path → decision
  uint64_t reviews_sent_ = 0;
};

}  // namespace berth::shim
