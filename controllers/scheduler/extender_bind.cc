// controllers/scheduler/extender_bind.cc
//
// SchedulerController::BindPodToNode: the bind verb of the kube-scheduler extender
// (controllers/extender) on top of the pod half of the scheduler.
#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {

std::string SchedulerController::BindPodToNode(const std::string& namespace_name, const std::string& name,
                                               const std::string& uid, const std::string& node) {
  const std::string key = namespace_name.empty() ? name : namespace_name + "/" + name;
  shim::ObjectPtr cached = pods_->store().Get(key);
  if (!cached) return "pod " + key + " not found in berth's cache";
  if (!uid.empty() && cached->Uid() != uid) return "pod " + key + " has uid " + std::string(cached->Uid()) + ", not " + uid;
  if (auto bound = cached->FindString({"spec", "nodeName"}); bound && !bound->empty()) {
    return "pod " + key + " is already assigned to node " + std::string(*bound);
  }
  auto doc = scheduler_support::ToJson(cached);
  if (!doc) return "pod " + key + " could not be read from berth's cache";
  reconcile::placement::PodSpecView view = ReadPodView(*doc);
  if (cache_.IsPodAssumed(view.uid)) return "pod " + key + " is being bound already";
  view.node_name = node;  // pins the decision to the node kube-scheduler chose
  reconcile::placement::PodDecision decision = cache_.ScheduleAndAssumePod(view);
  if (!decision) return decision.error().Message();
  view.node_name.clear();
  std::string not_bound;
  // Events name the pod's own scheduler (default-scheduler for kube-scheduler's pods).
  shim::ReconcileResult result = Bind(json::GetString(*doc, {"spec", "schedulerName"}, "default-scheduler"), view,
                                      *decision, &not_bound);
  if (result.kind == shim::ReconcileResult::Kind::kError) return result.error;
  return not_bound;
}

}  // namespace berth::controllers
