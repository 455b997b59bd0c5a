// e2e/kubesim/api/crd_versions.h
//
// Serving a CustomResourceDefinition with several versions the way apiextensions-apiserver does
// with conversion strategy None: objects are stored in the storage version and each request sees
// them in its own version, only apiVersion differing. Versions are ordered kube-aware (v2, v1,
// v1beta2, v1beta1, v1alpha1, then other names), which is also discovery's order and makes the
// first one the preferred version. A `deprecated` version warns on every request with its
// deprecationWarning or upstream's default text.
// Example:
//   CompareKubeAwareVersions("v1", "v1beta1") > 0
//   DefaultDeprecationWarning("example.com", "v1beta1", "Widget", {{"v1", true, false}, ...})
//     == "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"
//   std::string body = JsonInVersion(type, stored->json);   // apiVersion rewritten when needed
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/registry.h"

namespace berth::kubesim {

// CompareKubeAwareVersions is apimachinery's version.CompareKubeAwareVersionStrings: > 0 when `a`
// sorts before (is preferred over) `b`. Kube-like names (v<major>[alpha|beta<minor>]) come first,
// GA before beta before alpha, then higher major, then higher minor; other names sort after them,
// alphabetically.
int CompareKubeAwareVersions(std::string_view a, std::string_view b);

// CrdVersionInfo: what the default warning needs to know about each version of a CRD.
struct CrdVersionInfo {
  std::string name;
  bool served = false;
  bool deprecated = false;
};

// DefaultDeprecationWarning is apiextensions-apiserver's text for a deprecated version without a
// deprecationWarning: "<group>/<version> <Kind> is deprecated", plus "; use <group>/<v> <Kind>"
// naming the most preferred served, non-deprecated version that sorts before it, if any.
std::string DefaultDeprecationWarning(std::string_view group, std::string_view version, std::string_view kind,
                                      const std::vector<CrdVersionInfo>& versions);

// JsonInVersion returns `stored_json` as `type`'s version serves it: unchanged unless the object
// carries another apiVersion of a multi-version CRD, then re-serialized with type.GroupVersion().
std::string JsonInVersion(const ResourceType& type, const std::string& stored_json);

// SetApiVersion sets a decoded object's apiVersion (conversion None between versions of a CRD).
void SetApiVersion(rapidjson::Document& object, const std::string& group_version);

// StorageGroupVersion is "group/<storage version>" of a CRD type (its GroupVersion for others).
std::string StorageGroupVersion(const ResourceType& type);

}  // namespace berth::kubesim
