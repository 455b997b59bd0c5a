// reconcile/placement/priority.h
//
// PodPriority: what kube-scheduler's DefaultPreemption reads from a pod besides its scheduling
// constraints. spec.priority is resolved from spec.priorityClassName by the API server's Priority
// admission plugin, so berth reads the integer only (never the class name).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reconcile/reservation/types.h"

namespace berth::reconcile::placement {

struct PodPriority {
  int32_t value = 0;  // spec.priority (absent = 0, corev1helpers.PodPriority)
  // spec.preemptionPolicy == "Never": the pod never preempts (it may still be preempted).
  bool preempt_never = false;
  // status.startTime; nullopt while the pod has not started (kube-scheduler then uses "now").
  std::optional<Time> start_time;
  // status.nominatedNodeName: where an earlier preemption made room for the pod.
  std::string nominated_node_name;
  // metadata.deletionTimestamp is set and the pod carries DisruptionTarget=True with reason
  // PreemptionByScheduler: a victim of an earlier preemption, still terminating.
  bool terminating_by_preemption = false;
  // spec.priority or status.startTime could not be read (the API server validates both, so only
  // a broken object gets here): the pod then preempts nobody, saying why, and is never a victim.
  std::string error;
};

}  // namespace berth::reconcile::placement
