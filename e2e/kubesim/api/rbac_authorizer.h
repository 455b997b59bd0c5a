// e2e/kubesim/api/rbac_authorizer.h
//
// kube-apiserver's RBAC authorizer over kubesim's stored RBAC objects, as pure functions: which
// (Cluster)RoleBindings name the user (User, Group, ServiceAccount subjects), and whether a rule of
// the role they reference allows the request. Members of system:masters are allowed everything,
// as the apiserver's superuser group. What kubesim's SubjectAccessReview answers from.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::rbac {

// UserInfo: an authenticated user (TokenReview's status.user).
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
};

// Attributes: one request to authorise. `non_resource` selects path+verb; else the resource fields.
struct Attributes {
  UserInfo user;
  bool non_resource = false;
  std::string path;  // non-resource
  std::string verb;
  std::string ns, group, resource, subresource, name;  // resource
};

// Decision: allowed, and why (the RBAC authorizer's reason text when allowed).
struct Decision {
  bool allowed = false;
  std::string reason;
};

// RoleLookup returns the role's JSON for (kind "Role"|"ClusterRole", namespace, name), or null.
using RoleLookup = std::function<const rapidjson::Value*(const std::string& kind, const std::string& ns,
                                                         const std::string& name)>;

// RuleAllows: one PolicyRule against the attributes (verbs, apiGroups, resources with
// "resource/subresource", resourceNames, nonResourceURLs with "*" and trailing-"*" prefixes).
bool RuleAllows(const rapidjson::Value& rule, const Attributes& attrs);

// Authorize checks the ClusterRoleBindings, and for a namespaced resource request the RoleBindings
// of that namespace, that name the user.
Decision Authorize(const Attributes& attrs, const std::vector<const rapidjson::Value*>& cluster_role_bindings,
                   const std::vector<const rapidjson::Value*>& role_bindings, const RoleLookup& roles);

}  // namespace berth::kubesim::rbac
