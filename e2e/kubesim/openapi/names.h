// e2e/kubesim/openapi/names.h
//
// Naming rules shared by the OpenAPI builders: URL paths of group-versions, definition names of
// custom resources and operation ids, all as the kube-apiserver spells them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace berth::kubesim::openapi {

// GroupVersionPath returns "api/v1" for the core group, else "apis/<group>/<version>".
std::string GroupVersionPath(std::string_view group, std::string_view version);

// ParseGroupVersionPath splits "api/v1" or "apis/apps/v1" into {group, version}.
// Returns nullopt for anything else (extra segments, empty parts, "api/" with a group).
std::optional<std::pair<std::string, std::string>> ParseGroupVersionPath(std::string_view path);

// CrdDefinitionName names a custom resource's schema as the apiserver does: the group reversed
// by dots, then version and kind ("stable.example.com", "v1", "CronTab" ->
// "com.example.stable.v1.CronTab").
std::string CrdDefinitionName(std::string_view group, std::string_view version, std::string_view kind);

// OperationGroupVersion is the group-version part of operation ids: "CoreV1", "AppsV1",
// "CoordinationV1" (".k8s.io" dropped), "StableExampleComV1" for custom groups.
std::string OperationGroupVersion(std::string_view group, std::string_view version);

}  // namespace berth::kubesim::openapi
