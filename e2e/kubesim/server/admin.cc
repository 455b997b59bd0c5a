#include "e2e/kubesim/server/admin.h"

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/status_response.h"

namespace berth::kubesim {
namespace {

constexpr std::string_view kFaultsPath = "/kubesim/admin/faults";
constexpr std::string_view kRestartPath = "/kubesim/admin/restart";
// A day of latency or of watch lifetime is surely a typo; bound them so a sleep stays sane.
constexpr int64_t kMaxLatencyMs = 10 * 60 * 1000;
constexpr int64_t kMaxWatchDropSeconds = 24 * 3600;

std::unexpected<Error> BadField(std::string_view field, std::string_view why) {
  return MakeError(ErrorCode::kBadRequest,
                   "invalid fault config: " + std::string(field) + " " + std::string(why));
}

Result<int64_t> NonNegativeInt(const json::Value& v, std::string_view field, int64_t max) {
  if (!v.IsInt64() || v.GetInt64() < 0 || v.GetInt64() > max) {
    return BadField(field, "must be an integer between 0 and " + std::to_string(max));
  }
  return v.GetInt64();
}

HttpResponse JsonResponse(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

HttpResponse MethodNotAllowed() {
  return StatusResponse(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource");
}

}  // namespace

std::string FaultConfigJson(const FaultConfig& config, std::optional<size_t> history_window,
                            const std::map<int, uint64_t>* injected) {
  json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  json::SetMember(doc, "faultRate", json::Value(config.fault_rate), a);
  json::Value codes(rapidjson::kArrayType);
  for (int c : config.fault_codes) codes.PushBack(c, a);
  json::SetMember(doc, "faultCodes", std::move(codes), a);
  json::SetMember(doc, "latencyMs", json::Value(static_cast<int64_t>(config.latency.count())), a);
  json::SetMember(doc, "watchDropEverySeconds",
                  json::Value(static_cast<int64_t>(config.watch_drop_every.count())), a);
  json::SetMember(doc, "seed", json::Value(static_cast<uint64_t>(config.seed)), a);
  if (!config.targets.empty()) {  // absent: every request is a target
    json::Value targets(rapidjson::kArrayType);
    for (const FaultTarget& t : config.targets) targets.PushBack(json::Value(FormatFaultTarget(t).c_str(), a), a);
    json::SetMember(doc, "faultTargets", std::move(targets), a);
  }
  if (history_window) {
    json::SetMember(doc, "historyWindow", json::Value(static_cast<uint64_t>(*history_window)), a);
  }
  if (injected) {
    json::Value counts(rapidjson::kObjectType);
    for (const auto& [code, n] : *injected) {
      counts.AddMember(json::Value(std::to_string(code).c_str(), a), json::Value(n), a);
    }
    json::SetMember(doc, "injectedFaults", std::move(counts), a);
  }
  return json::Serialize(doc);
}

Result<FaultConfigUpdate> ParseFaultConfigUpdate(std::string_view body,
                                                 const FaultConfig& current) {
  auto doc = json::Parse(body);
  if (!doc) return MakeError(ErrorCode::kBadRequest, "invalid fault config: " + doc.error().message);
  if (!doc->IsObject()) return MakeError(ErrorCode::kBadRequest, "invalid fault config: not an object");
  FaultConfigUpdate out{current, std::nullopt};
  for (auto it = doc->MemberBegin(); it != doc->MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    const json::Value& v = it->value;
    if (key == "faultRate") {
      if (!v.IsNumber() || v.GetDouble() < 0.0 || v.GetDouble() > 1.0) {
        return BadField(key, "must be a number between 0 and 1");
      }
      out.config.fault_rate = v.GetDouble();
    } else if (key == "faultCodes") {
      if (!v.IsArray() || v.Empty()) return BadField(key, "must be a non-empty array");
      std::vector<int> codes;
      for (const auto& c : v.GetArray()) {
        if (!c.IsInt() || !ValidFaultCode(c.GetInt())) {
          return BadField(key, "may only contain HTTP error codes 400..599");
        }
        codes.push_back(c.GetInt());
      }
      out.config.fault_codes = std::move(codes);
    } else if (key == "latencyMs") {
      auto n = NonNegativeInt(v, key, kMaxLatencyMs);
      if (!n) return std::unexpected(n.error());
      out.config.latency = std::chrono::milliseconds(*n);
    } else if (key == "watchDropEverySeconds") {
      auto n = NonNegativeInt(v, key, kMaxWatchDropSeconds);
      if (!n) return std::unexpected(n.error());
      out.config.watch_drop_every = std::chrono::seconds(*n);
    } else if (key == "seed") {
      if (!v.IsUint64()) return BadField(key, "must be a non-negative integer");
      out.config.seed = v.GetUint64();
    } else if (key == "faultTargets") {
      if (!v.IsArray()) return BadField(key, "must be an array of \"[METHOD:]resource[/subresource]\" strings");
      std::vector<FaultTarget> targets;
      for (const auto& t : v.GetArray()) {
        if (!t.IsString()) return BadField(key, "must be an array of \"[METHOD:]resource[/subresource]\" strings");
        auto parsed = ParseFaultTarget(t.GetString());
        if (!parsed) return MakeError(ErrorCode::kBadRequest, "invalid fault config: faultTargets: " + parsed.error().message);
        targets.push_back(std::move(*parsed));
      }
      out.config.targets = std::move(targets);
    } else if (key == "injectedFaults") {
      // Read-only (GET's counters): ignored, so a GET body can be PUT back.
    } else if (key == "historyWindow") {
      if (!v.IsUint64() || v.GetUint64() < 1) return BadField(key, "must be a positive integer");
      out.history_window = static_cast<size_t>(v.GetUint64());
    } else {
      return BadField(key, "is not a known field");
    }
  }
  return out;
}

std::optional<AdminOutcome> HandleAdminRequest(const HttpRequest& request,
                                               const AdminHooks& hooks) {
  if (request.path == kRestartPath) {
    if (request.method != "POST") return AdminOutcome{MethodNotAllowed(), false};
    return AdminOutcome{JsonResponse(R"({"restarting":true})"), true};
  }
  if (request.path != kFaultsPath || hooks.faults == nullptr) return std::nullopt;
  auto current_history = [&]() -> std::optional<size_t> {
    if (hooks.history_window) return hooks.history_window();
    return std::nullopt;
  };
  if (request.method == "GET") {
    const std::map<int, uint64_t> injected = hooks.faults->InjectedCounts();
    return AdminOutcome{
        JsonResponse(FaultConfigJson(hooks.faults->GetConfig(), current_history(), &injected)), false};
  }
  if (request.method != "PUT") return AdminOutcome{MethodNotAllowed(), false};
  auto update = ParseFaultConfigUpdate(request.body, hooks.faults->GetConfig());
  if (!update) {
    return AdminOutcome{StatusResponse(400, "BadRequest", update.error().message), false};
  }
  if (update->history_window && !hooks.on_history_window) {
    return AdminOutcome{
        StatusResponse(400, "BadRequest", "invalid fault config: historyWindow is not supported"),
        false};
  }
  hooks.faults->SetConfig(update->config);
  if (update->history_window) hooks.on_history_window(*update->history_window);
  return AdminOutcome{JsonResponse(FaultConfigJson(hooks.faults->GetConfig(), current_history())),
                      false};
}

}  // namespace berth::kubesim
