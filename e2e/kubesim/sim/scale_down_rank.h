// e2e/kubesim/sim/scale_down_rank.h
//
// Which pods a ReplicaSet deletes first when it scales down: kube-controller-manager's
// controller.ActivePodsWithRanks. The first rule that tells two pods apart wins; "before" means
// deleted first:
//   1. unassigned (no spec.nodeName) before assigned;
//   2. phase Pending before Unknown before Running;
//   3. not Ready before Ready;
//   4. lower controller.kubernetes.io/pod-deletion-cost before higher (absent or invalid = 0, as
//      upstream's GetDeletionCostFromPodAnnotations error is ignored);
//   5. more active related pods (pods of every ReplicaSet with the same controller owner) on the
//      same node before fewer;
//   6. both Ready: Ready more recently before longer (a zero Ready time first);
//   7. higher maximum container restart count before lower;
//   8. newer creationTimestamp before older (a missing one first).
// kubesim compares times exactly (the LogarithmicScaleDown gate off): its log2 buckets break ties
// by uid, which would make tests pseudo-random. Last, kubesim breaks remaining ties by name so the
// order is deterministic. Pure; no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/api/timestamp.h"

namespace berth::kubesim {

// ScaleDownFacts: what the ranking reads of one pod.
struct ScaleDownFacts {
  std::string name;
  bool assigned = false;
  int phase_rank = 0;  // Pending 0, Unknown 1, Running 2, other 3
  std::optional<shim::TimePoint> ready_since;  // set when Ready (TimePoint{} = zero time)
  int32_t deletion_cost = 0;
  int64_t related_on_node = 0;
  int32_t max_restarts = 0;
  std::optional<shim::TimePoint> created;
};

// FactsOf reads a pod; related_pods_per_node counts active related pods by spec.nodeName.
ScaleDownFacts FactsOf(const rapidjson::Value& pod, const std::map<std::string, int64_t>& related_pods_per_node);

// DeletesBefore: true when `a` is deleted before `b`. A strict weak order.
bool DeletesBefore(const ScaleDownFacts& a, const ScaleDownFacts& b);

}  // namespace berth::kubesim
