// controllers/scheduler/adopt_bound_pod.cc
//
// SchedulerController::AdoptBoundPod: the extender set-up without bindVerb (issue 14). kube-scheduler
// asks berth's /filter and /prioritize, so an owner pod lands on a node where its reservation is,
// then binds the pod itself. berth sees the pod bound without the reservation-allocated annotation
// and writes it, choosing the reservation exactly as its own bind would have (pinned to the pod's
// node, under the cache lock, so two pods never take the same room). Nothing is held before the
// bind: a bind kube-scheduler loses, or a pod that lands elsewhere, leaks nothing.
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {

shim::ReconcileResult SchedulerController::AdoptBoundPod(const shim::ObjectPtr& cached) {
  using scheduler_support::kLogger;
  if (cached->FindString({"metadata", "annotations", kReservationAllocatedAnnotation})) {
    return shim::ReconcileResult::Done();
  }
  auto doc = scheduler_support::ToJson(cached);
  if (!doc) return shim::ReconcileResult::Done();
  if (IsOurs(json::GetString(*doc, {"spec", "schedulerName"})) || json::Find(*doc, {"metadata", "deletionTimestamp"}) ||
      PodIsTerminal(*doc)) {
    return shim::ReconcileResult::Done();
  }
  reconcile::placement::PodSpecView view = ReadPodView(*doc);
  if (view.uid.empty() || view.reservation_ignored) return shim::ReconcileResult::Done();
  std::optional<reconcile::placement::ReservationRef> reservation = cache_.AdoptBoundPod(view);
  if (!reservation) return shim::ReconcileResult::Done();

  // The uid is a precondition: a pod recreated under the same name is not annotated (409).
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  rapidjson::Value& meta = json::EnsureObject(patch, "metadata", a);
  json::SetString(meta, "uid", view.uid, a);
  json::SetString(json::EnsureObject(meta, "annotations", a), kReservationAllocatedAnnotation,
                  scheduler_support::ReservationAllocatedValue(*reservation), a);
  const std::string key = view.namespace_name + "/" + view.name;
  auto patched = client_.MergePatch(shim::ResourceRef{"", "v1", "pods", view.namespace_name, view.name}, patch);
  if (!patched) {
    cache_.UpsertPod(view);  // counted on its node again, as the API still says
    if (IsGone(patched.error())) return shim::ReconcileResult::Done();
    LogWriteRetry(kLogger, "reservation-allocated annotation of bound pod", key, patched.error());
    return shim::ReconcileResult::Error("annotating " + key + ": " + patched.error().message);
  }
  log::Info(kLogger, "pod bound by another scheduler allocates a reservation on its node",
            {{"pod", key}, {"node", view.node_name}, {"reservation", reservation->name}});
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
