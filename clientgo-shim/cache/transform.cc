#include "clientgo-shim/cache/transform.h"

#include <algorithm>
#include <string_view>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

bool KeepMetadataField(std::string_view key) {
  static constexpr std::string_view kKeep[] = {
      "name",   "namespace",         "uid",               "resourceVersion", "generation",
      "labels", "annotations",       "ownerReferences",   "finalizers",      "creationTimestamp",
      "deletionTimestamp", "deletionGracePeriodSeconds"};
  for (auto k : kKeep) {
    if (key == k) return true;
  }
  return false;
}

// Keeps only members for which keep(name) holds.
template <class Pred>
void RetainMembers(rapidjson::Value& object, Pred keep) {
  if (!object.IsObject()) return;
  for (auto it = object.MemberBegin(); it != object.MemberEnd();) {
    if (keep(std::string_view(it->name.GetString(), it->name.GetStringLength()))) {
      ++it;
    } else {
      it = object.EraseMember(it);
    }
  }
}

Status SlimMetadata(rapidjson::Value& object) {
  if (!object.IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "transform: object is not a JSON object");
  }
  if (rapidjson::Value* meta = json::FindMutable(object, {"metadata"})) {
    RetainMembers(*meta, KeepMetadataField);
    if (rapidjson::Value* ann = json::FindMutable(*meta, {"annotations"})) {
      json::RemoveMember(*ann, kLastAppliedAnnotation);
      if (ann->IsObject() && ann->MemberCount() == 0) json::RemoveMember(*meta, "annotations");
    }
  }
  return {};
}

std::map<std::string, std::string> StringMap(const rapidjson::Value* v) {
  std::map<std::string, std::string> out;
  if (!v || !v->IsObject()) return out;
  for (const auto& m : v->GetObject()) {
    if (m.value.IsString()) out.emplace(m.name.GetString(), m.value.GetString());
  }
  return out;
}

}  // namespace

Status DefaultTransformFn(rapidjson::Value& object, rapidjson::Document::AllocatorType&) {
  if (auto st = SlimMetadata(object); !st) return st;
  RetainMembers(object, [](std::string_view k) {
    return k == "metadata" || k == "spec" || k == "status";
  });
  return {};
}

Transform DefaultTransform() { return DefaultTransformFn; }

Transform StatusSubsetTransform(std::vector<std::string> keep_status) {
  return [keep = std::move(keep_status)](rapidjson::Value& object, rapidjson::Document::AllocatorType& a) -> Status {
    if (auto st = DefaultTransformFn(object, a); !st) return st;
    if (rapidjson::Value* status = json::FindMutable(object, {"status"})) {
      RetainMembers(*status, [&keep](std::string_view k) { return std::find(keep.begin(), keep.end(), k) != keep.end(); });
    }
    return {};
  };
}

Status PodViewTransformFn(rapidjson::Value& object, rapidjson::Document::AllocatorType& a) {
  if (auto st = DefaultTransformFn(object, a); !st) return st;
  if (rapidjson::Value* spec = json::FindMutable(object, {"spec"})) {
    RetainMembers(*spec, [](std::string_view k) {
      return k == "nodeName" || k == "schedulerName" || k == "priority" || k == "containers";
    });
    if (rapidjson::Value* cs = json::FindMutable(*spec, {"containers"}); cs && cs->IsArray()) {
      for (auto& c : cs->GetArray()) {
        RetainMembers(c, [](std::string_view k) { return k == "name" || k == "resources"; });
        if (rapidjson::Value* r = json::FindMutable(c, {"resources"})) {
          RetainMembers(*r, [](std::string_view k) { return k == "requests"; });
        }
      }
    }
  }
  if (rapidjson::Value* status = json::FindMutable(object, {"status"})) {
    RetainMembers(*status, [](std::string_view k) { return k == "phase" || k == "conditions"; });
    if (rapidjson::Value* conds = json::FindMutable(*status, {"conditions"});
        conds && conds->IsArray()) {
      rapidjson::Value kept(rapidjson::kArrayType);
      for (auto& c : conds->GetArray()) {
        if (json::GetString(c, {"type"}) != "Ready") continue;
        RetainMembers(c, [](std::string_view k) { return k == "type" || k == "status"; });
        kept.PushBack(c, a);
      }
      *conds = std::move(kept);
    }
  }
  return {};
}

Transform PodViewTransform() { return PodViewTransformFn; }

Transform IdentityTransform() {
  return [](rapidjson::Value&, rapidjson::Document::AllocatorType&) -> Status { return {}; };
}

Result<PodView> ReadPodView(const CachedObject& pod) {
  auto doc = pod.ToJson();
  if (!doc) return std::unexpected(doc.error());
  const rapidjson::Value& o = *doc;
  PodView v;
  v.name = std::string(pod.Name());
  v.namespace_name = std::string(pod.Namespace());
  v.node_name = std::string(json::GetString(o, {"spec", "nodeName"}));
  v.scheduler_name = std::string(json::GetString(o, {"spec", "schedulerName"}));
  v.phase = std::string(json::GetString(o, {"status", "phase"}));
  v.labels = StringMap(json::Find(o, {"metadata", "labels"}));
  v.annotations = StringMap(json::Find(o, {"metadata", "annotations"}));
  if (const rapidjson::Value* conds = json::Find(o, {"status"}); conds) {
    if (const rapidjson::Value* list = json::Member(*conds, "conditions");
        list && list->IsArray()) {
      for (const auto& c : list->GetArray()) {
        if (json::GetString(c, {"type"}) == "Ready") v.ready = json::GetString(c, {"status"}) == "True";
      }
    }
  }
  if (const rapidjson::Value* spec = json::Find(o, {"spec"}); spec) {
    if (const rapidjson::Value* cs = json::Member(*spec, "containers"); cs && cs->IsArray()) {
      for (const auto& c : cs->GetArray()) {
        PodView::Container pc;
        pc.name = std::string(json::GetString(c, {"name"}));
        pc.requests = StringMap(json::Find(c, {"resources", "requests"}));
        v.containers.push_back(std::move(pc));
      }
    }
  }
  return v;
}

}  // namespace berth::shim
