// e2e/kubesim/sim/default_scheduler.h
//
// kube-scheduler's default profile, simulated (--default-scheduler; off by default so tests of
// berth's own scheduling see only berth bind pods). It binds pods whose spec.schedulerName is
// "default-scheduler" (what the apiserver defaults an empty one to) through the binding
// subresource's storage, then records a Normal "Scheduled" Event, as kube-scheduler does. A pod
// that fits nowhere stays Pending with PodScheduled=False reason Unschedulable and a Warning
// FailedScheduling Event carrying the fit error (default_scheduler_fit.h), written again only
// when that message changes. Pending pods are retried whenever a pod or node changes.
#pragma once

#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim {

// DefaultScheduler: see the file comment. Runs on ClusterSim's thread.
class DefaultScheduler {
 public:
  explicit DefaultScheduler(ApiServer& api) : api_(api) {}
  // OnEvent notes that a pod or node changed, so pending pods may now fit.
  void OnEvent(const HistoryEvent& event);
  // SyncDirty runs one scheduling pass over the pending default-scheduler pods.
  void SyncDirty();

 private:
  void MarkUnschedulable(const rapidjson::Value& pod, const std::string& message);

  ApiServer& api_;
  bool dirty_ = false;
};

}  // namespace berth::kubesim
