// clientgo-shim/manager/reconciler.h
//
// Reconciler: controller-runtime's reconcile.Reconciler as a plain function from a key
// ("namespace/name", or "name" for cluster-scoped objects) to a ReconcileResult. Reconciliation
// is level-based: the function reads the current state (from informer caches) and converges;
// it is never told why it was called.
// ReconcileResult is one of:
//   Done()              success → Forget the key's failures
//   RequeueAfter(d)     → Forget, then AddAfter(d) (the way to wait for a deadline)
//   Requeue()           → AddRateLimited, no error (deprecated upstream; prefer RequeueAfter)
//   Error(msg)          → AddRateLimited (5 ms … 1000 s backoff)
//   TerminalError(msg)  → not retried (reconcile.TerminalError)
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace berth::shim {

struct ReconcileResult {
  enum class Kind { kDone, kRequeueAfter, kRequeue, kError };
  Kind kind = Kind::kDone;
  std::chrono::nanoseconds requeue_after{0};
  std::string error;       // kError only
  bool terminal = false;   // kError only

  static ReconcileResult Done() { return {}; }
  static ReconcileResult RequeueAfter(std::chrono::nanoseconds d) {
    return {Kind::kRequeueAfter, d, {}, false};
  }
  static ReconcileResult Requeue() { return {Kind::kRequeue, {}, {}, false}; }
  static ReconcileResult Error(std::string message) {
    return {Kind::kError, {}, std::move(message), false};
  }
  static ReconcileResult TerminalError(std::string message) {
    return {Kind::kError, {}, std::move(message), true};
  }
};

using Reconciler = std::function<ReconcileResult(const std::string& key)>;

}  // namespace berth::shim
