#include "e2e/kubesim/sim/workload_support.h"

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::workload {

using rapidjson::Value;

rapidjson::Document ParseStored(const StoredObject& obj) {
  rapidjson::Document d;
  d.Parse(obj.json.data(), obj.json.size());
  if (d.HasParseError() || !d.IsObject()) d.SetObject();
  return d;
}

const rapidjson::Document& ParsedCache::Get(const ObjectPtr& obj) {
  auto [it, added] = entries_.try_emplace(obj.get());
  if (added) {
    it->second.object = obj;
    it->second.doc = std::make_unique<rapidjson::Document>(ParseStored(*obj));
  }
  it->second.used = true;
  return *it->second.doc;
}

void ParsedCache::Sweep() {
  std::erase_if(entries_, [](const auto& e) { return !e.second.used; });
  if (entries_.size() > max_kept) entries_.clear();
  for (auto& [ptr, entry] : entries_) entry.used = false;
}

int64_t IntAt(const Value& root, std::initializer_list<std::string_view> path, int64_t fallback) {
  const Value* v = json::Find(root, path);
  return v && v->IsInt64() ? v->GetInt64() : fallback;
}

bool IsActivePod(const Value& pod) {
  std::string_view phase = json::GetString(pod, {"status", "phase"});
  const Value* deletion = json::Find(pod, {"metadata", "deletionTimestamp"});
  return phase != "Succeeded" && phase != "Failed" && (!deletion || deletion->IsNull());
}

std::optional<shim::TimePoint> ReadySince(const Value& pod) {
  const Value* conditions = json::Find(pod, {"status", "conditions"});
  if (!conditions || !conditions->IsArray()) return std::nullopt;
  for (const auto& c : conditions->GetArray()) {
    if (json::GetString(c, {"type"}) != "Ready") continue;
    if (json::GetString(c, {"status"}) != "True") return std::nullopt;
    auto t = shim::ParseTimestamp(json::GetString(c, {"lastTransitionTime"}));
    // A Ready condition without a valid time is Ready since the beginning of time.
    return t ? *t : shim::TimePoint{};
  }
  return std::nullopt;
}

bool IsPodAvailable(const Value& pod, int64_t min_ready_seconds, shim::TimePoint now,
                    std::optional<shim::TimePoint>* available_at) {
  auto since = ReadySince(pod);
  if (!since) return false;
  if (min_ready_seconds <= 0) return true;
  if (*since == shim::TimePoint{}) return false;  // upstream: a zero transition time is not available
  shim::TimePoint at = *since + std::chrono::seconds(min_ready_seconds);
  if (at < now) return true;
  if (available_at) *available_at = at;
  return false;
}

std::string_view ControllerUid(const Value& obj) {
  const Value* owners = json::Find(obj, {"metadata", "ownerReferences"});
  if (!owners || !owners->IsArray()) return {};
  for (const auto& o : owners->GetArray()) {
    const Value* controller = json::Member(o, "controller");
    if (controller && controller->IsBool() && controller->GetBool()) return json::GetString(o, {"uid"});
  }
  return {};
}

Value MakeControllerRef(std::string_view api_version, std::string_view kind, std::string_view name,
                        std::string_view uid, rapidjson::Document::AllocatorType& alloc) {
  Value ref(rapidjson::kObjectType);
  json::SetString(ref, "apiVersion", api_version, alloc);
  json::SetString(ref, "kind", kind, alloc);
  json::SetString(ref, "name", name, alloc);
  json::SetString(ref, "uid", uid, alloc);
  ref.AddMember("controller", true, alloc);
  ref.AddMember("blockOwnerDeletion", true, alloc);
  return ref;
}

bool LabelsContain(const Value* have, const Value* want) {
  if (!want || !want->IsObject()) return true;
  for (const auto& m : want->GetObject()) {
    if (!have || !have->IsObject()) return false;
    const Value* v = json::Member(*have, std::string_view(m.name.GetString(), m.name.GetStringLength()));
    if (!v || !v->IsString() || !m.value.IsString() || std::string_view(v->GetString()) != m.value.GetString()) {
      return false;
    }
  }
  return true;
}

}  // namespace berth::kubesim::workload
