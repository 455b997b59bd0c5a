// reconcile/migration/evictability.h
//
// Which pods berth may evict. Never: mirror and static pods (the kubelet owns them). Unless the
// flag for the class allows it: DaemonSet pods, system-critical pods (priority >= 2000000000),
// bare pods (no controller: nothing recreates them), pods with local storage (emptyDir or
// hostPath: the data is lost). The descheduler's annotation descheduler.alpha.kubernetes.io/evict
// lets a pod past every class check except mirror/static, as in the descheduler.
#pragma once

#include <optional>
#include <string>

#include "reconcile/migration/types.h"

namespace berth::reconcile::migration {

inline constexpr int64_t kSystemCriticalPriority = 2000000000;

struct EvictabilityOptions {
  bool evict_daemonset_pods = false;        // Default: false.
  bool evict_system_critical_pods = false;  // Default: false.
  bool evict_bare_pods = false;             // Default: false.
  bool evict_local_storage_pods = false;    // Default: false.
};

// NotEvictableReason: why `pod` may not be evicted ("pod default/x is a DaemonSet pod"), or
// nullopt when it may.
std::optional<std::string> NotEvictableReason(const PodFacts& pod, const EvictabilityOptions& options);

}  // namespace berth::reconcile::migration
