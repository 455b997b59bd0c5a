// e2e/kubesim/api/discovery.h
//
// The legacy discovery documents (/api, /apis, /api/v1, /apis/G/V) built from the Registry, so
// that kubectl api-resources, short names and categories work. kubectl asks for aggregated
// discovery first but accepts these (see upstream-facts/kubectl-needs.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "e2e/kubesim/api/registry.h"

namespace berth::kubesim {

std::string VersionJson();
std::string CoreApiVersionsJson(std::string_view server_address);
std::string ApiGroupListJson(const Registry& registry, std::string_view server_address);
// ApiGroupJson is /apis/G; nullopt when the group is not served.
std::optional<std::string> ApiGroupJson(const Registry& registry, std::string_view group);
// ApiResourceListJson is /api/v1 or /apis/G/V; nullopt when not served.
std::optional<std::string> ApiResourceListJson(const Registry& registry, std::string_view group,
                                               std::string_view version);

}  // namespace berth::kubesim
