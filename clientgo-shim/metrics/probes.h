// clientgo-shim/metrics/probes.h
//
// Health checks served the way controller-runtime's pkg/healthz does, plus the /metrics handler:
//   GET /healthz, /readyz      200 "ok" when every check passes; otherwise 500 with one line per
//                              check ("[+]name ok" / "[-]name failed: reason withheld") and
//                              "healthz check failed". ?verbose lists the checks on success too
//                              (ending "healthz check passed") and gives each failed check's
//                              reason ("[-]informer-sync failed: informer /api/v1/pods has not
//                              synced: last list error: Unauthorized …") where controller-runtime
//                              withholds it: the probe port is not exposed outside the pod, and
//                              an operator asking ?verbose wants to know why; ?exclude=<name>
//                              skips a check.
//                              No checks registered → an implicit "ping" check.
//   GET /healthz/<name>        one check: 200 "ok" or 500 "internal server error: <reason>".
//   GET /metrics               Registry::Render(): text format 0.0.4 from prometheus-cpp.
// Headers: Content-Type text/plain; charset=utf-8, X-Content-Type-Options: nosniff.
// Thread-safety: AddCheck and Run may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/registry.h"

namespace berth::shim {

// HealthChecks: a named set of checks (one set for /healthz, another for /readyz).
class HealthChecks {
 public:
  using Check = std::function<Status()>;
  // AddCheck registers or replaces the check `name`.
  void AddCheck(const std::string& name, Check check);
  // Serve answers a request for the aggregate endpoint or one sub-check (`sub` non-empty).
  HttpServerReply Serve(const HttpServerRequest& request, const std::string& sub) const;
  // AllPass runs every check. Returns whether all passed.
  bool AllPass() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Check> checks_;
};

// PingCheck always passes (controller-runtime's healthz.Ping).
Status PingCheck();

// ServeProbes registers /healthz, /healthz/, /readyz and /readyz/ on `server`. The check sets
// must outlive the server.
void ServeProbes(HttpServer& server, const HealthChecks& healthz, const HealthChecks& readyz);

// MetricsHandler renders `registry` (which must outlive the handler) in the text format.
HttpHandler MetricsHandler(const Registry& registry);
// ServeMetrics registers /metrics rendering `registry` (which must outlive the server).
void ServeMetrics(HttpServer& server, const Registry& registry);

}  // namespace berth::shim
