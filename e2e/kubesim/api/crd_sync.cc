// ApiServer::SyncCrd: what apiextensions-apiserver does when a CustomResourceDefinition changes:
// serve its resource at once (every served version with its own schema, printer columns,
// subresources and deprecation; see crd_versions.h), mark it NamesAccepted and Established, and
// on deletion remove the custom resources and stop serving them.
#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/crd_versions.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

std::vector<std::string> StringList(const Value* v) {
  std::vector<std::string> out;
  if (!v || !v->IsArray()) return out;
  for (const auto& s : v->GetArray()) {
    if (s.IsString()) out.emplace_back(s.GetString());
  }
  return out;
}

std::shared_ptr<const Document> CopyOf(const Value* v) {
  if (!v) return nullptr;
  auto d = std::make_shared<Document>();
  d->CopyFrom(*v, d->GetAllocator());
  return d;
}

bool ConditionTrue(const Value& crd, std::string_view type) {
  const Value* conds = json::Find(crd, {"status", "conditions"});
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray()) {
    if (json::GetString(c, {"type"}) == type && json::GetString(c, {"status"}) == "True") return true;
  }
  return false;
}

}  // namespace

void ApiServer::SyncCrd(const Value& crd, bool deleted) {
  std::string crd_name(json::GetString(crd, {"metadata", "name"}));
  const Value* spec = json::Member(crd, "spec");
  if (crd_name.empty() || !spec || !spec->IsObject()) return;
  std::string group(json::GetString(*spec, {"group"}));
  std::string plural(json::GetString(*spec, {"names", "plural"}));
  if (deleted || json::Find(crd, {"metadata", "deletionTimestamp"})) {
    registry_.SetCrdTypes(crd_name, {});
    // Remove the custom resources (the customresourcecleanup finalizer's job).
    auto page = store_.List(group + "/" + plural, "", nullptr, 0, 0, "");
    for (const auto& obj : page->items) {
      store_.Remove(group + "/" + plural, obj->namespace_name, obj->name,
                    [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
                      Document d;
                      d.Parse(cur->json.data(), cur->json.size());
                      json::SetString(json::EnsureObject(d, "metadata", d.GetAllocator()), "resourceVersion",
                                      std::to_string(rv), d.GetAllocator());
                      return ToStored(d, rv);
                    });
    }
    return;
  }
  std::vector<ResourceType> types;
  std::string storage_version;
  std::vector<CrdVersionInfo> version_infos;
  const Value* versions = json::Member(*spec, "versions");
  if (versions && versions->IsArray()) {
    for (const auto& v : versions->GetArray()) {
      if (const Value* s = json::Member(v, "storage"); s && s->IsBool() && s->GetBool()) {
        storage_version = json::GetString(v, {"name"});
      }
      const Value* served = json::Member(v, "served");
      const Value* deprecated = json::Member(v, "deprecated");
      version_infos.push_back({std::string(json::GetString(v, {"name"})), !served || !served->IsBool() || served->GetBool(),
                               deprecated && deprecated->IsBool() && deprecated->GetBool()});
    }
    for (const auto& v : versions->GetArray()) {
      const Value* served = json::Member(v, "served");
      if (served && served->IsBool() && !served->GetBool()) continue;
      ResourceType t;
      t.group = group;
      t.version = json::GetString(v, {"name"});
      t.kind = json::GetString(*spec, {"names", "kind"});
      t.list_kind = json::GetString(*spec, {"names", "listKind"});
      if (t.list_kind.empty()) t.list_kind = t.kind + "List";
      t.plural = plural;
      t.singular = json::GetString(*spec, {"names", "singular"});
      if (t.singular.empty()) {
        t.singular = t.kind;
        for (auto& ch : t.singular) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
      t.short_names = StringList(json::Find(*spec, {"names", "shortNames"}));
      t.categories = StringList(json::Find(*spec, {"names", "categories"}));
      t.namespaced = json::GetString(*spec, {"scope"}) != "Cluster";
      t.has_status = json::Find(v, {"subresources", "status"}) != nullptr;
      t.has_scale = false;  // scale for CRs is not served by kubesim
      t.has_generation = true;
      t.is_crd = true;
      t.storage_version = storage_version.empty() ? t.version : storage_version;
      if (const Value* d = json::Member(v, "deprecated"); d && d->IsBool() && d->GetBool()) {
        t.deprecated = true;
        const Value* text = json::Member(v, "deprecationWarning");
        t.deprecation_warning = text && text->IsString()
                                    ? std::string(text->GetString(), text->GetStringLength())
                                    : DefaultDeprecationWarning(group, t.version, t.kind, version_infos);
      }
      t.schema = CopyOf(json::Find(v, {"schema", "openAPIV3Schema"}));
      t.printer_columns = CopyOf(json::Member(v, "additionalPrinterColumns"));
      if (const Value* sf = json::Member(v, "selectableFields"); sf && sf->IsArray()) {
        for (const auto& f : sf->GetArray()) {
          std::string path(json::GetString(f, {"jsonPath"}));
          if (!path.empty()) t.selectable_fields.push_back(path);
        }
      }
      types.push_back(std::move(t));
    }
  }
  // Discovery lists versions in kube-aware order, the first being preferred, as the apiserver does.
  std::stable_sort(types.begin(), types.end(), [](const ResourceType& a, const ResourceType& b) {
    return CompareKubeAwareVersions(a.version, b.version) > 0;
  });
  for (auto& t : types) t.multi_version = types.size() > 1;
  registry_.SetCrdTypes(crd_name, std::move(types));

  if (ConditionTrue(crd, "Established") && ConditionTrue(crd, "NamesAccepted")) return;
  ResourceTypePtr crds = TypeOf("apiextensions.k8s.io", "customresourcedefinitions");
  std::string now = NowRfc3339();
  Mutate(*crds, "", crd_name, "status", [&](Document& d) {
    auto& a = d.GetAllocator();
    Value status(rapidjson::kObjectType);
    Value accepted(*json::Find(d, {"spec", "names"}), a);
    if (!json::Member(accepted, "singular")) {
      std::string singular(json::GetString(accepted, {"kind"}));
      for (auto& ch : singular) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      json::SetString(accepted, "singular", singular, a);
    }
    if (!json::Member(accepted, "listKind")) {
      json::SetString(accepted, "listKind", std::string(json::GetString(accepted, {"kind"})) + "List", a);
    }
    status.AddMember("acceptedNames", accepted, a);
    Value conditions(rapidjson::kArrayType);
    auto add = [&](const char* type, const char* reason, const char* message) {
      Value c(rapidjson::kObjectType);
      c.AddMember("type", Value(type, a), a);
      c.AddMember("status", "True", a);
      json::SetString(c, "lastTransitionTime", now, a);
      c.AddMember("reason", Value(reason, a), a);
      c.AddMember("message", Value(message, a), a);
      conditions.PushBack(c, a);
    };
    add("NamesAccepted", "NoConflicts", "no conflicts found");
    add("Established", "InitialNamesAccepted", "the initial names have been accepted");
    status.AddMember("conditions", conditions, a);
    Value stored(rapidjson::kArrayType);
    stored.PushBack(Value(storage_version.c_str(), a), a);
    status.AddMember("storedVersions", stored, a);
    json::SetMember(d, "status", std::move(status), a);
    return true;
  });
}

}  // namespace berth::kubesim
