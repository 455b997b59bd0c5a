#include "e2e/kubesim/api/registry.h"

#include <algorithm>

namespace berth::kubesim {
namespace {

ResourceType Builtin(std::string group, std::string version, std::string kind, std::string plural,
                     bool namespaced, std::vector<std::string> short_names,
                     std::vector<std::string> categories, bool status, bool generation) {
  ResourceType t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = kind;
  t.list_kind = kind + "List";
  t.plural = std::move(plural);
  t.singular = kind;
  std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
  t.namespaced = namespaced;
  t.short_names = std::move(short_names);
  t.categories = std::move(categories);
  t.has_status = status;
  t.has_generation = generation;
  t.storage_version = t.version;
  return t;
}

}  // namespace

Registry::Registry() {
  // Short names and categories as kube-apiserver's discovery reports them.
  std::vector<ResourceType> types = {
      Builtin("", "v1", "Namespace", "namespaces", false, {"ns"}, {}, true, false),
      Builtin("", "v1", "Node", "nodes", false, {"no"}, {}, true, false),
      Builtin("", "v1", "Pod", "pods", true, {"po"}, {"all"}, true, false),
      Builtin("", "v1", "PodTemplate", "podtemplates", true, {}, {}, false, false),
      Builtin("", "v1", "Event", "events", true, {"ev"}, {}, false, false),
      Builtin("", "v1", "ConfigMap", "configmaps", true, {"cm"}, {}, false, false),
      Builtin("", "v1", "Service", "services", true, {"svc"}, {"all"}, true, false),
      Builtin("", "v1", "Secret", "secrets", true, {}, {}, false, false),
      Builtin("", "v1", "ServiceAccount", "serviceaccounts", true, {"sa"}, {}, false, false),
      Builtin("apps", "v1", "Deployment", "deployments", true, {"deploy"}, {"all"}, true, true),
      Builtin("apps", "v1", "ReplicaSet", "replicasets", true, {"rs"}, {"all"}, true, true),
      Builtin("apps", "v1", "StatefulSet", "statefulsets", true, {"sts"}, {"all"}, true, true),
      Builtin("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, {"pdb"}, {},
              true, true),
      Builtin("coordination.k8s.io", "v1", "Lease", "leases", true, {}, {}, false, false),
      // Read by the Priority admission of pods (api/priority_admission.h).
      Builtin("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, {"pc"}, {}, false, false),
      // Stored only: kubesim authorizes every request, so RBAC objects are never evaluated.
      Builtin("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, {}, {}, false, false),
      Builtin("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, {}, {}, false, false),
      Builtin("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, {}, {}, false, false),
      Builtin("rbac.authorization.k8s.io", "v1", "Role", "roles", true, {}, {}, false, false),
      Builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
              "customresourcedefinitions", false, {"crd", "crds"}, {"api-extensions"}, true, true),
  };
  for (auto& t : types) {
    if (t.group == "apps") t.has_scale = true;
    builtin_.push_back(std::make_shared<const ResourceType>(std::move(t)));
  }
}

ResourceTypePtr Registry::Find(std::string_view group, std::string_view version,
                               std::string_view plural) const {
  std::shared_lock lock(mu_);
  for (const auto& t : builtin_) {
    if (t->group == group && t->version == version && t->plural == plural) return t;
  }
  for (const auto& [name, types] : crds_) {
    for (const auto& t : types) {
      if (t->group == group && t->version == version && t->plural == plural) return t;
    }
  }
  return nullptr;
}

ResourceTypePtr Registry::FindByKind(std::string_view group, std::string_view version,
                                     std::string_view kind) const {
  std::shared_lock lock(mu_);
  for (const auto& t : builtin_) {
    if (t->group == group && t->version == version && t->kind == kind) return t;
  }
  for (const auto& [name, types] : crds_) {
    for (const auto& t : types) {
      if (t->group == group && t->version == version && t->kind == kind) return t;
    }
  }
  return nullptr;
}

std::vector<ResourceTypePtr> Registry::All() const {
  std::shared_lock lock(mu_);
  std::vector<ResourceTypePtr> out = builtin_;
  for (const auto& [name, types] : crds_) out.insert(out.end(), types.begin(), types.end());
  return out;
}

std::vector<std::string> Registry::GroupVersions() const {
  std::vector<std::string> out;
  for (const auto& t : All()) {
    std::string gv = t->GroupVersion();
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

void Registry::SetCrdTypes(const std::string& crd_name, std::vector<ResourceType> types) {
  std::unique_lock lock(mu_);
  std::erase_if(crds_, [&](const auto& entry) { return entry.first == crd_name; });
  if (!types.empty()) {
    std::vector<ResourceTypePtr> ptrs;
    for (auto& t : types) ptrs.push_back(std::make_shared<const ResourceType>(std::move(t)));
    crds_.emplace_back(crd_name, std::move(ptrs));
  }
  ++generation_;
}

uint64_t Registry::Generation() const {
  std::shared_lock lock(mu_);
  return generation_;
}

}  // namespace berth::kubesim
