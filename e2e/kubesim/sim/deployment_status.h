// e2e/kubesim/sim/deployment_status.h
//
// DeploymentStatus as kube-controller-manager computes it (calculateStatus + syncRolloutStatus
// + checkPausedConditions): counts summed over the Deployment's ReplicaSets, and the Available
// and Progressing conditions with upstream's reasons, messages and SetDeploymentCondition rules
// (an unchanged status+reason keeps the condition as is; the same status keeps
// lastTransitionTime). Pure: the caller supplies the Deployment, the counts and the time.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/api/timestamp.h"

namespace berth::kubesim {

// DeploymentStatusBuilder: see the file comment. One per sync.
class DeploymentStatusBuilder {
 public:
  // RsCounts: one ReplicaSet's spec.replicas and status counts.
  struct RsCounts {
    int64_t spec_replicas = 0;
    int64_t replicas = 0;
    int64_t ready = 0;
    int64_t available = 0;
    bool is_new = false;
  };

  // `deployment` is the stored Deployment; `max_unavailable` is MaxUnavailable(deployment).
  DeploymentStatusBuilder(const rapidjson::Value& deployment, int64_t max_unavailable,
                          shim::TimePoint now = std::chrono::system_clock::now());

  // CheckPaused sets Progressing Unknown DeploymentPaused / DeploymentResumed on a change.
  void CheckPaused(bool paused);
  // FoundNewReplicaSet sets Progressing True FoundNewReplicaSet when no Progressing condition exists.
  void FoundNewReplicaSet(const std::string& rs_name);
  // NewReplicaSetCreated sets Progressing True NewReplicaSetCreated and remembers the name.
  void NewReplicaSetCreated(const std::string& rs_name);
  // BumpCollisionCount increments status.collisionCount (a pod-template-hash collision).
  void BumpCollisionCount();
  const std::string& CreatedName() const { return created_; }
  // CurrentlyComplete is DeploymentComplete on the stored status.
  bool CurrentlyComplete(int64_t replicas) const;

  // Build returns the new status. `paused` skips syncRolloutStatus as upstream's sync() does.
  rapidjson::Document Build(const std::vector<RsCounts>& counts, const std::string& new_rs_name, bool paused);
  // RecheckAfter: when the progress deadline of the built status will pass, if one is pending.
  std::optional<std::chrono::milliseconds> RecheckAfter() const { return recheck_; }

 private:
  void SetCondition(const std::string& type, const std::string& status, const std::string& reason,
                    const std::string& message);
  const rapidjson::Value* Condition(std::string_view type) const;

  const rapidjson::Value& deployment_;
  int64_t max_unavailable_;
  shim::TimePoint now_;
  std::string now_text_;
  rapidjson::Document conditions_;  // the working conditions array
  int64_t collision_count_ = 0;
  bool has_collision_count_ = false;
  std::string created_;
  std::optional<std::chrono::milliseconds> recheck_;
};

}  // namespace berth::kubesim
