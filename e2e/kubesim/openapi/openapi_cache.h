// e2e/kubesim/openapi/openapi_cache.h
//
// Caches the serialized /openapi/v3 documents (and the v2 document) so a server answering every
// kubectl command does not rebuild them. The caller passes a generation number it bumps whenever
// the served resources change (a CRD created, updated or deleted); a new generation drops the cache.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim::openapi {

class OpenApiCache {
 public:
  using Text = std::shared_ptr<const std::string>;

  // Root returns the serialized BuildV3Root document for `resources` at `generation`.
  Text Root(std::uint64_t generation, const std::vector<ResourceInfo>& resources);

  // GroupVersion returns the serialized document of `gv_path` ("api/v1"), or nullptr when that
  // group-version is not served.
  Text GroupVersion(std::uint64_t generation, std::string_view gv_path, const std::vector<ResourceInfo>& resources);

  // V2 returns the serialized swagger 2.0 document (BuildV2).
  Text V2(std::uint64_t generation, const std::vector<ResourceInfo>& resources);

 private:
  // ResetIfStale drops everything cached for another generation. Requires mu_.
  void ResetIfStale(std::uint64_t generation);
  // GroupVersionLocked builds or returns the cached document. Requires mu_.
  Text GroupVersionLocked(std::string_view gv_path, const std::vector<ResourceInfo>& resources);

  std::mutex mu_;
  std::optional<std::uint64_t> generation_;
  Text root_;
  Text v2_;
  std::map<std::string, Text, std::less<>> group_versions_;  // nullptr value: not served
};

}  // namespace berth::kubesim::openapi
