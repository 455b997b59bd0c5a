// PriorityPod: a pod view in namespace default (uid "uid-<name>") asking for `cpu_milli` at a
// priority, bound to `node` unless that is empty (the scheduler-cache preemption tests share it).
#pragma once

#include <string>
#include <utility>

#include "reconcile/placement/types.h"

namespace berth::controllers::testing {

inline reconcile::placement::PodSpecView PriorityPod(const std::string& name, int64_t cpu_milli, int32_t priority,
                                                     const std::string& node = "",
                                                     reconcile::placement::LabelMap labels = {}) {
  reconcile::placement::PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = "uid-" + name;
  p.node_name = node;
  p.labels = std::move(labels);
  p.requests = {{"cpu", cpu_milli}};
  p.priority.value = priority;
  return p;
}

}  // namespace berth::controllers::testing
