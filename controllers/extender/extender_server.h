// controllers/extender/extender_server.h
//
// berth as a kube-scheduler HTTP extender (issue 14): POST /filter, /prioritize and /bind on the
// HttpServer of --extender-bind-address (HTTPS with --extender-cert-dir), so reservations hold
// for pods of the stock kube-scheduler (schedulerName default-scheduler). Decisions come from the
// scheduler's assumed-state cache (SchedulerCache::EvaluateOnNodes → ClusterSnapshot::
// EvaluateOnNodes: reconcile/placement's rules, the pod prepared once and each candidate node
// answered as if the pod were pinned to it):
//   - filter: a node passes when the pod fits there without taking capacity active reservations
//     hold for others; an owner pod passes where a matching reservation (Aligned/Restricted,
//     reservation affinity) or free capacity fits it. Reasons use kube-scheduler's words; resource
//     shortfalls go to FailedNodes (preemption may help), everything else (taints, affinity,
//     reservation affinity, a node berth does not know, a pod-level error) to
//     FailedAndUnresolvableNodes.
//   - prioritize: 10 on a node where the pod would use a reservation; otherwise
//     --scoring-strategy's node score scaled to 0..9, so reservation nodes always rank first.
//   - preempt: of kube-scheduler's candidate nodes and victims, keeps the nodes where the pod
//     fits by berth's rules once those victims are gone (evicting pods does not free capacity a
//     reservation holds for others), victims and NumPDBViolations unchanged; drops the rest.
//   - bind: the Binder (SchedulerController::BindPodToNode): decided and assumed under the cache
//     lock, the reservation-allocated annotation on the Binding for an owner pod.
// Until the caches have synced (SetReadyCheck) every verb is a 503 with {"Error": ...}: a cache
// that has not listed the Reservations yet would let pods onto the capacity they hold.
// A malformed body is a 400 with {"Error": ...}; decisions never give a 500. Handlers run on the
// HttpServer's I/O thread, so a slow bind delays other requests on this server (never the
// metrics or probe servers).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/registry.h"
#include "controllers/extender/extender_codec.h"
#include "controllers/scheduler/scheduler_cache.h"

namespace berth::controllers::extender {

// Binder binds a pod to a node; returns "" on success, otherwise why not.
using Binder = std::function<std::string(const ExtenderBindingArgs&)>;

class ExtenderService {
 public:
  // `registry` may be null (no metrics). `cache` and `registry` must outlive the service.
  ExtenderService(SchedulerCache& cache, Binder binder, shim::Registry* registry);

  // Register serves the verbs filter, prioritize, bind and preempt at any urlPrefix: kube-scheduler
  // posts to TrimRight(urlPrefix, "/") + "/" + verb, so the path's last segment names the verb
  // (/filter, /scheduler/filter, ...).
  void Register(shim::HttpServer& server);

  shim::HttpServerReply Filter(const std::string& body);
  shim::HttpServerReply Prioritize(const std::string& body);
  shim::HttpServerReply Bind(const std::string& body);
  shim::HttpServerReply Preempt(const std::string& body);

  // SetPodViewHook: called on each request's pod view before it is evaluated (berth-manager sets
  // SchedulerController::ApplyDefaultSpread, so prioritize scores as the scheduler does).
  void SetPodViewHook(std::function<void(reconcile::placement::PodSpecView&)> hook) { pod_view_hook_ = std::move(hook); }

  // SetReadyCheck: until `check` first passes, every verb Register serves answers 503
  // {"Error": "berth's caches have not synced yet: <why>"} instead of deciding from a partial
  // cache (kube-scheduler then retries the pod with backoff, or skips berth when `ignorable`).
  // berth-manager passes the /readyz informer-sync check. Once it has passed it is not asked
  // again (a synced cache stays synced). Call before Register. Default: none (always ready).
  void SetReadyCheck(std::function<Status()> check) { ready_check_ = std::move(check); }

 private:
  shim::HttpServerReply Handle(const std::string& verb, const shim::HttpServerRequest& request,
                               shim::HttpServerReply (ExtenderService::*handler)(const std::string&));

  // NotReadyReason: "" once the ready check has passed (or there is none), else why not.
  std::string NotReadyReason();

  SchedulerCache& cache_;
  Binder binder_;
  std::function<void(reconcile::placement::PodSpecView&)> pod_view_hook_;
  std::function<Status()> ready_check_;
  std::atomic<bool> ready_{false};
  bool refused_logged_ = false;  // the first refusal is logged (I/O thread only)
  shim::CounterFamily* requests_ = nullptr;
  shim::HistogramFamily* duration_ = nullptr;
};

// ExtenderServerOptions: the HttpServer limits for the extender (bodies carry whole pods and,
// without nodeCacheCapable, whole NodeLists). With `cert_dir` ("" = plain HTTP), HTTPS with
// <cert_dir>/tls.crt and <cert_dir>/tls.key (a kubernetes.io/tls Secret's keys), reloaded when
// they change.
shim::HttpServerOptions ExtenderServerOptions(const std::string& cert_dir = "");

}  // namespace berth::controllers::extender
