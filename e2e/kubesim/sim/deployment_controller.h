// e2e/kubesim/sim/deployment_controller.h
//
// kube-controller-manager's Deployment controller, simulated. Each Deployment owns ReplicaSets
// named "<deployment>-<pod-template-hash>"; the hash labels the ReplicaSet's selector, template
// and so its pods. Strategies: RollingUpdate (maxSurge / maxUnavailable, int or percent, surge
// rounded up and unavailability down, as upstream) and Recreate (old pods gone before new ones).
// Writes the revision annotation deployment.kubernetes.io/revision (plus desired-replicas and
// max-replicas on ReplicaSets), scales several active ReplicaSets proportionally when the size
// changes mid-rollout, prunes old ReplicaSets beyond revisionHistoryLimit, honours
// spec.paused, and writes status: replicas, updatedReplicas, readyReplicas, availableReplicas,
// unavailableReplicas, observedGeneration, collisionCount and the Available / Progressing
// conditions with upstream's reasons and messages (NewReplicaSetCreated, FoundNewReplicaSet,
// ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused,
// MinimumReplicasAvailable, MinimumReplicasUnavailable).
//
// pod-template-hash: not upstream's (a hash of Go's spew dump of the PodTemplateSpec); it is
// FNV-32a over the template's canonical JSON (object keys sorted, the pod-template-hash label
// left out) followed by the decimal collisionCount when set, then written as upstream writes its
// hash: the decimal digits mapped through rand.SafeEncodeString's alphabet. Stable for a given
// template, so re-applying an unchanged manifest finds the same ReplicaSet.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/sim/replicaset_controller.h"

namespace berth::kubesim {

// PodTemplateHash returns the pod-template-hash label value for `pod_template` (see above).
std::string PodTemplateHash(const rapidjson::Value& pod_template, int64_t collision_count);

// DeploymentController: see the file comment.
class DeploymentController {
 public:
  DeploymentController(ApiServer& api, RunAfter after);

  // OnEvent notes the Deployments a change concerns (itself, its ReplicaSets, their pods).
  void OnEvent(const HistoryEvent& event);
  // SyncDirty reconciles every Deployment noted since the last call.
  void SyncDirty();
  // Sync reconciles one Deployment now.
  void Sync(const std::string& ns, const std::string& name);

 private:
  using Key = std::pair<std::string, std::string>;
  ApiServer& api_;
  RunAfter after_;
  std::set<Key> dirty_;
  std::unordered_map<std::string, Key> deployments_;         // Deployment uid → key
  std::unordered_map<std::string, std::string> rs_owner_;    // ReplicaSet uid → Deployment uid
};

}  // namespace berth::kubesim
