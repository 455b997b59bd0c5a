// controllers/resourcepolicy/resourcepolicy_controller.h
//
// The "resourcepolicy" controller: keeps controller.kubernetes.io/pod-deletion-cost on the pods
// each ResourcePolicy manages, so a ReplicaSet scale-down removes them in reverse unit priority
// (the formula: reconcile/resourcepolicy/deletion_cost.h). Informers on resourcepolicies, pods and
// nodes queue the key "<namespace>/<policy>" when a policy changes, a pod is added, deleted,
// bound, relabelled, starts terminating or has its cost/marker edited, or a node's labels change.
// Each reconcile plans the costs from the caches (PlanPolicyCosts) and, per pod, writes only what
// DecideCostAnnotations says with a JSON merge patch: 404 drops the pod, any other failure
// requeues the policy with the queue's backoff. A deleted policy's key removes berth's
// annotations from the pods it marked. The status (counts, Conflict, PodsSelected) is written by
// the scheduler's resourcepolicy-status controller, not here.
// Metrics: berth_resourcepolicy_unit_pods{namespace,policy,unit}, berth_deletion_cost_writes_total.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"

namespace berth::controllers {

struct ResourcePolicyControllerOptions {
  int workers = 2;  // Default: 2 (keys are policies; pods of one policy are written by one worker).
  // Pod events wait this long before the policy is reconciled, so a burst of creations or binds
  // costs one plan. Default: 100ms.
  std::chrono::milliseconds pod_batch_delay{100};
  // Concurrent pod patches within one reconcile. Default: 8.
  int write_concurrency = 8;
};

// ResourcePoliciesServed asks discovery whether scheduling.sigs.x-k8s.io/v1alpha1 serves
// resourcepolicies. Only a 404 or a list without it says no (any other failure says yes, and the
// informer retries like every other).
bool ResourcePoliciesServed(shim::RestClient& rest);

class ResourcePolicyController {
 public:
  // Setup registers informers, handlers, metrics and the controller. When the CRD is not served
  // it logs a warning and returns a controller that does nothing (berth restarts pick it up).
  static Result<std::unique_ptr<ResourcePolicyController>> Setup(shim::Manager& manager, shim::RestClientPtr rest,
                                                                 ResourcePolicyControllerOptions options);
  ~ResourcePolicyController();

  shim::ReconcileResult Reconcile(const std::string& key);

 private:
  // Written: what our last patch left on a pod, until its watch echo (same resourceVersion)
  // reaches the cache; reconciles in between read this instead of the stale cache.
  struct Written {
    std::optional<std::string> cost;
    std::optional<std::string> marker;
    std::string resource_version;
    std::chrono::steady_clock::time_point at;
  };

  ResourcePolicyController(shim::RestClientPtr rest, ResourcePolicyControllerOptions options);
  void EnqueueNamespace(std::string_view ns, bool batch);
  void OnPodEvent(const shim::ObjectPtr& old_pod, const shim::ObjectPtr& new_pod);
  void SetUnitGauges(const std::string& ns, const std::string& policy, const std::map<std::string, int64_t>& units);

  ResourcePolicyControllerOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> policies_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  shim::Controller* controller_ = nullptr;
  shim::GaugeFamily* unit_pods_ = nullptr;
  shim::CounterFamily* writes_ = nullptr;

  std::mutex mu_;
  std::unordered_map<std::string, Written> written_;  // pod uid →
  std::map<std::string, std::vector<std::string>> gauge_units_;  // policy key → unit names published
  std::set<std::pair<std::string, std::string>> reported_;        // (pod uid, invalid value) already in an Event
};

}  // namespace berth::controllers
