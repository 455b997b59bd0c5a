#include "e2e/kubesim/disruption/pdb_condition.h"

#include <string>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

using rapidjson::Value;

// BuildCondition writes the members in metav1.Condition's wire order.
Value BuildCondition(const ConditionUpdate& u, std::string_view transition,
                     rapidjson::Document::AllocatorType& a) {
  Value c(rapidjson::kObjectType);
  json::SetString(c, "type", u.type, a);
  json::SetString(c, "status", u.status, a);
  if (u.observed_generation != 0) {
    json::SetMember(c, "observedGeneration", Value(static_cast<int64_t>(u.observed_generation)), a);
  }
  json::SetString(c, "lastTransitionTime", transition, a);
  json::SetString(c, "reason", u.reason, a);
  json::SetString(c, "message", u.message, a);  // no omitempty on Condition.message
  return c;
}

}  // namespace

int64_t IntField(const rapidjson::Value& obj, std::string_view key) {
  const Value* v = json::Member(obj, key);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : 0;
}

void SetStatusCondition(Value& conditions, const ConditionUpdate& update, TimePoint now,
                        rapidjson::Document::AllocatorType& alloc) {
  if (!conditions.IsArray()) conditions.SetArray();
  const std::string now_text = FormatRfc3339(now);
  for (auto& existing : conditions.GetArray()) {
    if (json::GetString(existing, {"type"}) != update.type) continue;
    std::string transition = std::string(json::GetString(existing, {"lastTransitionTime"}));
    if (json::GetString(existing, {"status"}) != update.status || transition.empty()) {
      transition = now_text;
    }
    existing = BuildCondition(update, transition, alloc);
    return;
  }
  conditions.PushBack(BuildCondition(update, now_text, alloc), alloc);
}

void UpdateDisruptionAllowedCondition(Value& status, TimePoint now,
                                      rapidjson::Document::AllocatorType& alloc) {
  const bool allowed = IntField(status, "disruptionsAllowed") > 0;
  Value& conditions = [&]() -> Value& {
    auto it = status.FindMember("conditions");
    if (it == status.MemberEnd()) {
      status.AddMember("conditions", Value(rapidjson::kArrayType), alloc);
      return (status.MemberEnd() - 1)->value;
    }
    return it->value;
  }();
  SetStatusCondition(conditions,
                     ConditionUpdate{kDisruptionAllowedCondition, allowed ? "True" : "False",
                                     allowed ? kSufficientPodsReason : kInsufficientPodsReason, "",
                                     IntField(status, "observedGeneration")},
                     now, alloc);
}

}  // namespace berth::kubesim::disruption
