// e2e/kubesim/openapi/v3_paths.h
//
// The "paths" part of a group-version's OpenAPI v3 document: the REST operations of one resource
// (collection, item, all-namespaces list and subresources) with the parameters and extensions
// kubectl looks for (the PATCH operation's x-kubernetes-group-version-kind and fieldValidation).
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim::openapi {

// ResourceDefinitions names the component schemas a resource's operations refer to.
struct ResourceDefinitions {
  std::string kind;  // "io.k8s.api.core.v1.Pod"
  std::string list;  // "io.k8s.api.core.v1.PodList"
};

// AddResourcePaths adds every path of `resource` to `paths` (an object). Operations are limited to
// the resource's verbs; subresources get their own paths. Built-in resources (schema == nullptr)
// also accept strategic-merge patches.
void AddResourcePaths(const ResourceInfo& resource, const ResourceDefinitions& defs,
                      rapidjson::Value& paths, rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::kubesim::openapi
