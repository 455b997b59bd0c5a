// Resources resembling what kubesim serves, for the OpenAPI tests.
#pragma once

#include <string>
#include <vector>

#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim::openapi::testing {

inline std::vector<std::string> AllVerbs() {
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

inline ResourceInfo Builtin(std::string group, std::string kind, std::string plural, bool namespaced,
                            std::vector<std::string> subresources = {}) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = "v1";
  r.kind = kind;
  r.list_kind = kind + "List";
  r.plural = std::move(plural);
  r.singular = r.plural.substr(0, r.plural.size() - 1);
  r.namespaced = namespaced;
  r.verbs = AllVerbs();
  r.subresources = std::move(subresources);
  return r;
}

inline std::vector<ResourceInfo> KubesimResources() {
  return {
      Builtin("", "Namespace", "namespaces", false, {"status"}),
      Builtin("", "Node", "nodes", false, {"status"}),
      Builtin("", "Pod", "pods", true, {"status", "binding", "eviction"}),
      Builtin("", "ConfigMap", "configmaps", true),
      Builtin("apps", "Deployment", "deployments", true, {"status", "scale"}),
      Builtin("policy", "PodDisruptionBudget", "poddisruptionbudgets", true, {"status"}),
      Builtin("coordination.k8s.io", "Lease", "leases", true),
      Builtin("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", false, {"status"}),
  };
}

}  // namespace berth::kubesim::openapi::testing
