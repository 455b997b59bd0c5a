#include "e2e/kubesim/api/rbac_authorizer.h"

#include <algorithm>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::rbac {
namespace {

using rapidjson::Value;

// Matches: the list holds "*" or `want` (a missing list matches nothing).
bool Matches(const Value* list, std::string_view want) {
  if (!list || !list->IsArray()) return false;
  for (const auto& v : list->GetArray()) {
    if (!v.IsString()) continue;
    std::string_view s = v.GetString();
    if (s == "*" || s == want) return true;
  }
  return false;
}

bool SubjectMatches(const Value& subject, const UserInfo& user, std::string_view binding_ns) {
  std::string_view kind = json::GetString(subject, {"kind"});
  std::string_view name = json::GetString(subject, {"name"});
  if (kind == "User") return name == user.username;
  if (kind == "Group") return std::find(user.groups.begin(), user.groups.end(), name) != user.groups.end();
  if (kind == "ServiceAccount") {
    std::string_view ns = json::GetString(subject, {"namespace"});
    if (ns.empty()) ns = binding_ns;  // a RoleBinding's subject defaults to the binding's namespace
    return user.username == "system:serviceaccount:" + std::string(ns) + ":" + std::string(name);
  }
  return false;
}

// SubjectText: the RBAC authorizer's describeSubject (the namespace only when not the binding's).
std::string SubjectText(const Value& subject, std::string_view binding_ns) {
  std::string kind(json::GetString(subject, {"kind"}));
  std::string ns(json::GetString(subject, {"namespace"}));
  bool qualify = !ns.empty() && ns != binding_ns;
  return kind + " \"" + (qualify ? ns + "/" : "") + std::string(json::GetString(subject, {"name"})) + "\"";
}

}  // namespace

bool RuleAllows(const Value& rule, const Attributes& a) {
  if (!Matches(json::Find(rule, {"verbs"}), a.verb)) return false;
  if (a.non_resource) {
    const Value* urls = json::Find(rule, {"nonResourceURLs"});
    if (!urls || !urls->IsArray()) return false;
    for (const auto& v : urls->GetArray()) {
      if (!v.IsString()) continue;
      std::string_view u = v.GetString();
      if (u == "*" || u == a.path) return true;
      if (u.ends_with('*') && a.path.starts_with(u.substr(0, u.size() - 1))) return true;
    }
    return false;
  }
  if (!Matches(json::Find(rule, {"apiGroups"}), a.group)) return false;
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  const Value* resources = json::Find(rule, {"resources"});
  bool resource_ok = Matches(resources, combined);
  if (!resource_ok && !a.subresource.empty()) resource_ok = Matches(resources, "*/" + a.subresource);
  if (!resource_ok) return false;
  const Value* names = json::Find(rule, {"resourceNames"});
  if (names && names->IsArray() && !names->Empty()) return Matches(names, a.name) && !a.name.empty();
  return true;
}

Decision Authorize(const Attributes& attrs, const std::vector<const Value*>& cluster_role_bindings,
                   const std::vector<const Value*>& role_bindings, const RoleLookup& roles) {
  const auto& groups = attrs.user.groups;
  if (std::find(groups.begin(), groups.end(), "system:masters") != groups.end()) {
    return Decision{true, "allowed: member of system:masters"};
  }
  auto check = [&](const Value& binding, bool cluster) -> std::optional<Decision> {
    std::string binding_ns(json::GetString(binding, {"metadata", "namespace"}));
    const Value* subjects = json::Find(binding, {"subjects"});
    if (!subjects || !subjects->IsArray()) return std::nullopt;
    const Value* matched = nullptr;
    for (const auto& s : subjects->GetArray()) {
      if (SubjectMatches(s, attrs.user, binding_ns)) {
        matched = &s;
        break;
      }
    }
    if (!matched) return std::nullopt;
    std::string kind(json::GetString(binding, {"roleRef", "kind"}));
    std::string role_name(json::GetString(binding, {"roleRef", "name"}));
    const Value* role = roles(kind, kind == "Role" ? binding_ns : "", role_name);
    if (!role) return std::nullopt;
    const Value* rules = json::Find(*role, {"rules"});
    if (!rules || !rules->IsArray()) return std::nullopt;
    for (const auto& rule : rules->GetArray()) {
      if (!RuleAllows(rule, attrs)) continue;
      std::string where = cluster ? "ClusterRoleBinding \"" + std::string(json::GetString(binding, {"metadata", "name"})) + "\""
                                  : "RoleBinding \"" + std::string(json::GetString(binding, {"metadata", "name"})) + "/" + binding_ns + "\"";
      return Decision{true, "RBAC: allowed by " + where + " of " + kind + " \"" + role_name + "\" to " + SubjectText(*matched, binding_ns)};
    }
    return std::nullopt;
  };
  for (const Value* b : cluster_role_bindings) {
    if (auto d = check(*b, true)) return *d;
  }
  if (!attrs.non_resource && !attrs.ns.empty()) {
    for (const Value* b : role_bindings) {
      if (json::GetString(*b, {"metadata", "namespace"}) != attrs.ns) continue;
      if (auto d = check(*b, false)) return *d;
    }
  }
  return Decision{false, ""};
}

}  // namespace berth::kubesim::rbac
