// controllers/scheduler/initial_pods.cc — an added pod in two steps (prepare, then apply), and the
// pods informer's first list built that way in bulk: the conversion to a PodSpecView (most of a
// cold start's scheduler work) runs on several threads, the cache and queue updates in list order.
#include <atomic>
#include <chrono>
#include <thread>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/run_concurrently.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {

SchedulerController::PreparedPod SchedulerController::PrepareAddedPod(const shim::CachedObject& pod) const {
  // One decode of the view's members (strings referenced, not copied) serves every kind of pod.
  return scheduler_support::WithPodViewJson(pod, [&](const rapidjson::Document& doc) {
    PreparedPod prepared;
    const std::string_view phase = json::GetString(doc, {"status", "phase"});
    if (json::GetString(doc, {"spec", "nodeName"}).empty() && phase != "Succeeded" && phase != "Failed") {
      // An unbound pod is not in the cache, so only the scheduling queue cares: no conversion.
      const rapidjson::Value* deletion = json::Find(doc, {"metadata", "deletionTimestamp"});
      if (IsOurs(json::GetString(doc, {"spec", "schedulerName"})) && !(deletion && deletion->IsString())) {
        prepared.kind = PreparedPod::Kind::kQueue;
      }
      return prepared;
    }
    prepared.view = ReadPodView(doc);
    if (PodIsTerminal(doc)) {
      prepared.kind = PreparedPod::Kind::kTerminal;
      return prepared;
    }
    const bool by_another_scheduler = !IsOurs(json::GetString(doc, {"spec", "schedulerName"}));
    prepared.kind = PreparedPod::Kind::kBound;
    prepared.adopt = options_.adopt_bound_pods && prepared.view.reservation_uid.empty() &&
                     !prepared.view.reservation_ignored && by_another_scheduler;
    return prepared;
  });
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
  // Pipelined in windows: while this thread applies window k in order, helpers prepare window
  // k + 1, and this thread joins them once it is done applying. Windows bound the views alive at
  // once (a PodSpecView is a few KB: 8,192 at once left ~55 MB behind in the threads' malloc
  // arenas); small chunks keep a descheduled helper from holding up a window for long.
  constexpr size_t kWindow = 1024;
  constexpr size_t kChunk = 64;
  const size_t helpers = ConcurrentThreads() - 1;
  std::vector<PreparedPod> applying(std::min(pods.size(), kWindow)), preparing(applying.size());
  // PrepareWindow prepares pods [begin, begin + kWindow) into `out`, chunk by chunk, with
  // whoever calls it (claims through `next`).
  auto prepare_window = [&](size_t begin, std::vector<PreparedPod>& out, std::atomic<size_t>& next) {
    const size_t end = std::min(pods.size(), begin + kWindow);
    for (size_t chunk = next.fetch_add(1); begin + chunk * kChunk < end; chunk = next.fetch_add(1)) {
      for (size_t i = begin + chunk * kChunk; i < std::min(end, begin + (chunk + 1) * kChunk); ++i) {
        out[i - begin] = PrepareAddedPod(*pods[i]);
      }
    }
  };
  // Where the bulk add's time goes, for the debug log: this thread applying in order, preparing
  // its share of the next window, and waiting for the helpers' share.
  using Clock = std::chrono::steady_clock;
  Clock::duration applying_time{}, preparing_time{}, joining_time{};
  const auto started = Clock::now();
  {
    std::atomic<size_t> next{0};
    RunConcurrently(helpers + 1, helpers + 1, [&](size_t) { prepare_window(0, applying, next); });
  }
  const bool policies = cache_.HasResourcePolicies();
  for (size_t begin = 0; begin < pods.size(); begin += kWindow) {
    const size_t following = begin + kWindow;
    std::atomic<size_t> next{0};
    std::vector<std::jthread> threads;
    if (following < pods.size()) {
      for (size_t h = 0; h < helpers; ++h) threads.emplace_back([&] { prepare_window(following, preparing, next); });
    }
    const auto apply_start = Clock::now();
    for (size_t i = begin; i < std::min(pods.size(), following); ++i) {
      if (policies) EnqueuePolicyStatus(pods[i]->Namespace(), /*batch=*/true);
      // The applied view is freed when the next window's is moved into its slot, by whichever
      // thread prepares it: the ordered apply, the longest chain, does not pay for the frees.
      ApplyAddedPod(*pods[i], applying[i - begin]);
    }
    const auto prepare_start = Clock::now();
    if (following < pods.size()) prepare_window(following, preparing, next);
    const auto join_start = Clock::now();
    threads.clear();  // joins the helpers: the next window is prepared
    applying_time += prepare_start - apply_start;
    preparing_time += join_start - prepare_start;
    joining_time += Clock::now() - join_start;
    applying.swap(preparing);
  }
  auto ms = [](Clock::duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  log::Debug("scheduler", "initial pods added",
             {{"pods", std::to_string(pods.size())}, {"apply_ms", ms(applying_time)},
              {"prepare_ms", ms(preparing_time)}, {"join_ms", ms(joining_time)},
              {"total_ms", ms(Clock::now() - started)}});
}

}  // namespace berth::controllers
