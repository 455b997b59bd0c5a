#include "e2e/kubesim/server/faults.h"

#include <charconv>
#include <string>
#include <thread>
#include <utility>

#include "e2e/kubesim/server/status_response.h"

namespace berth::kubesim {
namespace {

bool HasPathPrefix(std::string_view path, std::string_view prefix) {
  return path == prefix || (path.size() > prefix.size() && path.starts_with(prefix) &&
                            path[prefix.size()] == '/');
}

bool IsMutating(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    if (!seg.empty()) out.push_back(seg);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// ConflictTarget guesses group, resource and name from a REST path so the injected 409 reads
// like the apiserver's ("on deployments.apps \"web\""); the transport knows no more than that.
struct ConflictTarget {
  std::string group;
  std::string resource = "resource";
  std::string name;
};

ConflictTarget GuessConflictTarget(std::string_view path) {
  ConflictTarget t;
  auto segs = Segments(path);
  size_t start = 0;
  if (segs.size() >= 2 && segs[0] == "api") {
    start = 2;
  } else if (segs.size() >= 3 && segs[0] == "apis") {
    t.group = std::string(segs[1]);
    start = 3;
  } else {
    return t;
  }
  std::vector<std::string_view> rest(segs.begin() + static_cast<long>(start), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") rest.erase(rest.begin(), rest.begin() + 2);
  if (!rest.empty()) t.resource = std::string(rest[0]);
  if (rest.size() >= 2) t.name = std::string(rest[1]);
  return t;
}

constexpr std::string_view kInjected = "injected fault";

HttpResponse InternalError() {
  StatusDetails d;
  d.cause_message = std::string(kInjected);
  return StatusResponse(500, "InternalError", "Internal error occurred: injected fault", d);
}

// RetryLater: 429 and 503 tell the client when to come back, in the header (what client-go
// reads) and in details.retryAfterSeconds, as the apiserver's max-in-flight/APF filters do.
HttpResponse RetryLater(int code, std::string_view reason, std::string_view message) {
  StatusDetails d;
  d.retry_after_seconds = 1;
  d.cause_message = std::string(kInjected);
  HttpResponse r = StatusResponse(code, reason, message, d);
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

// ResourceText: `pods "p"` / `deployments.apps "web"` / `pods`, as apimachinery's errors name
// the object.
std::string ResourceText(const ConflictTarget& t) {
  std::string qualified = t.group.empty() ? t.resource : t.resource + "." + t.group;
  return t.name.empty() ? qualified : qualified + " \"" + t.name + "\"";
}

// OtherFault: any other 4xx/5xx with the reason kube-apiserver gives that code and a message
// in the shape of apimachinery's constructor for it (NewForbidden, NewNotFound, …).
HttpResponse OtherFault(int code, const HttpRequest& request) {
  const ConflictTarget t = GuessConflictTarget(request.path);
  StatusDetails d;
  d.name = t.name;
  d.group = t.group;
  d.kind = t.name.empty() && t.resource == "resource" ? "" : t.resource;
  d.cause_message = std::string(kInjected);
  std::string reason;
  std::string message;
  switch (code) {
    case 400: reason = "BadRequest"; message = "injected fault"; break;
    case 401: reason = "Unauthorized"; message = "Unauthorized"; break;
    case 403:
      reason = "Forbidden";
      message = ResourceText(t) + " is forbidden: injected fault";
      break;
    case 404:
      reason = "NotFound";
      message = t.name.empty() ? "the server could not find the requested resource"
                               : ResourceText(t) + " not found";
      break;
    case 405:
      reason = "MethodNotAllowed";
      message = request.method + " is not supported on resources of kind \"" + t.resource + "\"";
      break;
    case 406:
      reason = "NotAcceptable";
      message = "the server was unable to respond with a content type that the client supports";
      break;
    case 410:
      // The apiserver's 410s are expired resourceVersions.
      reason = "Expired";
      message = request.Query("watch") == "true" || request.Query("watch") == "1"
                    ? "The resourceVersion for the provided watch is too old."
                    : "The resourceVersion for the provided list is too old.";
      break;
    case 413:
      reason = "RequestEntityTooLarge";
      message = "Request entity too large: injected fault";
      break;
    case 415:
      reason = "UnsupportedMediaType";
      message = "the body of the request was in an unknown format";
      break;
    case 422: reason = "Invalid"; message = ResourceText(t) + " is invalid: injected fault"; break;
    case 503:
      return RetryLater(503, "ServiceUnavailable",
                        "the server is currently unable to handle the request");
    case 504:
      reason = "Timeout";
      message = "Timeout: request did not complete within requested timeout - injected fault";
      break;
    default:
      if (code >= 500) {
        // apimachinery's NewGenericServerResponse for a 5xx it has no reason for.
        reason = "InternalError";
        message = "an error on the server (\"injected fault\") has prevented the request from "
                  "succeeding";
      } else {
        // StatusReasonUnknown: kube-apiserver leaves the reason empty.
        message = "the server responded with the status code " + std::to_string(code) +
                  " but did not return more information";
      }
      break;
  }
  return StatusResponse(code, reason, message, d);
}

HttpResponse Conflict(std::string_view path) {
  ConflictTarget t = GuessConflictTarget(path);
  std::string qualified = t.group.empty() ? t.resource : t.resource + "." + t.group;
  StatusDetails d;
  d.name = t.name;
  d.group = t.group;
  d.kind = t.resource;  // the apiserver puts the resource here, not the kind
  return StatusResponse(409, "Conflict",
                        "Operation cannot be fulfilled on " + qualified + " \"" + t.name +
                            "\": the object has been modified; please apply your changes to the "
                            "latest version and try again",
                        d);
}

bool ValidNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

bool ValidResourceName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!ValidNameChar(c)) return false;
  }
  return true;
}

// RequestResource: resource and subresource of a REST path, as RequestInfo derives them (the
// full derivation is api/audit_log's DescribeRequest; server/ sits below api/ and cannot use it).
std::pair<std::string_view, std::string_view> RequestResource(std::string_view path) {
  auto segs = Segments(path);
  size_t start;
  if (segs.size() >= 2 && segs[0] == "api") {
    start = 2;
  } else if (segs.size() >= 3 && segs[0] == "apis") {
    start = 3;
  } else {
    return {};
  }
  std::vector<std::string_view> rest(segs.begin() + static_cast<long>(start), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize") {
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty()) return {};
  return {rest[0], rest.size() >= 3 ? rest[2] : std::string_view{}};
}

}  // namespace

Result<FaultTarget> ParseFaultTarget(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument, "fault target \"" + std::string(text) + "\": " + why);
  };
  FaultTarget t;
  std::string_view rest = text;
  if (size_t colon = rest.find(':'); colon != std::string_view::npos) {
    t.method = std::string(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
    static constexpr std::string_view kMethods[] = {"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"};
    bool known = false;
    for (std::string_view m : kMethods) known = known || m == t.method;
    if (!known) return bad("unknown method \"" + t.method + "\" (GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE)");
  }
  std::string_view resource = rest;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    resource = rest.substr(0, slash);
    std::string_view sub = rest.substr(slash + 1);
    if (!ValidResourceName(sub)) return bad("the subresource must be one lower-case name");
    t.subresource = std::string(sub);
  }
  if (!ValidResourceName(resource)) return bad("the resource must be a lower-case plural name");
  t.resource = std::string(resource);
  return t;
}

