// e2e/kubesim/api/registry.h
//
// What kubesim serves: one ResourceType per (group, version, resource), for the built-in kinds
// and for every CustomResourceDefinition applied. Discovery, OpenAPI, routing and storage all
// read this table. CRD types are added and removed as CRDs are created and deleted.
// Thread-safety: all methods may be called concurrently; lookups return immutable snapshots.
#pragma once

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim {

// ResourceType: how one resource of one group-version behaves.
struct ResourceType {
  std::string group;  // "" for core
  std::string version;
  std::string kind;
  std::string list_kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  bool has_status = false;      // a status subresource: main writes keep status
  bool has_scale = false;       // apps workloads: /scale
  bool has_generation = false;  // metadata.generation moves on spec changes
  bool is_crd = false;
  std::string storage_version;  // the version objects are stored in (CRDs: storage: true)
  bool multi_version = false;   // CRDs serving several versions: reads rewrite apiVersion
  bool deprecated = false;      // CRD version marked deprecated: every request gets a warning
  std::string deprecation_warning;  // its deprecationWarning, or the apiserver's default text
  // CRDs: the structural schema, printer columns and scale paths of this version (null if none).
  std::shared_ptr<const rapidjson::Document> schema;
  std::shared_ptr<const rapidjson::Document> printer_columns;
  std::vector<std::string> selectable_fields;  // CRD selectableFields jsonPaths, e.g. ".spec.x"

  // StorageKey identifies the stored collection: "group/plural", shared by all versions.
  std::string StorageKey() const { return group + "/" + plural; }
  // GroupVersion is "v1" for core, "group/version" otherwise (the apiVersion field).
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
  // Qualified is "plural" for core, "plural.group" otherwise (used in Status messages).
  std::string Qualified() const { return group.empty() ? plural : plural + "." + group; }
};
using ResourceTypePtr = std::shared_ptr<const ResourceType>;

// Registry: see the file comment.
class Registry {
 public:
  // Registry starts with kubesim's built-in types.
  Registry();

  ResourceTypePtr Find(std::string_view group, std::string_view version,
                       std::string_view plural) const;
  ResourceTypePtr FindByKind(std::string_view group, std::string_view version,
                             std::string_view kind) const;
  std::vector<ResourceTypePtr> All() const;
  // GroupVersions lists "v1", "apps/v1", ... with the preferred (first) version per group first.
  std::vector<std::string> GroupVersions() const;

  // SetCrdTypes replaces the types contributed by the CRD named `crd_name` (empty = remove).
  void SetCrdTypes(const std::string& crd_name, std::vector<ResourceType> types);
  // Generation increases on every change, so caches (OpenAPI) know when to rebuild.
  uint64_t Generation() const;

 private:
  mutable std::shared_mutex mu_;
  std::vector<ResourceTypePtr> builtin_;
  std::vector<std::pair<std::string, std::vector<ResourceTypePtr>>> crds_;
  uint64_t generation_ = 1;
};

}  // namespace berth::kubesim
