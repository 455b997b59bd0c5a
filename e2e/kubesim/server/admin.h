// e2e/kubesim/server/admin.h
//
// kubesim's own admin endpoints, answered by the transport after authentication:
//   GET  /kubesim/admin/faults   → current fault config (+ historyWindow) as JSON
//   PUT  /kubesim/admin/faults   → set fields given in the JSON body (others keep their value)
//   POST /kubesim/admin/restart  → 200, then every connection is dropped (a simulated restart)
// JSON fields: faultRate, faultCodes, latencyMs, watchDropEverySeconds, seed, historyWindow.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/server/faults.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// AdminHooks: what the admin endpoints act on. Either std::function may be empty.
struct AdminHooks {
  FaultInjector* faults = nullptr;                // must be set
  std::function<void(size_t)> on_history_window;  // PUT historyWindow
  std::function<size_t()> history_window;         // GET historyWindow
};

// AdminOutcome: the response, and whether the caller must drop all connections after sending it.
struct AdminOutcome {
  HttpResponse response;
  bool restart = false;
};

// HandleAdminRequest answers the endpoints above; nullopt for any other path (the API handler
// then gets it). A wrong method gets 405, a malformed PUT body 400, both as Status.
std::optional<AdminOutcome> HandleAdminRequest(const HttpRequest& request, const AdminHooks& hooks);

// FaultConfigJson renders the config (and historyWindow, injectedFaults {"<code>": count} when
// given) in the admin JSON shape.
std::string FaultConfigJson(const FaultConfig& config, std::optional<size_t> history_window,
                            const std::map<int, uint64_t>* injected = nullptr);

// FaultConfigUpdate: a parsed PUT body applied to the current config.
struct FaultConfigUpdate {
  FaultConfig config;
  std::optional<size_t> history_window;
};

// ParseFaultConfigUpdate applies the JSON body's fields to `current`. Errors: kBadRequest for
// malformed JSON, an unknown field, a wrong type or an out-of-range value (rate outside 0..1,
// a code not in {500,429,409}, an empty code list, negative durations, historyWindow < 1).
Result<FaultConfigUpdate> ParseFaultConfigUpdate(std::string_view body, const FaultConfig& current);

}  // namespace berth::kubesim
