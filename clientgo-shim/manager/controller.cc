// clientgo-shim/manager/controller.cc — see controller.h.
#include "clientgo-shim/manager/controller.h"

#include <exception>

#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/uuid.h"
#include "clientgo-shim/manager/queue_metrics_adapter.h"

namespace berth::shim {

std::string_view ApplyReconcileResult(WorkQueue& queue, const std::string& key,
                                      const ReconcileResult& result) {
  switch (result.kind) {
    case ReconcileResult::Kind::kError:
      if (!result.terminal) queue.AddRateLimited(key);
      return "error";
    case ReconcileResult::Kind::kRequeueAfter:
      if (result.requeue_after.count() > 0) {
        queue.Forget(key);
        queue.AddAfter(key, result.requeue_after);
        return "requeue_after";
      }
      queue.Forget(key);  // RequeueAfter(0) means done, as in controller-runtime
      return "success";
    case ReconcileResult::Kind::kRequeue:
      queue.AddRateLimited(key);
      return "requeue";
    case ReconcileResult::Kind::kDone:
      break;
  }
  queue.Forget(key);
  return "success";
}

Result<std::unique_ptr<Controller>> Controller::Create(ControllerOptions options,
                                                       Reconciler reconciler) {
  if (options.name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "controller name must not be empty");
  }
  if (options.max_concurrent_reconciles < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "controller " + options.name + ": max_concurrent_reconciles must be >= 1");
  }
  if (!reconciler) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "controller " + options.name + ": reconciler is required");
  }
  std::optional<ControllerRuntimeMetrics> metrics;
  std::shared_ptr<WorkQueueMetrics> queue_metrics;
  if (options.metrics != nullptr) {
    auto m = RegisterControllerRuntimeMetrics(*options.metrics);
    if (!m) return std::unexpected(m.error());
    metrics = *m;
    auto q = MakeWorkqueueMetrics(*options.metrics, options.name, options.name);
    if (!q) return std::unexpected(q.error());
    queue_metrics = *q;
  }
  std::unique_ptr<Controller> c(new Controller(std::move(options), std::move(reconciler)));
  c->metrics_ = metrics;
  if (metrics) {
    metrics->InitController(c->name_, c->workers_);
    c->errors_ = &metrics->reconcile_errors_total->WithLabelValues({c->name_});
    c->terminal_errors_ = &metrics->terminal_reconcile_errors_total->WithLabelValues({c->name_});
    c->panics_ = &metrics->reconcile_panics_total->WithLabelValues({c->name_});
    c->reconcile_time_ = &metrics->reconcile_time_seconds->WithLabelValues({c->name_});
    c->active_workers_ = &metrics->active_workers->WithLabelValues({c->name_});
  }
  WorkQueueOptions qo;
  qo.name = c->name_;
  qo.clock = &c->clock_;
  qo.rate_limiter = std::move(c->pending_limiter_);
  qo.metrics = queue_metrics;
  c->queue_ = std::make_unique<WorkQueue>(std::move(qo));
  return c;
}

Controller::Controller(ControllerOptions options, Reconciler reconciler)
    : name_(options.name),
      workers_(options.max_concurrent_reconciles),
      reconciler_(std::move(reconciler)),
      pending_limiter_(std::move(options.rate_limiter)),
      clock_(options.clock != nullptr ? *options.clock : DefaultWaitClock()) {}

Controller::~Controller() { Stop(); }

void Controller::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (started_ || queue_->ShuttingDown()) return;
  started_ = true;
  log::Info(name_, "Starting workers", {{"controller", name_}, {"worker count", std::to_string(workers_)}});
  pool_ = std::make_unique<WorkerPool>(*queue_, workers_,
                                       [this](const std::string& key) { ReconcileOne(key); });
}

void Controller::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  queue_->ShutDownWithDrain();
  if (pool_) {
    if (!stopped_) log::Info(name_, "Shutdown signal received, waiting for all workers to finish", {{"controller", name_}});
    pool_->Join();
    if (!stopped_) log::Info(name_, "All workers finished", {{"controller", name_}});
  }
  stopped_ = true;
}

log::Fields ReconcileLogFields(const std::string& controller, const std::string& key) {
  log::Fields fields{{"controller", controller}};
  // "namespace/name" keys split as controller-runtime logs a request; other keys stay whole.
  if (const size_t slash = key.find('/'); slash != std::string::npos && key.find('/', slash + 1) == std::string::npos) {
    fields.emplace_back("namespace", key.substr(0, slash));
    fields.emplace_back("name", key.substr(slash + 1));
  } else {
    fields.emplace_back("name", key);
  }
  fields.emplace_back("reconcileID", RandomUuidV4());
  return fields;
}

void Controller::ReconcileOne(const std::string& key) {
  // Every line the reconciler writes on this thread carries these, as its logr logger would.
  log::ScopedFields scope(ReconcileLogFields(name_, key));
  if (active_workers_ != nullptr) active_workers_->Inc();
  const SteadyTime start = clock_.Now();
  ReconcileResult result;
  try {
    result = reconciler_(key);
  } catch (const std::exception& e) {
    result = ReconcileResult::Error(std::string("panic: ") + e.what());
    if (panics_ != nullptr) panics_->Inc();
  } catch (...) {
    result = ReconcileResult::Error("panic: unknown exception");
    if (panics_ != nullptr) panics_->Inc();
  }
  if (reconcile_time_ != nullptr) {
    reconcile_time_->Observe(std::chrono::duration<double>(clock_.Now() - start).count());
  }
  if (result.kind == ReconcileResult::Kind::kError) log::Error(name_, "Reconciler error", {{"error", result.error}});
  const std::string_view label = ApplyReconcileResult(*queue_, key, result);
  if (metrics_) {
    metrics_->reconcile_total->WithLabelValues({name_, std::string(label)}).Inc();
    if (result.kind == ReconcileResult::Kind::kError) {
      errors_->Inc();
      if (result.terminal) terminal_errors_->Inc();
    }
  }
  if (active_workers_ != nullptr) active_workers_->Dec();
}

}  // namespace berth::shim
