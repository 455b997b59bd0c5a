#include "reconcile/placement/prefer_avoid_pods.h"

#include <algorithm>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "reconcile/common/annotation_json.h"

namespace berth::reconcile::placement {
namespace {

Error Invalid(std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::string(kPreferAvoidPodsAnnotation) + ": " + std::move(message), 0, {}, {}};
}

Result<std::string> RequiredString(const rapidjson::Value& object, std::string_view key, const std::string& path) {
  const rapidjson::Value* v = json::Member(object, key);
  if (!v || !v->IsString() || v->GetStringLength() == 0) {
    return std::unexpected(Invalid(path + "." + std::string(key) + ": required string"));
  }
  return std::string(v->GetString(), v->GetStringLength());
}

}  // namespace

Result<std::vector<PreferAvoidEntry>> ParsePreferAvoidPods(std::string_view text) {
  auto doc = ParseAnnotationJson(text);
  if (!doc) return std::unexpected(Invalid(doc.error().message));
  if (!doc->IsObject()) return std::unexpected(Invalid("not a JSON object"));
  std::vector<PreferAvoidEntry> out;
  const rapidjson::Value* list = json::Member(*doc, "preferAvoidPods");
  if (!list || list->IsNull()) return out;
  if (!list->IsArray()) return std::unexpected(Invalid("preferAvoidPods: not a list"));
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const rapidjson::Value& item = (*list)[i];
    const std::string path = "preferAvoidPods[" + std::to_string(i) + "]";
    if (!item.IsObject()) return std::unexpected(Invalid(path + ": not an object"));
    const rapidjson::Value* controller = json::Find(item, {"podSignature", "podController"});
    if (!controller || !controller->IsObject()) {
      return std::unexpected(Invalid(path + ".podSignature.podController: required object"));
    }
    const std::string cpath = path + ".podSignature.podController";
    PreferAvoidEntry entry;
    entry.api_version = json::GetString(*controller, {"apiVersion"});
    auto kind = RequiredString(*controller, "kind", cpath);
    auto name = RequiredString(*controller, "name", cpath);
    auto uid = RequiredString(*controller, "uid", cpath);
    if (!kind) return std::unexpected(kind.error());
    if (!name) return std::unexpected(name.error());
    if (!uid) return std::unexpected(uid.error());
    entry.kind = *kind;
    entry.name = *name;
    entry.uid = *uid;
    const rapidjson::Value* when = json::Member(item, "evictionTime");
    if (!when || !when->IsString()) return std::unexpected(Invalid(path + ".evictionTime: required timestamp"));
    auto parsed = shim::ParseTimestamp({when->GetString(), when->GetStringLength()});
    if (!parsed) return std::unexpected(Invalid(path + ".evictionTime: " + parsed.error().message));
    entry.eviction_time = std::chrono::time_point_cast<Time::duration>(*parsed);
    entry.reason = json::GetString(item, {"reason"});
    entry.message = json::GetString(item, {"message"});
    out.push_back(std::move(entry));
  }
  return out;
}

std::string SerializePreferAvoidPods(const std::vector<PreferAvoidEntry>& entries) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  for (const auto& e : entries) {
    rapidjson::Value item(rapidjson::kObjectType);
    rapidjson::Value& controller =
        json::EnsureObject(json::EnsureObject(item, "podSignature", a), "podController", a);
    json::SetString(controller, "apiVersion", e.api_version, a);
    json::SetString(controller, "kind", e.kind, a);
    json::SetString(controller, "name", e.name, a);
    json::SetString(controller, "uid", e.uid, a);
    controller.AddMember("controller", true, a);
    json::SetString(item, "evictionTime",
                    shim::FormatTimestamp(std::chrono::time_point_cast<shim::TimePoint::duration>(e.eviction_time)), a);
    if (!e.reason.empty()) json::SetString(item, "reason", e.reason, a);
    if (!e.message.empty()) json::SetString(item, "message", e.message, a);
    list.PushBack(item, a);
  }
  doc.AddMember("preferAvoidPods", list, a);
  return json::Serialize(doc);
}

std::vector<PreferAvoidEntry> RecordAvoidance(std::vector<PreferAvoidEntry> entries, PreferAvoidEntry entry,
                                              Time now, const PreferAvoidOptions& options) {
  std::erase_if(entries, [&](const PreferAvoidEntry& e) {
    return e.uid == entry.uid || e.eviction_time + options.ttl <= now;
  });
  entries.push_back(std::move(entry));
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& x, const auto& y) { return x.eviction_time < y.eviction_time; });
  if (entries.size() > options.max_entries) {
    entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(entries.size() - options.max_entries));
  }
  return entries;
}

bool RecentlyRecorded(const std::vector<PreferAvoidEntry>& entries, std::string_view uid, Time now,
                      const PreferAvoidOptions& options) {
  const Duration refresh = std::min<Duration>(options.ttl / 10, std::chrono::minutes(1));
  return std::any_of(entries.begin(), entries.end(), [&](const PreferAvoidEntry& e) {
    return e.uid == uid && e.eviction_time <= now && now - e.eviction_time < refresh;
  });
}

std::vector<AvoidedController> ActiveAvoidances(const std::vector<PreferAvoidEntry>& entries, Time now,
                                                const PreferAvoidOptions& options) {
  std::vector<AvoidedController> out;
  if (options.ttl <= Duration::zero()) return out;
  for (const auto& e : entries) {
    if (e.eviction_time + options.ttl > now) out.push_back({e.kind, e.name, e.uid, e.eviction_time + options.ttl});
  }
  return out;
}

bool AvoidsPod(const NodeView& node, const PodSpecView& pod, Time now) {
  if (node.avoided_controllers.empty()) return false;
  for (const auto& ref : pod.owner_references) {
    if (!ref.controller) continue;
    for (const auto& a : node.avoided_controllers) {
      if (a.until > now && a.uid == ref.uid && a.kind == ref.kind && a.name == ref.name) return true;
    }
  }
  return false;
}

}  // namespace berth::reconcile::placement
