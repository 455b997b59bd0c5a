// e2e/kubesim/openapi/v3_document.cc
#include "e2e/kubesim/openapi/v3_document.h"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <set>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas.h"
#include "e2e/kubesim/openapi/names.h"
#include "e2e/kubesim/openapi/v3_paths.h"

namespace berth::kubesim::openapi {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

constexpr std::string_view kObjectMetaDef = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
constexpr std::string_view kListMetaDef = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
constexpr std::string_view kApiVersionDescription =
    "APIVersion defines the versioned schema of this representation of an object. Servers should convert "
    "recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
constexpr std::string_view kKindDescription =
    "Kind is a string value representing the REST resource this object represents. Servers may infer this "
    "from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
constexpr std::string_view kMetadataDescription =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

Value Str(std::string_view s, Alloc& a) { return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

Value StringProperty(std::string_view description, Alloc& a) {
  Value v(rapidjson::kObjectType);
  json::SetMember(v, "description", Str(description, a), a);
  json::SetMember(v, "type", Str("string", a), a);
  return v;
}

Value RefProperty(std::string_view def, std::string_view description, Alloc& a) {
  Value ref(rapidjson::kObjectType);
  json::SetMember(ref, "$ref", Str(std::string(kV3RefPrefix) + std::string(def), a), a);
  Value all_of(rapidjson::kArrayType);
  all_of.PushBack(std::move(ref), a);
  Value v(rapidjson::kObjectType);
  json::SetMember(v, "allOf", std::move(all_of), a);
  json::SetMember(v, "description", Str(description, a), a);
  return v;
}

Value GvkList(std::string_view group, std::string_view version, std::string_view kind, Alloc& a) {
  Value gvk(rapidjson::kObjectType);
  json::SetMember(gvk, "group", Str(group, a), a);
  json::SetMember(gvk, "kind", Str(kind, a), a);
  json::SetMember(gvk, "version", Str(version, a), a);
  Value list(rapidjson::kArrayType);
  list.PushBack(std::move(gvk), a);
  return list;
}

// CustomKindSchema is the CRD's openAPIV3Schema with apiVersion, kind and metadata set the way
// the apiserver publishes them. Without a schema the object accepts any field.
Value CustomKindSchema(const ResourceInfo& r, Alloc& a) {
  Value schema(rapidjson::kObjectType);
  if (r.schema != nullptr && r.schema->IsObject()) schema.CopyFrom(*r.schema, a);
  if (r.schema == nullptr) json::SetMember(schema, "x-kubernetes-preserve-unknown-fields", Value(true), a);
  if (!json::Member(schema, "type")) json::SetMember(schema, "type", Str("object", a), a);
  Value& props = json::EnsureObject(schema, "properties", a);
  if (!props.IsObject()) props.SetObject();
  json::SetMember(props, "apiVersion", StringProperty(kApiVersionDescription, a), a);
  json::SetMember(props, "kind", StringProperty(kKindDescription, a), a);
  json::SetMember(props, "metadata", RefProperty(kObjectMetaDef, kMetadataDescription, a), a);
  json::SetMember(schema, "x-kubernetes-group-version-kind", GvkList(r.group, r.version, r.kind, a), a);
  return schema;
}

Value CustomListSchema(const ResourceInfo& r, const std::string& kind_def, Alloc& a) {
  Value schema(rapidjson::kObjectType);
  std::string list_kind = r.list_kind.empty() ? r.kind + "List" : r.list_kind;
  json::SetMember(schema, "description", Str(list_kind + " is a list of " + r.kind, a), a);
  Value required(rapidjson::kArrayType);
  required.PushBack(Str("items", a), a);
  json::SetMember(schema, "required", std::move(required), a);
  json::SetMember(schema, "type", Str("object", a), a);
  Value props(rapidjson::kObjectType);
  json::SetMember(props, "apiVersion", StringProperty(kApiVersionDescription, a), a);
  Value items(rapidjson::kObjectType);
  json::SetMember(items, "description", Str("List of " + r.plural + ".", a), a);
  json::SetMember(items, "type", Str("array", a), a);
  Value item_ref(rapidjson::kObjectType);
  json::SetMember(item_ref, "$ref", Str(std::string(kV3RefPrefix) + kind_def, a), a);
  json::SetMember(items, "items", std::move(item_ref), a);
  json::SetMember(props, "items", std::move(items), a);
  json::SetMember(props, "kind", StringProperty(kKindDescription, a), a);
  json::SetMember(props, "metadata",
                  RefProperty(kListMetaDef,
                              "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/"
                              "sig-architecture/api-conventions.md#types-kinds",
                              a),
                  a);
  json::SetMember(schema, "properties", std::move(props), a);
  json::SetMember(schema, "x-kubernetes-group-version-kind", GvkList(r.group, r.version, list_kind, a), a);
  return schema;
}

// CollectRefs appends the definition names referenced anywhere under `v`.
void CollectRefs(const Value& v, std::deque<std::string>& out) {
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      if (m.name == "$ref" && m.value.IsString()) {
        std::string_view target = RefTarget(std::string_view(m.value.GetString(), m.value.GetStringLength()));
        if (!target.empty()) out.emplace_back(target);
      } else {
        CollectRefs(m.value, out);
      }
    }
  } else if (v.IsArray()) {
    for (const auto& e : v.GetArray()) CollectRefs(e, out);
  }
}

}  // namespace