std::string FormatFaultTarget(const FaultTarget& target) {
  std::string out = target.method.empty() ? "" : target.method + ":";
  out += target.resource;
  if (!target.subresource.empty()) out += "/" + target.subresource;
  return out;
}

bool ValidFaultCode(int code) { return code >= 400 && code <= 599; }

Result<std::vector<int>> ParseFaultCodes(std::string_view text) {
  std::vector<int> codes;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    int code = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), code);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() ||
        !ValidFaultCode(code)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "fault codes are HTTP error codes 400..599 separated by commas, not \"" +
                           std::string(item) + "\" in \"" + std::string(text) + "\"");
    }
    codes.push_back(code);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return codes;
}

FaultInjector::FaultInjector(FaultConfig config)
    : config_(std::move(config)), rng_(config_.seed) {}

bool FaultInjector::IsExempt(std::string_view path) {
  return path.starts_with("/kubesim/admin/") || path == "/kubesim/admin" ||
         HasPathPrefix(path, "/healthz") || HasPathPrefix(path, "/readyz") ||
         HasPathPrefix(path, "/livez");
}

bool FaultInjector::Targeted(const HttpRequest& request) const {
  if (IsExempt(request.path)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.targets.empty()) return true;
  auto [resource, subresource] = RequestResource(request.path);
  for (const FaultTarget& t : config_.targets) {
    if ((t.method.empty() || t.method == request.method) && t.resource == resource && t.subresource == subresource) {
      return true;
    }
  }
  return false;
}

std::optional<HttpResponse> FaultInjector::MaybeFail(const HttpRequest& request) {
  if (!Targeted(request)) return std::nullopt;
  int code = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Always draw twice so the sequence depends only on the seed and the request count.
    // 53 random bits → uniform double in [0, 1), identical on every standard library.
    double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    uint64_t pick = rng_();
    if (config_.fault_codes.empty() || u >= config_.fault_rate) return std::nullopt;
    code = config_.fault_codes[pick % config_.fault_codes.size()];
    if (code == 409 && !IsMutating(request.method)) code = 500;
    ++injected_[code];
  }
  switch (code) {
    case 429:
      return RetryLater(429, "TooManyRequests",
                        "the server has received too many requests and has asked us to try again "
                        "later");
    case 409: return Conflict(request.path);
    case 500: return InternalError();
    default: return OtherFault(code, request);
  }
}

void FaultInjector::ApplyLatency() const {
  std::chrono::milliseconds latency;
  {
    std::lock_guard<std::mutex> lock(mu_);
    latency = config_.latency;
  }
  if (latency.count() > 0) std::this_thread::sleep_for(latency);
}

std::chrono::seconds FaultInjector::WatchDropEvery() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_.watch_drop_every;
}

std::map<int, uint64_t> FaultInjector::InjectedCounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

FaultConfig FaultInjector::GetConfig() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

void FaultInjector::SetConfig(FaultConfig config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = std::move(config);
  rng_.seed(config_.seed);
}

}  // namespace berth::kubesim
