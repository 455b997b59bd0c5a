// clientgo-shim/manager/controller.h
//
// Controller: a WorkQueue, N workers and one Reconciler, with controller-runtime's
// reconcileHandler policy in one switch (ApplyReconcileResult):
//   error (not terminal) → AddRateLimited          result="error"
//   error (terminal)     → nothing (not retried)   result="error", terminal errors counted
//   RequeueAfter > 0     → Forget + AddAfter        result="requeue_after"
//   Requeue              → AddRateLimited           result="requeue"
//   Done                 → Forget                   result="success"
// and the controller_runtime_* and workqueue_* metrics (label controller=name, name=name).
// A reconciler that throws is treated as an error (controller-runtime's RecoverPanic).
// Logs as controller-runtime does: "Starting workers" (worker count), "Reconciler error" (error),
// the shutdown pair; every line of a reconcile carries controller, namespace, name, reconcileID.
// Event handlers feed keys with queue().Add(key).
// Thread-safety: queue() from any thread; Start/Stop from the owner.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <memory>
#include <string>
#include <string_view>

#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/result.h"
#include "clientgo-shim/manager/reconciler.h"
#include "clientgo-shim/metrics/registry.h"
#include "clientgo-shim/metrics/standard_metrics.h"
#include "clientgo-shim/queue/work_queue.h"
#include "clientgo-shim/queue/worker_pool.h"

namespace berth::shim {

// ControllerOptions: each field says its default.
struct ControllerOptions {
  std::string name;                    // Required; the `controller` and `name` metric labels.
  int max_concurrent_reconciles = 1;   // Default: 1 (controller-runtime).
  RateLimiterPtr rate_limiter;         // Default: per-item exponential 5 ms → 1000 s.
  WaitClock* clock = nullptr;          // Default: DefaultWaitClock().
  Registry* metrics = nullptr;         // Default: none (no metrics kept).
};

// ApplyReconcileResult is the reconcileHandler switch: it performs the queue operation for
// `result` and returns the `result` metric label ("success", "error", "requeue",
// "requeue_after").
std::string_view ApplyReconcileResult(WorkQueue& queue, const std::string& key,
                                      const ReconcileResult& result);

// ReconcileLogFields: the fields of every log line of one reconcile of `key`: controller,
// namespace and name ("ns/name" keys; other keys whole as name), and a fresh reconcileID.
log::Fields ReconcileLogFields(const std::string& controller, const std::string& key);

class Controller {
 public:
  // Create validates the options. Errors: kInvalidArgument for an empty name, a
  // max_concurrent_reconciles < 1, or metric registration conflicts.
  static Result<std::unique_ptr<Controller>> Create(ControllerOptions options,
                                                    Reconciler reconciler);
  ~Controller();  // Stop()

  // queue: where event handlers add keys (adds before Start wait for the workers).
  WorkQueue& queue() { return *queue_; }
  const std::string& name() const { return name_; }
  // Start launches the workers. Idempotent.
  void Start();
  // Stop shuts the queue down, lets in-flight reconciles finish, and joins the workers.
  void Stop();
  // ShutDownQueue stops handing out keys at once without waiting (lost leadership).
  void ShutDownQueue() { queue_->ShutDown(); }
  bool started() const { return started_.load(); }

 private:
  Controller(ControllerOptions options, Reconciler reconciler);
  void ReconcileOne(const std::string& key);

  const std::string name_;
  const int workers_;
  Reconciler reconciler_;
  RateLimiterPtr pending_limiter_;  // moved into the queue by Create
  std::unique_ptr<WorkQueue> queue_;
  std::unique_ptr<WorkerPool> pool_;
  std::atomic<bool> started_{false};
  bool stopped_ = false;  // guarded by mu_; the shutdown lines are logged once
  std::mutex mu_;
  // Metric handles (null without a registry).
  std::optional<ControllerRuntimeMetrics> metrics_;
  Counter* errors_ = nullptr;
  Counter* terminal_errors_ = nullptr;
  Counter* panics_ = nullptr;  // controller_runtime_reconcile_panics_total
  Histogram* reconcile_time_ = nullptr;
  Gauge* active_workers_ = nullptr;
  WaitClock& clock_;
};

}  // namespace berth::shim
