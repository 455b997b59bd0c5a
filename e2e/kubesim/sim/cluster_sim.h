// e2e/kubesim/sim/cluster_sim.h
//
// The parts of a cluster that are not the apiserver but that clients observe through it:
// - a kubelet per node: a bound pod becomes Running and Ready after --pod-ready-delay, and a
//   pod being deleted gracefully is removed once "stopped";
// - the pod garbage collector: pods of a deleted node go after --pod-gc-delay;
// - the garbage collector: dependents of a deleted owner (ownerReferences) are deleted in the
//   background; the orphan and foregroundDeletion finalizers are honoured;
// - the namespace controller: a terminating namespace is emptied, then removed;
// - the disruption controller: PodDisruptionBudget status follows pods and workload scale;
// - the Deployment and ReplicaSet controllers (deployment_controller.h, replicaset_controller.h);
// - the serviceaccount controller: a "default" ServiceAccount per namespace;
// - optionally kube-scheduler's default profile (default_scheduler.h, --default-scheduler).
// All of it runs on one thread fed by the store's commit listener, plus a timer heap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/sim/default_scheduler.h"
#include "e2e/kubesim/sim/deployment_controller.h"
#include "e2e/kubesim/sim/replicaset_controller.h"
#include "e2e/kubesim/sim/serviceaccount_controller.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {

// ClusterSimOptions: each field says its default.
struct ClusterSimOptions {
  bool kubelet = true;                          // --no-kubelet turns it off
  std::chrono::milliseconds pod_ready_delay{0};  // --pod-ready-delay; default 0s
  std::chrono::milliseconds pod_gc_delay{0};     // --pod-gc-delay after a node deletion; default 0s
  bool workload_controllers = true;             // Deployment and ReplicaSet controllers; default on
  bool default_scheduler = false;               // --default-scheduler binds default-scheduler pods; default off
};

// ClusterSim: see the file comment.
class ClusterSim {
 public:
  ClusterSim(ClusterSimOptions options, ApiServer& api);
  ~ClusterSim();
  void Start();
  void Stop();

 private:
  struct Timer {
    std::chrono::steady_clock::time_point at;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct ObjectRefKey {
    std::string resource, ns, name;
  };
  void Run();
  void OnEvent(const HistoryEvent& event);
  void After(std::chrono::milliseconds delay, std::function<void()> fn);

  void OnPod(const HistoryEvent& event);
  void StartPod(const std::string& ns, const std::string& name, const std::string& uid);
  void FinishPodDeletion(const std::string& ns, const std::string& name, const std::string& uid);
  void DeletePodsOfNode(const std::string& node);
  void CollectDependents(const std::string& owner_uid);
  // CollectIfDangling deletes an object whose owners are all gone (or never existed), or drops
  // the references to the absent ones when another owner lives, as the garbage collector does.
  void CollectIfDangling(const ObjectRefKey& key);
  // RecheckForegroundOwner finishes an owner's foreground deletion once its last dependent went.
  void RecheckForegroundOwner(const std::string& owner_uid);
  void HandleDeletionFinalizers(const HistoryEvent& event);
  void EmptyNamespace(const std::string& ns);
  void SyncPdbs(const std::string& ns);

  ClusterSimOptions options_;
  ApiServer& api_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<HistoryEvent> events_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  uint64_t timer_seq_ = 0;
  bool stop_ = false;
  std::thread thread_;

  // Owned by the worker thread.
  struct ObjectRef {
    std::string resource, ns, name;
    bool operator<(const ObjectRef& o) const {
      return std::tie(resource, ns, name) < std::tie(o.resource, o.ns, o.name);
    }
  };
  std::unordered_map<std::string, std::set<ObjectRef>> dependents_;  // owner uid → dependents
  std::unordered_map<std::string, ObjectRef> live_;  // uid → object, for every stored object
  std::unordered_map<std::string, int> pdbs_per_namespace_;
  std::set<std::string> dirty_pdb_namespaces_;
  workload::ParsedCache pdb_pods_;  // the pods SyncPdbs reads, parsed once per version
  uint64_t next_pod_ip_ = 0;
  DeploymentController deployments_;
  ReplicaSetController replicasets_;
  DefaultServiceAccountController service_accounts_;
  DefaultScheduler default_scheduler_;
};

}  // namespace berth::kubesim