std::vector<std::string> ServedGroupVersionPaths(const std::vector<ResourceInfo>& resources) {
  std::set<std::string> paths;
  for (const ResourceInfo& r : resources) {
    if (!r.version.empty()) paths.insert(GroupVersionPath(r.group, r.version));
  }
  return {paths.begin(), paths.end()};
}

std::string ContentHash(std::string_view text) {
  // Two FNV-1a 64-bit lanes with different offsets: stable across runs and platforms.
  std::uint64_t h1 = 14695981039346656037ULL, h2 = 1099511628211ULL * 31 + 7;
  for (unsigned char c : text) {
    h1 = (h1 ^ c) * 1099511628211ULL;
    h2 = (h2 ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llX%016llX", static_cast<unsigned long long>(h1),
                static_cast<unsigned long long>(h2));
  return buf;
}

std::optional<rapidjson::Document> BuildV3GroupVersionDocument(std::string_view gv_path,
                                                               const std::vector<ResourceInfo>& resources) {
  auto gv = ParseGroupVersionPath(gv_path);
  if (!gv) return std::nullopt;
  rapidjson::Document doc(rapidjson::kObjectType);
  Alloc& a = doc.GetAllocator();
  Value paths(rapidjson::kObjectType);
  Value schemas(rapidjson::kObjectType);
  std::deque<std::string> wanted;
  bool any = false;
  for (const ResourceInfo& r : resources) {
    if (r.group != gv->first || r.version != gv->second) continue;
    any = true;
    ResourceDefinitions defs;
    std::optional<std::string> builtin_kind =
        r.schema == nullptr ? BuiltinDefinitionName(r.group, r.version, r.kind) : std::nullopt;
    std::string list_kind = r.list_kind.empty() ? r.kind + "List" : r.list_kind;
    std::optional<std::string> builtin_list =
        builtin_kind ? BuiltinDefinitionName(r.group, r.version, list_kind) : std::nullopt;
    if (builtin_kind) {
      defs.kind = *builtin_kind;
      wanted.push_back(defs.kind);
    } else {
      defs.kind = CrdDefinitionName(r.group, r.version, r.kind);
      json::SetMember(schemas, defs.kind, CustomKindSchema(r, a), a);
    }
    if (builtin_list) {
      defs.list = *builtin_list;
      wanted.push_back(defs.list);
    } else {
      defs.list = CrdDefinitionName(r.group, r.version, list_kind);
      json::SetMember(schemas, defs.list, CustomListSchema(r, defs.kind, a), a);
    }
    AddResourcePaths(r, defs, paths, a);
  }
  if (!any) return std::nullopt;

  // Copy every built-in definition reachable from the paths and the custom schemas.
  CollectRefs(paths, wanted);
  CollectRefs(schemas, wanted);
  std::set<std::string> seen;
  while (!wanted.empty()) {
    std::string name = std::move(wanted.front());
    wanted.pop_front();
    if (!seen.insert(name).second || json::Member(schemas, name)) continue;
    const Value* def = BuiltinSchema(name);
    if (def == nullptr) continue;
    CollectRefs(*def, wanted);
    Value copy(*def, a);
    json::SetMember(schemas, name, std::move(copy), a);
  }

  json::SetString(doc, "openapi", "3.0.0", a);
  Value info(rapidjson::kObjectType);
  json::SetString(info, "title", "Kubernetes", a);
  json::SetString(info, "version", "v1.32.0", a);
  json::SetMember(doc, "info", std::move(info), a);
  json::SetMember(doc, "paths", std::move(paths), a);
  Value components(rapidjson::kObjectType);
  json::SetMember(components, "schemas", std::move(schemas), a);
  json::SetMember(doc, "components", std::move(components), a);
  return doc;
}

std::optional<std::string> BuildV3GroupVersion(std::string_view gv_path, const std::vector<ResourceInfo>& resources) {
  std::optional<rapidjson::Document> doc = BuildV3GroupVersionDocument(gv_path, resources);
  if (!doc) return std::nullopt;
  return json::Serialize(*doc);
}

rapidjson::Document BuildV3Root(const std::vector<ResourceInfo>& resources) {
  rapidjson::Document root(rapidjson::kObjectType);
  Alloc& a = root.GetAllocator();
  Value paths(rapidjson::kObjectType);
  for (const std::string& gv : ServedGroupVersionPaths(resources)) {
    std::optional<std::string> text = BuildV3GroupVersion(gv, resources);
    if (!text) continue;
    Value entry(rapidjson::kObjectType);
    json::SetString(entry, "serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + ContentHash(*text), a);
    json::SetMember(paths, gv, std::move(entry), a);
  }
  json::SetMember(root, "paths", std::move(paths), a);
  return root;
}

}  // namespace berth::kubesim::openapi
