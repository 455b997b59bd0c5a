// e2e/kubesim/openapi/v2_document.h
//
// The /openapi/v2 document (swagger 2.0 JSON) for tools that still read it. kubectl itself only
// falls back to v2 in protobuf form, so this is best effort: it is the merged v3 documents
// rewritten to v2 shapes (definitions, "#/definitions/" references, body parameters).
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim::openapi {

// BuildV2 returns {"swagger":"2.0","info":...,"paths":...,"definitions":...} for every served
// group-version of `resources`.
rapidjson::Document BuildV2(const std::vector<ResourceInfo>& resources);

}  // namespace berth::kubesim::openapi
