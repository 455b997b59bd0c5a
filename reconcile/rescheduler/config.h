// reconcile/rescheduler/config.h
//
// The rescheduler's configuration: ConfigMap `berth-rescheduler` in the manager's namespace,
// key `config.yaml` (the seed: "configured using ConfigMap; the administrator can enable or
// disable policies and tune the aggressiveness"). Every key is optional; absent keys keep the
// defaults below. Example:
//   dryRun: false
//   interval: 1m            # one planning pass per interval (Go duration, > 0)
//   cooldown: 30m           # a pod is never given a second job within this
//   minImprovement: 10      # aggressiveness, percentage points (0-100); lower = more aggressive
//   limits:
//     maxPodsPerCycle: 5    # jobs created per pass (0 = none)
//     maxPodsPerNode: 2     # per source node per pass (0 = unlimited)
//     maxPodsPerNamespace: 0  # per namespace per pass (0 = unlimited)
//     maxActiveJobs: 10     # no new job while this many rescheduler jobs are still running (0 = unlimited)
//   lowNodeUtilization:
//     enabled: true
//     thresholds: {cpu: 20, memory: 20, pods: 20}        # under: schedulable, every one <=
//     targetThresholds: {cpu: 50, memory: 50, pods: 50}  # over: any one >
//   preferredNodeAffinity:
//     enabled: true
// Unknown keys, wrong types, percentages outside 0-100, a threshold above its target, or
// thresholds and targetThresholds naming different resources are errors naming the field: the
// controller then keeps its last good configuration.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "reconcile/reservation/types.h"

namespace berth::reconcile::rescheduler {

inline constexpr std::string_view kConfigMapName = "berth-rescheduler";
inline constexpr std::string_view kConfigKey = "config.yaml";

// Percent per resource name ("cpu", "memory", "pods", extended resources).
using ResourcePercents = std::map<std::string, double, std::less<>>;

struct Limits {
  int max_pods_per_cycle = 5;
  int max_pods_per_node = 2;        // 0 = unlimited
  int max_pods_per_namespace = 0;   // 0 = unlimited
  int max_active_jobs = 10;         // 0 = unlimited
  bool operator==(const Limits&) const = default;
};

struct LowNodeUtilizationConfig {
  bool enabled = false;
  ResourcePercents thresholds = {{"cpu", 20}, {"memory", 20}, {"pods", 20}};
  ResourcePercents target_thresholds = {{"cpu", 50}, {"memory", 50}, {"pods", 50}};
  bool operator==(const LowNodeUtilizationConfig&) const = default;
};

struct PreferredNodeAffinityConfig {
  bool enabled = false;
  bool operator==(const PreferredNodeAffinityConfig&) const = default;
};

struct ReschedulerConfig {
  bool dry_run = false;
  Duration interval = std::chrono::minutes(1);
  Duration cooldown = std::chrono::minutes(30);
  double min_improvement = 10;
  Limits limits;
  LowNodeUtilizationConfig low_node_utilization;
  PreferredNodeAffinityConfig preferred_node_affinity;
  bool operator==(const ReschedulerConfig&) const = default;
};

// ParseReschedulerConfig reads the config.yaml text. An empty text gives the defaults (both
// strategies off). Errors: kInvalidArgument "config.yaml: <field>: <why>".
Result<ReschedulerConfig> ParseReschedulerConfig(std::string_view yaml);

}  // namespace berth::reconcile::rescheduler
