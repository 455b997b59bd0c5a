#include "e2e/kubesim/api/pod_conditions.h"

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {

rapidjson::Value& ConditionOfType(rapidjson::Value& status, std::string_view type,
                                  rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value* conditions = json::FindMutable(status, {"conditions"});
  if (!conditions || !conditions->IsArray()) {
    json::SetMember(status, "conditions", rapidjson::Value(rapidjson::kArrayType), alloc);
    conditions = json::FindMutable(status, {"conditions"});
  }
  for (auto& c : conditions->GetArray()) {
    if (json::GetString(c, {"type"}) == type) return c;
  }
  rapidjson::Value condition(rapidjson::kObjectType);
  json::SetString(condition, "type", type, alloc);
  conditions->PushBack(condition, alloc);
  return (*conditions)[conditions->Size() - 1];
}

void ApplySchedulingGatedCondition(rapidjson::Value& pod, rapidjson::Document::AllocatorType& alloc) {
  const rapidjson::Value* gates = json::Find(pod, {"spec", "schedulingGates"});
  if (!pod.IsObject() || !gates || !gates->IsArray() || gates->Empty()) return;
  rapidjson::Value& status = json::EnsureObject(pod, "status", alloc);
  if (const rapidjson::Value* conditions = json::Find(status, {"conditions"}); conditions && conditions->IsArray()) {
    for (const auto& c : conditions->GetArray()) {
      if (json::GetString(c, {"type"}) == "PodScheduled") return;
    }
  }
  rapidjson::Value& c = ConditionOfType(status, "PodScheduled", alloc);
  json::SetString(c, "status", "False", alloc);
  json::SetString(c, "reason", "SchedulingGated", alloc);
  json::SetString(c, "message", "Scheduling is blocked due to non-empty scheduling gates", alloc);
}

}  // namespace berth::kubesim
