// e2e/kubesim/openapi/openapi_cache.cc
#include "e2e/kubesim/openapi/openapi_cache.h"

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/v2_document.h"
#include "e2e/kubesim/openapi/v3_document.h"

namespace berth::kubesim::openapi {

void OpenApiCache::ResetIfStale(std::uint64_t generation) {
  if (generation_ == generation) return;
  generation_ = generation;
  root_.reset();
  v2_.reset();
  group_versions_.clear();
}

OpenApiCache::Text OpenApiCache::GroupVersionLocked(std::string_view gv_path,
                                                    const std::vector<ResourceInfo>& resources) {
  if (auto it = group_versions_.find(gv_path); it != group_versions_.end()) return it->second;
  std::optional<std::string> text = BuildV3GroupVersion(gv_path, resources);
  Text value = text ? std::make_shared<const std::string>(std::move(*text)) : nullptr;
  group_versions_.emplace(std::string(gv_path), value);
  return value;
}

OpenApiCache::Text OpenApiCache::GroupVersion(std::uint64_t generation, std::string_view gv_path,
                                              const std::vector<ResourceInfo>& resources) {
  std::lock_guard lock(mu_);
  ResetIfStale(generation);
  return GroupVersionLocked(gv_path, resources);
}

OpenApiCache::Text OpenApiCache::Root(std::uint64_t generation, const std::vector<ResourceInfo>& resources) {
  std::lock_guard lock(mu_);
  ResetIfStale(generation);
  if (root_) return root_;
  // Same shape as BuildV3Root, but hashing the cached documents instead of rebuilding them.
  rapidjson::Document root(rapidjson::kObjectType);
  auto& a = root.GetAllocator();
  rapidjson::Value paths(rapidjson::kObjectType);
  for (const std::string& gv : ServedGroupVersionPaths(resources)) {
    Text doc = GroupVersionLocked(gv, resources);
    if (!doc) continue;
    rapidjson::Value entry(rapidjson::kObjectType);
    json::SetString(entry, "serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + ContentHash(*doc), a);
    json::SetMember(paths, gv, std::move(entry), a);
  }
  json::SetMember(root, "paths", std::move(paths), a);
  root_ = std::make_shared<const std::string>(json::Serialize(root));
  return root_;
}

OpenApiCache::Text OpenApiCache::V2(std::uint64_t generation, const std::vector<ResourceInfo>& resources) {
  std::lock_guard lock(mu_);
  ResetIfStale(generation);
  if (!v2_) v2_ = std::make_shared<const std::string>(json::Serialize(BuildV2(resources)));
  return v2_;
}

}  // namespace berth::kubesim::openapi
