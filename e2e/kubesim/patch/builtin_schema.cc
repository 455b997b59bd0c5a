// e2e/kubesim/patch/builtin_schema.cc
#include "e2e/kubesim/patch/builtin_schema.h"

#include <map>
#include <string>
#include <utility>

namespace berth::kubesim::patch {
namespace {

// AddObjectMeta: ObjectMeta's tagged lists under `prefix` ("metadata", "spec.template.metadata").
void AddObjectMeta(TablePatchSchema& s, const std::string& prefix) {
  s.Set(prefix + ".finalizers", ListStrategy::Merge(""));
  s.Set(prefix + ".ownerReferences", ListStrategy::Merge("uid"));
}

// AddPodSpec: PodSpec and Container tags under `prefix` ("spec", "spec.template.spec").
void AddPodSpec(TablePatchSchema& s, const std::string& prefix) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    std::string c = prefix + "." + list;
    s.Set(c, ListStrategy::Merge("name"));
    s.Set(c + ".ports", ListStrategy::Merge("containerPort"));
    s.Set(c + ".env", ListStrategy::Merge("name"));
    s.Set(c + ".volumeMounts", ListStrategy::Merge("mountPath"));
    s.Set(c + ".volumeDevices", ListStrategy::Merge("devicePath"));
  }
  s.Set(prefix + ".volumes", ListStrategy::Merge("name", /*retain_keys=*/true));
  s.Set(prefix + ".imagePullSecrets", ListStrategy::Merge("name"));
  s.Set(prefix + ".hostAliases", ListStrategy::Merge("ip"));
  s.Set(prefix + ".topologySpreadConstraints", ListStrategy::Merge("topologyKey"));
  s.Set(prefix + ".schedulingGates", ListStrategy::Merge("name"));
  s.Set(prefix + ".resourceClaims", ListStrategy::Merge("name", /*retain_keys=*/true));
}

void AddConditions(TablePatchSchema& s) { s.Set("status.conditions", ListStrategy::Merge("type")); }

// AddWorkload: Deployment, ReplicaSet and StatefulSet share the pod template and conditions.
TablePatchSchema Workload() {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  AddObjectMeta(s, "spec.template.metadata");
  AddPodSpec(s, "spec.template.spec");
  AddConditions(s);
  return s;
}

TablePatchSchema Pod() {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  AddPodSpec(s, "spec");
  AddConditions(s);
  s.Set("status.podIPs", ListStrategy::Merge("ip"));
  s.Set("status.hostIPs", ListStrategy::Merge("ip"));
  s.Set("status.resourceClaimStatuses", ListStrategy::Merge("name", /*retain_keys=*/true));
  return s;
}

TablePatchSchema PodTemplate() {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  AddObjectMeta(s, "template.metadata");
  AddPodSpec(s, "template.spec");
  return s;
}

TablePatchSchema Node() {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  s.Set("spec.podCIDRs", ListStrategy::Merge(""));
  AddConditions(s);
  s.Set("status.addresses", ListStrategy::Merge("type"));
  return s;
}

TablePatchSchema Service() {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  s.Set("spec.ports", ListStrategy::Merge("port"));
  AddConditions(s);
  return s;
}

// MetaOnly: kinds whose only tagged lists are in ObjectMeta, plus status conditions when
// `conditions` (Namespace, PodDisruptionBudget).
TablePatchSchema MetaOnly(bool conditions) {
  TablePatchSchema s;
  AddObjectMeta(s, "metadata");
  if (conditions) AddConditions(s);
  return s;
}

using Registry = std::map<std::pair<std::string, std::string>, TablePatchSchema>;

Registry* BuildRegistry() {
  auto* r = new Registry();
  (*r)[{"", "Pod"}] = Pod();
  (*r)[{"", "PodTemplate"}] = PodTemplate();
  (*r)[{"", "Node"}] = Node();
  (*r)[{"", "Service"}] = Service();
  (*r)[{"", "ConfigMap"}] = MetaOnly(false);
  (*r)[{"", "Namespace"}] = MetaOnly(true);
  (*r)[{"", "Event"}] = MetaOnly(false);
  (*r)[{"events.k8s.io", "Event"}] = MetaOnly(false);
  (*r)[{"policy", "PodDisruptionBudget"}] = MetaOnly(true);
  (*r)[{"coordination.k8s.io", "Lease"}] = MetaOnly(false);
  (*r)[{"apps", "Deployment"}] = Workload();
  (*r)[{"apps", "ReplicaSet"}] = Workload();
  (*r)[{"apps", "StatefulSet"}] = Workload();
  return r;
}

}  // namespace

const PatchSchema& BuiltinPatchSchema(std::string_view api_version, std::string_view kind) {
  static const Registry* const kRegistry = BuildRegistry();
  // The group is what precedes the version; the core group ("v1") has none.
  size_t slash = api_version.find('/');
  std::string group(slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash));
  auto it = kRegistry->find({group, std::string(kind)});
  if (it == kRegistry->end()) return AtomicPatchSchema();
  return it->second;
}

}  // namespace berth::kubesim::patch
