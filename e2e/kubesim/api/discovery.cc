#include "e2e/kubesim/api/discovery.h"

#include <algorithm>

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

Value Strings(const std::vector<std::string>& items, Document::AllocatorType& a) {
  Value arr(rapidjson::kArrayType);
  for (const auto& s : items) arr.PushBack(Value(s.c_str(), a), a);
  return arr;
}

Value AddressByCidr(std::string_view server_address, Document::AllocatorType& a) {
  Value arr(rapidjson::kArrayType);
  Value entry(rapidjson::kObjectType);
  entry.AddMember("clientCIDR", "0.0.0.0/0", a);
  json::SetString(entry, "serverAddress", server_address, a);
  arr.PushBack(entry, a);
  return arr;
}

// Versions of `group` in registration order (the first is preferred; SyncCrd registers a CRD's
// versions in kube-aware order, as the apiserver lists them).
std::vector<std::string> VersionsOf(const Registry& registry, std::string_view group) {
  std::vector<std::string> out;
  for (const auto& t : registry.All()) {
    if (t->group != group) continue;
    if (std::find(out.begin(), out.end(), t->version) == out.end()) out.push_back(t->version);
  }
  return out;
}

Value GroupValue(const Registry& registry, const std::string& group, Document::AllocatorType& a) {
  Value g(rapidjson::kObjectType);
  g.AddMember("name", Value(group.c_str(), a), a);
  Value versions(rapidjson::kArrayType);
  auto names = VersionsOf(registry, group);
  for (const auto& v : names) {
    Value gv(rapidjson::kObjectType);
    gv.AddMember("groupVersion", Value((group + "/" + v).c_str(), a), a);
    gv.AddMember("version", Value(v.c_str(), a), a);
    versions.PushBack(gv, a);
  }
  Value preferred(rapidjson::kObjectType);
  if (!names.empty()) {
    preferred.AddMember("groupVersion", Value((group + "/" + names[0]).c_str(), a), a);
    preferred.AddMember("version", Value(names[0].c_str(), a), a);
  }
  g.AddMember("versions", versions, a);
  g.AddMember("preferredVersion", preferred, a);
  return g;
}

Value ResourceEntry(const ResourceType& t, const std::string& name, const std::string& kind,
                    std::vector<std::string> verbs, bool with_names, Document::AllocatorType& a) {
  Value r(rapidjson::kObjectType);
  r.AddMember("name", Value(name.c_str(), a), a);
  r.AddMember("singularName", Value(with_names ? t.singular.c_str() : "", a), a);
  r.AddMember("namespaced", t.namespaced, a);
  // Subresources of another group's kind name that group (Scale: autoscaling, Eviction: policy).
  if (kind == "Scale" || kind == "Eviction") {
    r.AddMember("group", Value(kind == "Scale" ? "autoscaling" : "policy", a), a);
    r.AddMember("version", "v1", a);
  }
  r.AddMember("kind", Value(kind.c_str(), a), a);
  r.AddMember("verbs", Strings(verbs, a), a);
  if (with_names && !t.short_names.empty()) r.AddMember("shortNames", Strings(t.short_names, a), a);
  if (with_names && !t.categories.empty()) r.AddMember("categories", Strings(t.categories, a), a);
  return r;
}

}  // namespace

std::string VersionJson() {
  return R"({"major":"1","minor":"32","gitVersion":"v1.32.0-kubesim","gitCommit":"kubesim",)"
         R"("gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.23.0",)"
         R"("compiler":"gc","platform":"linux/amd64"})";
}

std::string CoreApiVersionsJson(std::string_view server_address) {
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "APIVersions", a);
  Value versions(rapidjson::kArrayType);
  versions.PushBack("v1", a);
  doc.AddMember("versions", versions, a);
  doc.AddMember("serverAddressByClientCIDRs", AddressByCidr(server_address, a), a);
  return json::Serialize(doc);
}

std::string ApiGroupListJson(const Registry& registry, std::string_view server_address) {
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "APIGroupList", a);
  doc.AddMember("apiVersion", "v1", a);
  Value groups(rapidjson::kArrayType);
  std::vector<std::string> seen;
  for (const auto& t : registry.All()) {
    if (t->group.empty() || std::find(seen.begin(), seen.end(), t->group) != seen.end()) continue;
    seen.push_back(t->group);
    groups.PushBack(GroupValue(registry, t->group, a), a);
  }
  doc.AddMember("groups", groups, a);
  return json::Serialize(doc);
}

std::optional<std::string> ApiGroupJson(const Registry& registry, std::string_view group) {
  if (VersionsOf(registry, group).empty()) return std::nullopt;
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "APIGroup", a);
  doc.AddMember("apiVersion", "v1", a);
  Value g = GroupValue(registry, std::string(group), a);
  for (auto& m : g.GetObject()) doc.AddMember(m.name, m.value, a);
  return json::Serialize(doc);
}

std::optional<std::string> ApiResourceListJson(const Registry& registry, std::string_view group,
                                               std::string_view version) {
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "APIResourceList", a);
  doc.AddMember("apiVersion", "v1", a);
  std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  json::SetString(doc, "groupVersion", gv, a);
  Value resources(rapidjson::kArrayType);
  bool any = false;
  const std::vector<std::string> kAll = {"create", "delete", "deletecollection", "get", "list",
                                         "patch", "update", "watch"};
  for (const auto& t : registry.All()) {
    if (t->group != group || t->version != version) continue;
    any = true;
    resources.PushBack(ResourceEntry(*t, t->plural, t->kind, kAll, true, a), a);
    if (t->has_status) {
      resources.PushBack(ResourceEntry(*t, t->plural + "/status", t->kind, {"get", "patch", "update"}, false, a), a);
    }
    if (t->has_scale) {
      resources.PushBack(ResourceEntry(*t, t->plural + "/scale", "Scale", {"get", "patch", "update"}, false, a), a);
    }
    if (t->group.empty() && t->plural == "pods") {
      resources.PushBack(ResourceEntry(*t, "pods/binding", "Binding", {"create"}, false, a), a);
      // The bindings collection (POST namespaces/{ns}/bindings, the pod named by the body), which
      // `kubectl create -f binding.yaml` resolves kind Binding to.
      Value bindings = ResourceEntry(*t, "bindings", "Binding", {"create"}, false, a);
      json::SetString(bindings, "singularName", "binding", a);
      resources.PushBack(bindings, a);
      resources.PushBack(ResourceEntry(*t, "pods/eviction", "Eviction", {"create"}, false, a), a);
    }
  }
  if (!any) return std::nullopt;
  doc.AddMember("resources", resources, a);
  return json::Serialize(doc);
}

}  // namespace berth::kubesim
