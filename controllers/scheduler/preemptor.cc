// controllers/scheduler/preemptor.cc
//
// SchedulerController's DefaultPreemption (kube-scheduler's PostFilter): for a pod that fits
// nowhere, ask the cache for a node and victims (reconcile/placement/preemption.h), preempt them as
// kube-scheduler does, and nominate the pod. The decision is pure; this file does the writes.
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/scheduler/preemption_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"
#include "reconcile/placement/pod_constraints.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;
using scheduler_support::kLogger;

// DeleteVictim: DELETE with a uid precondition, so a pod recreated under the victim's name is
// never the one deleted. A 404, or a 409 on the precondition (that pod is already gone), counts
// as deleted.
Status DeleteVictim(shim::RestClient& rest, const placement::VictimPod& victim) {
  shim::RestRequest request;
  request.method = "DELETE";
  request.path = shim::ResourcePath(shim::ResourceRef{"", "v1", "pods", victim.namespace_name, victim.name});
  request.body = R"({"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":")" + victim.uid + R"("}})";
  auto response = rest.Do(request);
  if (!response) return std::unexpected(response.error());
  return {};
}

bool PreconditionFailed(const Error& error) {
  return error.code == ErrorCode::kConflict && error.message.find("Precondition failed") != std::string::npos;
}

}  // namespace

std::vector<placement::PdbView> SchedulerController::CurrentPdbs() const {
  std::vector<placement::PdbView> out;
  if (!pdbs_) return out;
  for (const shim::ObjectPtr& cached : pdbs_->store().List()) {
    if (auto doc = scheduler_support::ToJson(cached)) out.push_back(ReadPdbView(*doc));
  }
  return out;
}

shim::ReconcileResult SchedulerController::HandleUnschedulable(const rapidjson::Value& pod, const std::string& key,
                                                               const placement::PodSpecView& view,
                                                               const placement::FitError& error, uint64_t seen,
                                                               uint64_t seen_arrivals) {
  // Pod affinity and spreading can be satisfied by a pod landing (kube-scheduler's Pod/Add event).
  bool waits_on_pods = false;
  for (std::string_view reason : {placement::kReasonPodAffinity, placement::kReasonPodAntiAffinity,
                                  placement::kReasonExistingAntiAffinity, placement::kReasonTopologySpread,
                                  placement::kReasonTopologySpreadMissingLabel}) {
    waits_on_pods = waits_on_pods || error.reasons.contains(reason);
  }
  // A scheduling error (a field that does not parse) is not a fit failure: kube-scheduler runs no
  // PostFilter for it, so the message stays the error alone.
  if (!error.error.empty()) {
    return MarkPodUnschedulable(pod, key, error.Message(), std::nullopt, seen, seen_arrivals, waits_on_pods);
  }
  placement::PreemptionOutcome outcome = cache_.Preempt(view, error, CurrentPdbs());
  if (!outcome.chosen) {
    std::optional<std::string> nomination;
    if (outcome.clear_nomination && !view.priority.nominated_node_name.empty()) {
      nomination = "";
      cache_.SetNomination(view, "");
    }
    return MarkPodUnschedulable(pod, key, placement::WithPostFilterMessage(error.Message(), outcome.message),
                                nomination, seen, seen_arrivals, waits_on_pods);
  }
  const placement::NodeVictims& chosen = *outcome.chosen;
  const std::string scheduler_name(json::GetString(pod, {"spec", "schedulerName"}));
  const std::string now = shim::FormatTimestamp(std::chrono::system_clock::now());
  for (const placement::VictimPod& victim : chosen.victims) {
    // Graceful deletion has already started: another call is unnecessary (upstream skips it).
    if (victim.terminating) continue;
    const std::string victim_key = victim.namespace_name + "/" + victim.name;
    auto patched = client_.Patch(shim::ResourceRef{"", "v1", "pods", victim.namespace_name, victim.name},
                                 DisruptionTargetPatch(scheduler_name, now), shim::kStrategicMergePatch, "status");
    if (!patched && !IsGone(patched.error())) {
      LogWriteRetry(kLogger, "DisruptionTarget condition of preemption victim", victim_key, patched.error());
      return shim::ReconcileResult::Error("preempting " + victim_key + " for " + key + ": " + patched.error().message);
    }
    if (patched) {
      auto deleted = DeleteVictim(*rest_, victim);
      if (!deleted && !IsGone(deleted.error()) && !PreconditionFailed(deleted.error())) {
        LogWriteRetry(kLogger, "delete of preemption victim", victim_key, deleted.error());
        return shim::ReconcileResult::Error("preempting " + victim_key + " for " + key + ": " +
                                            deleted.error().message);
      }
    }
    log::Info(kLogger, "preempted pod",
              {{"victim", victim_key}, {"preemptor", key}, {"node", chosen.node_name}});
    RecorderFor(scheduler_name)
        .Event(shim::ObjectReference{"v1", "Pod", victim.namespace_name, victim.name, victim.uid, "", ""},
               shim::EventType::kNormal, "Preempted",
               "Preempted by pod " + view.uid + " on node " + chosen.node_name);
  }
  // The pod waits for the victims to go: the PodScheduled condition keeps the fit error (no
  // PostFilter message on success, as upstream) and the nomination names the node.
  cache_.SetNomination(view, chosen.node_name);
  return MarkPodUnschedulable(pod, key, error.Message(), chosen.node_name, seen, seen_arrivals,
                              waits_on_pods);
}

}  // namespace berth::controllers
