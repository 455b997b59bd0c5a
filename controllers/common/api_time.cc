#include "controllers/common/api_time.h"

#include <chrono>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"

namespace berth::controllers {

std::optional<reconcile::Time> ReadTime(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  std::string_view text = json::GetString(root, path);
  if (text.empty()) return std::nullopt;
  auto t = shim::ParseTimestamp(text);
  if (!t) return std::nullopt;
  return std::chrono::time_point_cast<reconcile::Time::duration>(*t);
}

reconcile::Time ReadCreationTime(const rapidjson::Value& object, std::vector<std::string>& errors) {
  const rapidjson::Value* v = json::Find(object, {"metadata", "creationTimestamp"});
  // metav1.Time reads null and "" as the zero time; anything else must be RFC 3339.
  if (v == nullptr || v->IsNull() || (v->IsString() && v->GetStringLength() == 0)) return reconcile::Time{};
  if (v->IsString()) {
    if (auto t = ReadTime(object, {"metadata", "creationTimestamp"})) return *t;
    errors.push_back("metadata.creationTimestamp: Invalid value: \"" + std::string(v->GetString(), v->GetStringLength()) +
                     "\": not an RFC 3339 time");
  } else {
    errors.push_back("metadata.creationTimestamp: Invalid value: must be an RFC 3339 string");
  }
  return reconcile::Time{};
}

std::string FormatTime(reconcile::Time t) {
  return shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

rapidjson::Value ConditionsJson(const std::vector<reconcile::Condition>& conditions,
                                rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& c : conditions) {
    rapidjson::Value v(rapidjson::kObjectType);
    json::SetString(v, "type", c.type, a);
    json::SetString(v, "status", c.status, a);
    if (!c.reason.empty()) json::SetString(v, "reason", c.reason, a);
    if (!c.message.empty()) json::SetString(v, "message", c.message, a);
    if (c.last_probe_time) json::SetString(v, "lastProbeTime", FormatTime(*c.last_probe_time), a);
    if (c.last_transition_time) json::SetString(v, "lastTransitionTime", FormatTime(*c.last_transition_time), a);
    out.PushBack(v, a);
  }
  return out;
}

}  // namespace berth::controllers
