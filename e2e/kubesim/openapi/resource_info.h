// e2e/kubesim/openapi/resource_info.h
//
// What kubesim serves, as the OpenAPI builders need it: one entry per resource (built-in or from
// a CRD version). The caller owns the CRD schemas it points to.
#pragma once

#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::openapi {

// ResourceInfo describes one served resource of one group-version.
struct ResourceInfo {
  std::string group;      // "" for the core group
  std::string version;    // "v1"
  std::string kind;       // "Pod"
  std::string list_kind;  // "PodList"
  std::string plural;     // "pods"
  std::string singular;   // "pod"
  bool namespaced = true;
  std::vector<std::string> verbs;         // discovery verbs: get, list, watch, create, update, patch, delete, deletecollection
  std::vector<std::string> subresources;  // "status", "scale", "binding", "eviction"
  // The CRD version's openAPIV3Schema, or nullptr for built-ins (whose schema is embedded and
  // looked up by group/version/kind). Must outlive the call it is passed to.
  const rapidjson::Value* schema = nullptr;
};

}  // namespace berth::kubesim::openapi
