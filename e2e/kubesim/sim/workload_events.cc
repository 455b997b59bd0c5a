#include "e2e/kubesim/sim/workload_events.h"

#include <chrono>
#include <cstdio>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {

void RecordEvent(ApiServer& api, const EventSubject& subject, std::string_view component, std::string_view type,
                 std::string_view reason, std::string_view message) {
  ResourceTypePtr events = api.TypeOf("", "events");
  if (!events) return;
  static uint64_t last = 0;  // strictly increasing, so two events of one object never share a name
  uint64_t nanos = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count());
  nanos = std::max(nanos, last + 1);
  last = nanos;
  char hex[32];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(nanos));
  std::string now = NowRfc3339();
  rapidjson::Document e(rapidjson::kObjectType);
  auto& a = e.GetAllocator();
  e.AddMember("apiVersion", "v1", a);
  e.AddMember("kind", "Event", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  json::SetString(meta, "name", subject.name + "." + hex, a);
  json::SetString(meta, "namespace", subject.ns, a);
  e.AddMember("metadata", meta, a);
  rapidjson::Value involved(rapidjson::kObjectType);
  json::SetString(involved, "kind", subject.kind, a);
  json::SetString(involved, "namespace", subject.ns, a);
  json::SetString(involved, "name", subject.name, a);
  json::SetString(involved, "uid", subject.uid, a);
  json::SetString(involved, "apiVersion", subject.api_version, a);
  e.AddMember("involvedObject", involved, a);
  json::SetString(e, "reason", reason, a);
  json::SetString(e, "message", message, a);
  rapidjson::Value source(rapidjson::kObjectType);
  json::SetString(source, "component", component, a);
  e.AddMember("source", source, a);
  json::SetString(e, "firstTimestamp", now, a);
  json::SetString(e, "lastTimestamp", now, a);
  e.AddMember("count", 1, a);
  json::SetString(e, "type", type, a);
  e.AddMember("eventTime", rapidjson::Value(), a);
  json::SetString(e, "reportingComponent", component, a);
  json::SetString(e, "reportingInstance", "", a);
  WriteOptions opts;
  opts.internal = true;
  opts.field_validation = "Ignore";
  api.DoCreate(*events, subject.ns, std::move(e), opts);
}

}  // namespace berth::kubesim
