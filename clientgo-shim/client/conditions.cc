// clientgo-shim/client/conditions.cc — see conditions.h.
#include "clientgo-shim/client/conditions.h"

namespace berth::shim {
namespace {

std::optional<int64_t> Generation(const json::Value& object) {
  const json::Value* g = json::Find(object, {"metadata", "generation"});
  if (g == nullptr || !g->IsInt64()) return std::nullopt;
  return g->GetInt64();
}

// SetIfDifferent sets a string member and reports whether it changed.
bool SetIfDifferent(json::Value& obj, std::string_view key, std::string_view value,
                    json::Document::AllocatorType& alloc) {
  const json::Value* m = json::Member(obj, key);
  if (m != nullptr && m->IsString() &&
      std::string_view(m->GetString(), m->GetStringLength()) == value) {
    return false;
  }
  json::SetString(obj, key, value, alloc);
  return true;
}

}  // namespace

const json::Value* FindStatusCondition(const json::Value& object, std::string_view type) {
  const json::Value* list = json::Find(object, {"status", "conditions"});
  if (list == nullptr || !list->IsArray()) return nullptr;
  for (const auto& c : list->GetArray()) {
    if (c.IsObject() && json::GetString(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

bool IsStatusConditionTrue(const json::Value& object, std::string_view type) {
  const json::Value* c = FindStatusCondition(object, type);
  return c != nullptr && json::GetString(*c, {"status"}) == "True";
}

bool SetStatusCondition(json::Document& object, const Condition& cond, TimePoint now) {
  auto& alloc = object.GetAllocator();
  if (!object.IsObject()) object.SetObject();
  json::Value& status = json::EnsureObject(object, "status", alloc);
  if (!status.IsObject()) status.SetObject();
  json::Value* list = json::FindMutable(status, {"conditions"});
  if (list == nullptr || !list->IsArray()) {
    json::SetMember(status, "conditions", json::Value(rapidjson::kArrayType), alloc);
    list = json::FindMutable(status, {"conditions"});
  }
  const std::optional<int64_t> generation =
      !cond.record_observed_generation ? std::nullopt
      : cond.observed_generation       ? cond.observed_generation
                                       : Generation(object);
  json::Value* existing = nullptr;
  for (auto& c : list->GetArray()) {
    if (c.IsObject() && json::GetString(c, {"type"}) == cond.type) {
      existing = &c;
      break;
    }
  }
  if (existing == nullptr) {
    json::Value c(rapidjson::kObjectType);
    json::SetString(c, "type", cond.type, alloc);
    json::SetString(c, "status", cond.status, alloc);
    if (generation) json::SetMember(c, "observedGeneration", json::Value(*generation), alloc);
    json::SetString(c, "lastTransitionTime", FormatTimestamp(now), alloc);
    json::SetString(c, "reason", cond.reason, alloc);
    json::SetString(c, "message", cond.message, alloc);
    list->PushBack(c, alloc);
    return true;
  }
  bool changed = false;
  if (json::GetString(*existing, {"status"}) != cond.status) {
    json::SetString(*existing, "status", cond.status, alloc);
    json::SetString(*existing, "lastTransitionTime", FormatTimestamp(now), alloc);
    changed = true;
  }
  changed |= SetIfDifferent(*existing, "reason", cond.reason, alloc);
  changed |= SetIfDifferent(*existing, "message", cond.message, alloc);
  if (generation) {
    const json::Value* og = json::Member(*existing, "observedGeneration");
    if (og == nullptr || !og->IsInt64() || og->GetInt64() != *generation) {
      json::SetMember(*existing, "observedGeneration", json::Value(*generation), alloc);
      changed = true;
    }
  }
  return changed;
}

bool RemoveStatusCondition(json::Value& object, std::string_view type) {
  json::Value* list = json::FindMutable(object, {"status", "conditions"});
  if (list == nullptr || !list->IsArray()) return false;
  for (auto it = list->Begin(); it != list->End(); ++it) {
    if (it->IsObject() && json::GetString(*it, {"type"}) == type) {
      list->Erase(it);
      return true;
    }
  }
  return false;
}

bool SetObservedGeneration(json::Document& object) {
  const std::optional<int64_t> generation = Generation(object);
  if (!generation || !object.IsObject()) return false;
  json::Value& status = json::EnsureObject(object, "status", object.GetAllocator());
  if (!status.IsObject()) status.SetObject();
  const json::Value* og = json::Member(status, "observedGeneration");
  if (og != nullptr && og->IsInt64() && og->GetInt64() == *generation) return false;
  json::SetMember(status, "observedGeneration", json::Value(*generation), object.GetAllocator());
  return true;
}

}  // namespace berth::shim
