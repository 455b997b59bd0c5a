// e2e/kubesim/openapi/v3_document.h
//
// The /openapi/v3 documents kubesim serves: the root index of group-versions and one OpenAPI 3.0
// document per group-version with paths and component schemas. kubectl reads them to decide that
// the server validates fields itself (PATCH operations carrying x-kubernetes-group-version-kind
// and fieldValidation) and `kubectl explain` reads components.schemas. Pure functions; see
// openapi_cache.h for the cached form a server should call.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim::openapi {

// ServedGroupVersionPaths returns the sorted, distinct "api/v1" / "apis/<g>/<v>" paths of `resources`.
std::vector<std::string> ServedGroupVersionPaths(const std::vector<ResourceInfo>& resources);

// ContentHash returns a stable hash of `text` as upper-case hex, used in serverRelativeURL.
std::string ContentHash(std::string_view text);

// BuildV3Root returns {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=H"}, ...}}
// with one entry per served group-version; H is the ContentHash of that group-version's document.
rapidjson::Document BuildV3Root(const std::vector<ResourceInfo>& resources);

// BuildV3GroupVersionDocument builds the document of `gv_path` ("api/v1", "apis/apps/v1").
// Returns nullopt when no resource of `resources` belongs to that group-version.
std::optional<rapidjson::Document> BuildV3GroupVersionDocument(std::string_view gv_path,
                                                               const std::vector<ResourceInfo>& resources);

// BuildV3GroupVersion is BuildV3GroupVersionDocument serialized as compact JSON.
std::optional<std::string> BuildV3GroupVersion(std::string_view gv_path,
                                               const std::vector<ResourceInfo>& resources);

}  // namespace berth::kubesim::openapi
