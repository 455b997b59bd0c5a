#include "reconcile/migration/evictability.h"

namespace berth::reconcile::migration {

std::optional<std::string> NotEvictableReason(const PodFacts& pod, const EvictabilityOptions& options) {
  const std::string who = "pod " + pod.namespace_name + "/" + pod.name;
  if (pod.mirror) return who + " is a mirror pod (the kubelet owns it)";
  if (pod.static_pod) return who + " is a static pod (the kubelet owns it)";
  if (pod.evict_annotation) return std::nullopt;
  if (pod.controller_kind == "DaemonSet" && !options.evict_daemonset_pods) {
    return who + " is a DaemonSet pod (its replacement would come back to the same node)";
  }
  if (pod.priority && *pod.priority >= kSystemCriticalPriority && !options.evict_system_critical_pods) {
    return who + " is system-critical (priority " + std::to_string(*pod.priority) + " >= " +
           std::to_string(kSystemCriticalPriority) + ")";
  }
  if (!pod.has_controller && !options.evict_bare_pods) {
    return who + " has no controller (nothing would recreate it)";
  }
  if (pod.local_storage && !options.evict_local_storage_pods) {
    return who + " uses local storage (emptyDir or hostPath; its data would be lost)";
  }
  return std::nullopt;
}

}  // namespace berth::reconcile::migration
