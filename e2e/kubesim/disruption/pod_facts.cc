#include "e2e/kubesim/disruption/pod_facts.h"

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {

std::string_view PodName(const rapidjson::Value& pod) {
  return json::GetString(pod, {"metadata", "name"});
}

std::string_view PodPhase(const rapidjson::Value& pod) {
  return json::GetString(pod, {"status", "phase"});
}

bool IsPodReady(const rapidjson::Value& pod) {
  const rapidjson::Value* conditions = json::Find(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (json::GetString(c, {"type"}) == "Ready") return json::GetString(c, {"status"}) == "True";
  }
  return false;
}

bool IsPodDeleting(const rapidjson::Value& pod) {
  const rapidjson::Value* ts = json::Find(pod, {"metadata", "deletionTimestamp"});
  return ts != nullptr && !ts->IsNull();
}

std::optional<OwnerRef> ControllerOf(const rapidjson::Value& pod) {
  const rapidjson::Value* refs = json::Find(pod, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray()) return std::nullopt;
  for (const auto& r : refs->GetArray()) {
    const rapidjson::Value* controller = json::Member(r, "controller");
    if (controller == nullptr || !controller->IsBool() || !controller->GetBool()) continue;
    return OwnerRef{std::string(json::GetString(r, {"apiVersion"})),
                    std::string(json::GetString(r, {"kind"})),
                    std::string(json::GetString(r, {"name"})),
                    std::string(json::GetString(r, {"uid"}))};
  }
  return std::nullopt;
}

}  // namespace berth::kubesim::disruption
