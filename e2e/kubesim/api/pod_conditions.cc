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

}  // namespace berth::kubesim
