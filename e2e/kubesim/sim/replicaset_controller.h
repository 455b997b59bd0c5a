// e2e/kubesim/sim/replicaset_controller.h
//
// kube-controller-manager's ReplicaSet controller, simulated: each ReplicaSet keeps
// spec.replicas active pods made from spec.template (generateName "<rs>-", the template's labels
// and annotations, a controller ownerReference with blockOwnerDeletion), deletes the extras in
// the upstream order (scale_down_rank.h: unscheduled, Pending, not Ready, lower
// pod-deletion-cost, crowded nodes, most recently Ready, restarts, newest), replaces pods that are deleted or end Failed/Succeeded, and writes status (replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas after minReadySeconds,
// observedGeneration). Pods are claimed by their controller ownerReference only (no adoption).
// Runs on ClusterSim's thread: OnEvent marks ReplicaSets dirty, SyncDirty reconciles them.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {

// RunAfter schedules `fn` on the controller thread after `delay`.
using RunAfter = std::function<void(std::chrono::milliseconds delay, std::function<void()> fn)>;

// ReplicaSetController: see the file comment.
class ReplicaSetController {
 public:
  ReplicaSetController(ApiServer& api, RunAfter after);

  // OnEvent notes which ReplicaSets a committed change concerns (the RS itself, or its pods).
  void OnEvent(const HistoryEvent& event);
  // SyncDirty reconciles every ReplicaSet noted since the last call.
  void SyncDirty();
  // Sync reconciles one ReplicaSet now (exposed for tests).
  void Sync(const std::string& ns, const std::string& name);

 private:
  // RelatedPodsPerNode counts the active pods of the ReplicaSets sharing `rs`'s controller by node.
  std::map<std::string, int64_t> RelatedPodsPerNode(const rapidjson::Value& rs, const std::string& ns,
                                                    const std::string& rs_uid);

  ApiServer& api_;
  RunAfter after_;
  std::set<std::pair<std::string, std::string>> dirty_;  // (namespace, name)
  workload::ParsedCache parsed_pods_;
  std::unordered_map<std::string, std::pair<std::string, std::string>> by_uid_;  // RS uid → key
};

}  // namespace berth::kubesim
