// e2e/kubesim/sim/serviceaccount_controller.h
//
// kube-controller-manager's serviceaccount controller, simulated: every active namespace has a
// ServiceAccount named "default" (created with the namespace, recreated if deleted). No token
// Secrets: since Kubernetes 1.24 none are generated.
#pragma once

#include <set>
#include <string>

#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim {

// DefaultServiceAccountController: see the file comment. Runs on ClusterSim's thread.
class DefaultServiceAccountController {
 public:
  explicit DefaultServiceAccountController(ApiServer& api) : api_(api) {}
  // OnEvent notes namespaces that may lack their "default" ServiceAccount.
  void OnEvent(const HistoryEvent& event);
  // SyncDirty creates the missing ones.
  void SyncDirty();

 private:
  ApiServer& api_;
  std::set<std::string> dirty_;
};

}  // namespace berth::kubesim
