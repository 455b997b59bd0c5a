// controllers/scheduler/initial_pods.cc — an added pod in two steps (prepare, then apply), and the
// pods informer's first list built that way in bulk: the conversion to a PodSpecView (most of a
// cold start's scheduler work) runs on several threads, the cache and queue updates in list order.
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/run_concurrently.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {

SchedulerController::PreparedPod SchedulerController::PrepareAddedPod(const shim::CachedObject& pod) const {
  PreparedPod prepared;
  // An unbound pod is not in the cache, so only the scheduling queue cares: decide from a few
  // fields, no conversion.
  auto node = pod.FindString({"spec", "nodeName"});
  auto phase = pod.FindString({"status", "phase"});
  if ((!node || node->empty()) && phase != "Succeeded" && phase != "Failed") {
    if (!IsOurs(pod.FindString({"spec", "schedulerName"}).value_or(""))) return prepared;
    if (pod.FindString({"metadata", "deletionTimestamp"})) return prepared;
    prepared.kind = PreparedPod::Kind::kQueue;
    return prepared;
  }
  auto doc = scheduler_support::PodViewJson(pod);
  prepared.view = ReadPodView(doc);
  if (PodIsTerminal(doc)) {
    prepared.kind = PreparedPod::Kind::kTerminal;
    return prepared;
  }
  prepared.kind = PreparedPod::Kind::kBound;
  prepared.adopt = options_.adopt_bound_pods && prepared.view.reservation_uid.empty() &&
                   !prepared.view.reservation_ignored && !IsOurs(json::GetString(doc, {"spec", "schedulerName"}));
  return prepared;
}

void SchedulerController::ApplyAddedPod(const shim::CachedObject& pod, PreparedPod& prepared) {
  switch (prepared.kind) {
    case PreparedPod::Kind::kIgnore:
      return;
    case PreparedPod::Kind::kQueue:
      pod_controller_->queue().Add(std::string(pod.Key()));
      return;
    case PreparedPod::Kind::kTerminal:
      if (cache_.RemovePod(prepared.view.uid)) RetryParked();
      return;
    case PreparedPod::Kind::kBound:
      // Bound (here or by another scheduler): counted from now on.
      cache_.UpsertPod(prepared.view);
      if (prepared.adopt) pod_controller_->queue().Add(std::string(pod.Key()));  // → AdoptBoundPod
      // A pod that just landed can satisfy a parked pod's required pod affinity or change a
      // topology domain's skew: the pods parked on those try again (kube-scheduler's Pod/Add).
      RetryParkedOnPods();
      return;
  }
}

void SchedulerController::OnInitialPods(const std::vector<shim::ObjectPtr>& pods) {
  // Windows bound the views alive at once (a PodSpecView is a few KB: 150k at once would be
  // hundreds of MB at the peak); chunks are small enough to balance the threads, large enough
  // that taking one costs nothing.
  constexpr size_t kWindow = 1024;
  constexpr size_t kChunk = 512;
  std::vector<PreparedPod> prepared(std::min(pods.size(), kWindow));
  const bool policies = cache_.HasResourcePolicies();
  for (size_t begin = 0; begin < pods.size(); begin += kWindow) {
    const size_t end = std::min(pods.size(), begin + kWindow);
    RunConcurrently((end - begin + kChunk - 1) / kChunk, ConcurrentThreads(), [&](size_t chunk) {
      for (size_t i = begin + chunk * kChunk; i < std::min(end, begin + (chunk + 1) * kChunk); ++i) {
        prepared[i - begin] = PrepareAddedPod(*pods[i]);
      }
    });
    for (size_t i = begin; i < end; ++i) {
      if (policies) EnqueuePolicyStatus(pods[i]->Namespace(), /*batch=*/true);
      ApplyAddedPod(*pods[i], prepared[i - begin]);
      prepared[i - begin] = PreparedPod{};
    }
  }
}

}  // namespace berth::controllers
