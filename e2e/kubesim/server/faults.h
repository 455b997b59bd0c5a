// e2e/kubesim/server/faults.h
//
// Deterministic fault injection for kubesim: a seeded fraction of API requests fails with any
// configured 4xx/5xx code and the Status body kube-apiserver sends for it (reason by code: 500
// InternalError, 429 TooManyRequests and 503 ServiceUnavailable with Retry-After: 1, 409
// Conflict, 504 Timeout, 403 Forbidden, 401 Unauthorized, 422 Invalid, 404 NotFound, 410
// Expired, …), requests can be slowed down, and watch streams
// can be cut periodically. The controller under test must survive all of these; the seed makes a
// failing run reproducible.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// FaultTarget limits injection to one resource (and subresource), optionally one HTTP method:
// "POST:pods/binding", "pods/binding", "PUT:reservations/status", "pods". The resource and
// subresource are derived from the path as kube-apiserver's RequestInfo does (namespaces/<ns>/
// is skipped, except namespaces' own status and finalize subresources). The group is not
// matched (resource names of this emulator are unique enough for tests).
struct FaultTarget {
  std::string method;       // "" = any method
  std::string resource;     // plural, e.g. "pods"
  std::string subresource;  // "" = the object or collection itself, not its subresources
  bool operator==(const FaultTarget&) const = default;
};

// ParseFaultTarget reads "[METHOD:]resource[/subresource]". Errors: kInvalidArgument naming the
// problem (unknown method, empty or malformed resource name, more than one subresource).
Result<FaultTarget> ParseFaultTarget(std::string_view text);
// FormatFaultTarget is the inverse of ParseFaultTarget.
std::string FormatFaultTarget(const FaultTarget& target);

// FaultConfig: what to inject. fault_codes are HTTP error codes (400..599).
struct FaultConfig {
  double fault_rate = 0.0;  // 0..1, fraction of eligible requests that fail
  std::vector<int> fault_codes = {500, 429, 409};
  std::chrono::milliseconds latency{0};       // added to every eligible request
  std::chrono::seconds watch_drop_every{0};   // 0 = never cut watches
  uint64_t seed = 1;
  // Only requests matching one of these may fail (and only they draw from the generator); empty
  // = every request that is not exempt. Latency and watch drops are not targeted.
  std::vector<FaultTarget> targets = {};
};

// FaultInjector: thread-safe; one per server.
class FaultInjector {
 public:
  explicit FaultInjector(FaultConfig config = {});

  // MaybeFail draws once from the seeded generator and returns an error response for the
  // configured fraction of requests, or nullopt. Exempt paths never fail and draw nothing; a 409
  // drawn for a read (GET/HEAD/OPTIONS) becomes a 500, since only writes can conflict.
  std::optional<HttpResponse> MaybeFail(const HttpRequest& request);

  // ApplyLatency sleeps for the configured latency (the fault is the delay itself).
  void ApplyLatency() const;
  // Targeted: `request` is not exempt and matches FaultConfig::targets (or there are none).
  bool Targeted(const HttpRequest& request) const;

  // WatchDropEvery is how long a watch handler may stream before closing the stream (0 = off).
  std::chrono::seconds WatchDropEvery() const;

  FaultConfig GetConfig() const;
  // InjectedCounts: how many faults were injected so far, by HTTP code (for soak figures; not
  // reset by SetConfig).
  std::map<int, uint64_t> InjectedCounts() const;
  // SetConfig replaces the configuration and reseeds the generator with config.seed, so the same
  // config yields the same fault sequence from that point on.
  void SetConfig(FaultConfig config);

  // IsExempt: admin and health endpoints are never slowed down or failed.
  static bool IsExempt(std::string_view path);

 private:
  mutable std::mutex mu_;
  FaultConfig config_;
  std::mt19937_64 rng_;
  std::map<int, uint64_t> injected_;
};

// ValidFaultCode: whether code may appear in FaultConfig::fault_codes (400..599).
bool ValidFaultCode(int code);

// ParseFaultCodes reads --fault-codes: comma-separated codes ("500,503,429"; spaces allowed).
// Errors: kInvalidArgument naming the bad item (empty, not an integer, outside 400..599).
Result<std::vector<int>> ParseFaultCodes(std::string_view text);

}  // namespace berth::kubesim
