#include "controllers/reservation/reservation_controller.h"

#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/reservation/reservation_metrics.h"
#include "reconcile/common/annotation_json.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr char kLogger[] = "reservation";
constexpr char kGroup[] = "scheduling.koordinator.sh";
constexpr char kVersion[] = "v1alpha1";
constexpr char kReservationsPath[] = "/apis/scheduling.koordinator.sh/v1alpha1/reservations";
constexpr char kReservationUidIndex[] = "reservation-uid";
constexpr char kStatusNodeIndex[] = "status.nodeName";
constexpr char kUidIndex[] = "metadata.uid";
// Cleanup keys name a deleted reservation by uid; reservation names never contain ':'.
constexpr std::string_view kCleanupPrefix = "uid:";

shim::ResourceRef ReservationRef(const std::string& name) {
  return shim::ResourceRef{kGroup, kVersion, "reservations", "", name};
}

std::string PhaseOf(const shim::ObjectPtr& obj) {
  if (!obj) return "";
  auto phase = obj->FindString({"status", "phase"});
  return phase && !phase->empty() ? *phase : "Pending";
}

std::optional<std::string> AllocatedUid(const shim::CachedObject& pod) {
  auto text = pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation});
  if (!text) return std::nullopt;
  auto doc = reconcile::ParseAnnotationJson(*text);  // an annotation: nesting is unbounded
  if (!doc || !doc->IsObject()) return std::nullopt;
  std::string uid(json::GetString(*doc, {"uid"}));
  if (uid.empty()) return std::nullopt;
  return uid;
}

std::optional<std::string> AllocatedName(const shim::CachedObject& pod) {
  auto text = pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation});
  if (!text) return std::nullopt;
  auto doc = reconcile::ParseAnnotationJson(*text);  // an annotation: nesting is unbounded
  if (!doc || !doc->IsObject()) return std::nullopt;
  std::string name(json::GetString(*doc, {"name"}));
  if (name.empty()) return std::nullopt;
  return name;
}

// OwnerFieldsChanged: whether an update can change a reservation's owners or allocation: the
// allocation annotation, terminal phase, deletion, or the node (binding).
bool OwnerFieldsChanged(const shim::CachedObject& old_pod, const shim::CachedObject& new_pod) {
  auto terminal = [](const shim::CachedObject& pod) {
    auto phase = pod.FindString({"status", "phase"});
    return phase && (*phase == "Succeeded" || *phase == "Failed");
  };
  auto deleting = [](const shim::CachedObject& pod) {
    return pod.FindString({"metadata", "deletionTimestamp"}).has_value();
  };
  return old_pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation}) !=
             new_pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation}) ||
         terminal(old_pod) != terminal(new_pod) || deleting(old_pod) != deleting(new_pod) ||
         old_pod.FindString({"spec", "nodeName"}) != new_pod.FindString({"spec", "nodeName"});
}

}  // namespace

ReservationController::ReservationController(shim::RestClientPtr rest, ReservationControllerOptions options)
    : options_(options), client_(std::move(rest)), owner_sync_(options.owner_sync_interval) {}

ReservationController::~ReservationController() {
  if (recorder_) recorder_->Stop();
}

Result<std::unique_ptr<ReservationController>> ReservationController::Setup(
    shim::Manager& manager, shim::RestClientPtr rest, ReservationControllerOptions options) {
  std::unique_ptr<ReservationController> c(new ReservationController(rest, options));
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-manager";
  // Every phase transition must leave an Event. client-go's 1000-event queue drops most of a mass
  // expiry (10,000 reservations sharing a deadline lost ~60% in bench/reservation_expiry_driver);
  // pending events are small, so queue up to 50,000 before dropping.
  events.max_queue = 50000;
  // One sender per reconcile worker: a mass expiry's Events (one per reservation) went out one at a
  // time behind the workers' parallel status writes, and finished ~2 s after the last of them for
  // 10,000 reservations (reservation_expiry_driver --scenario b).
  events.senders = std::max(1, options.workers);
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);

  auto& reg = manager.registry();
  auto phase = reg.AddGauge("berth_reservations", "Number of reservations per phase.", {"phase"});
  auto lag = reg.AddHistogram("berth_reservation_expiry_lag_seconds",
                              "Time from a reservation's expiry deadline to its Failed status write.", {},
                              {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
  auto gc = reg.AddCounter("berth_reservation_gc_total", "Terminal reservations deleted by garbage collection.");
  auto transitions = RegisterReservationTransitions(reg);
  if (!phase || !lag || !gc || !transitions) return MakeError(ErrorCode::kInternal, "registering reservation metrics failed");
  if (auto s = c->koordinator_metrics_.Register(reg); !s) return std::unexpected(s.error());
  c->phases_.Bind(*phase, {"Pending", "Available", "Waiting", "Succeeded", "Failed"});
  c->expiry_lag_ = *lag;
  c->gc_total_ = *gc;
  c->transitions_ = *transitions;

  auto& informers = manager.informers();
  c->reservations_ = informers.InformerFor(shim::InformerKey{kReservationsPath, "", ""});
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  auto s1 = c->reservations_->AddIndexers({{kStatusNodeIndex, [](const shim::CachedObject& o) {
    auto node = o.FindString({"status", "nodeName"});
    return node && !node->empty() ? std::vector<std::string>{*node} : std::vector<std::string>{};
  }}, {kUidIndex, [](const shim::CachedObject& o) {
    std::string uid(o.Uid());
    return uid.empty() ? std::vector<std::string>{} : std::vector<std::string>{uid};
  }}});
  auto s2 = c->pods_->AddIndexers({{kReservationUidIndex, [](const shim::CachedObject& o) {
    auto uid = AllocatedUid(o);
    return uid ? std::vector<std::string>{*uid} : std::vector<std::string>{};
  }}});
  if (!s1 || !s2) return MakeError(ErrorCode::kInternal, "adding reservation indexers failed");

  ReservationController* self = c.get();
  auto controller = manager.AddController(
      shim::ControllerOptions{"reservation", options.workers, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;

  c->reservations_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) {
        self->CountPhase(nullptr, obj);
        self->ObserveForKoordinatorMetrics(obj);
        self->Enqueue(std::string(obj->Name()));
      },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        self->CountPhase(old_obj, new_obj);
        self->ObserveForKoordinatorMetrics(new_obj);
        if (self->own_writes_.IsEcho(std::string(new_obj->Name()), new_obj->ResourceVersion())) return;
        self->Enqueue(std::string(new_obj->Name()));
      },
      [self](const shim::DeletedObject& deleted) {
        self->CountPhase(deleted.object, nullptr);
        if (!deleted.object) return;
        self->koordinator_metrics_.Forget(std::string(deleted.object->Name()));
        {
          std::lock_guard lock(self->terminal_mu_);
          self->terminal_since_.erase(std::string(deleted.object->Uid()));
        }
        self->owner_sync_.Forget(std::string(deleted.object->Uid()));
        self->own_writes_.Forget(std::string(deleted.object->Name()));
        self->Enqueue(std::string(kCleanupPrefix) + std::string(deleted.object->Uid()));
      }});
  // A consuming pod changes its reservation's owners. Pods are matched by uid only (the name in the
  // annotation may be stale or wrong), so the uid finds the reservation; the name is a fallback for
  // a reservation the cache has not seen yet (its own add event reconciles it anyway).
  auto pod_changed = [self](const shim::ObjectPtr& pod) {
    if (!pod) return;
    if (auto uid = AllocatedUid(*pod)) {
      auto owners = self->reservations_->store().ByIndex(kUidIndex, *uid);
      if (owners && !owners->empty()) {
        for (const auto& r : *owners) self->Enqueue(std::string(r->Name()));
        return;
      }
    }
    if (auto name = AllocatedName(*pod)) self->Enqueue(*name);
  };
  // A pod of the first list (or a late handler's replay) queues nothing: every reservation is
  // queued by its own add, and workers start after every cache has synced.
  c->pods_->AddEventHandler(shim::EventHandler{
      [pod_changed](const shim::ObjectPtr& obj, bool) { pod_changed(obj); },
      [pod_changed](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        // Most pod updates (the kubelet's Running and Ready) change nothing the owner accounting
        // reads; skipping them keeps the queue for the updates that matter.
        if (old_obj && new_obj && !OwnerFieldsChanged(*old_obj, *new_obj)) return;
        pod_changed(old_obj);
        pod_changed(new_obj);
      },
      [pod_changed](const shim::DeletedObject& deleted) { pod_changed(deleted.object); },
      [](const std::vector<shim::ObjectPtr>&) {}});  // the first list: see above
  c->nodes_->AddEventHandler(shim::EventHandler{
      nullptr, nullptr, [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        auto on_node = self->reservations_->store().ByIndex(kStatusNodeIndex, deleted.object->Name());
        if (!on_node) return;
        for (const auto& r : *on_node) self->Enqueue(std::string(r->Name()));
      }});
  return c;
}

void ReservationController::Enqueue(const std::string& key) {
  if (controller_) controller_->queue().Add(key);
}

void ReservationController::CountPhase(const shim::ObjectPtr& old_object, const shim::ObjectPtr& new_object) {
  phases_.Move(old_object ? std::optional(PhaseOf(old_object)) : std::nullopt,
               new_object ? std::optional(PhaseOf(new_object)) : std::nullopt);
}

void ReservationController::ObserveForKoordinatorMetrics(const shim::ObjectPtr& reservation) {
  if (!reservation) return;
  rapidjson::Document scratch(rapidjson::kObjectType);
  auto amounts = [&](const char* field) {
    rapidjson::Value v;
    return reservation->FindValue({"status", field}, v, scratch.GetAllocator()) ? ReadAmounts(&v)
                                                                                : reconcile::ResourceAmounts{};
  };
  koordinator_metrics_.Observe(std::string(reservation->Name()), reservation->FindString({"status", "phase"}).value_or(""),
                               amounts("allocatable"), amounts("allocated"));
}

shim::ReconcileResult ReservationController::Reconcile(const std::string& key) {
  if (key.rfind(kCleanupPrefix, 0) == 0) return CleanupOwners(key.substr(kCleanupPrefix.size()));
  return ReconcileReservation(key);
}

bool ManagesReservation(const ReservationControllerOptions& options, std::string_view scheduler_name) {
  if (options.all_schedulers) return true;
  if (scheduler_name.empty()) scheduler_name = "default-scheduler";
  return std::find(options.scheduler_names.begin(), options.scheduler_names.end(), scheduler_name) !=
         options.scheduler_names.end();
}

shim::ReconcileResult ReservationController::ReconcileReservation(const std::string& name) {
  shim::ObjectPtr cached = own_writes_.Read(name, [&] { return reservations_->store().Get(name); });
  if (!cached) return shim::ReconcileResult::Done();  // gone: the delete handler queued cleanup
  // Another scheduler's reservation: it expires, syncs and collects its own (koordinator's
  // controller runs inside koord-scheduler and sees only what that scheduler is responsible for).
  if (!ManagesReservation(options_, cached->FindString({"spec", "template", "spec", "schedulerName"}).value_or(""))) {
    return shim::ReconcileResult::Done();
  }
  reconcile::ReservationSnapshot snapshot = ReadReservation(*cached);
  if (!snapshot.status.node_name.empty()) {
    snapshot.node_exists = nodes_->store().Get(snapshot.status.node_name) != nullptr;
  }
  if (auto pods = pods_->store().ByIndex(kReservationUidIndex, snapshot.uid)) {
    for (const auto& pod : *pods) {
      if (pod) snapshot.consumers.push_back(ReadConsumerPod(*pod));
    }
  }
  {
    std::lock_guard lock(terminal_mu_);
    if (auto it = terminal_since_.find(snapshot.uid); it != terminal_since_.end()) {
      snapshot.terminal_since_precise = it->second;
    }
  }
  auto now = std::chrono::system_clock::now();
  reconcile::ReservationDecision decision =
      reconcile::DecideReservation(snapshot, now, reconcile::LifecycleOptions{options_.gc_duration});

  if (decision.delete_reservation) {
    auto deleted = client_.Delete(ReservationRef(name));
    if (!deleted && !IsGone(deleted.error())) {
      LogWriteRetry(kLogger, "GC delete of reservation", name, deleted.error());
      return shim::ReconcileResult::Error("GC delete of reservation " + name + ": " + deleted.error().message);
    }
    gc_total_->WithLabelValues({}).Inc();
    log::Info(kLogger, "garbage-collected reservation", {{"reservation", name}});
    return shim::ReconcileResult::Done();
  }
  const bool owners_only = decision.status && !decision.transition && decision.events.empty() &&
                           OnlyOwnersChanged(snapshot.status, *decision.status);
  if (owners_only) {
    if (auto hold = owner_sync_.Hold(snapshot.uid, OwnerSyncLimiter::Clock::now())) {
      // Coalesce: this write goes out with the next ones once the interval has passed; an
      // earlier deadline (expiry) still wins.
      auto after = decision.requeue_after ? std::min(*hold, *decision.requeue_after) : *hold;
      return shim::ReconcileResult::RequeueAfter(std::max<std::chrono::nanoseconds>(after, std::chrono::milliseconds(1)));
    }
  }
  if (decision.status) {
    auto written = client_.UpdateStatus(ReservationRef(name), StatusUpdateBody(*cached, *decision.status));
    if (!written) {
      if (IsGone(written.error())) return shim::ReconcileResult::Done();
      // A conflict means our cache was stale: the informer delivers the newer version soon, and
      // the retry decides again from it (an expiry is re-derived from the spec, never lost).
      LogWriteRetry(kLogger, "reservation status update", name, written.error());
      return shim::ReconcileResult::Error("status update of reservation " + name + ": " + written.error().message);
    }
    auto written_at = std::chrono::system_clock::now();
    if (owners_only) owner_sync_.Wrote(snapshot.uid, OwnerSyncLimiter::Clock::now());
    own_writes_.Wrote(name, json::GetString(*written, {"metadata", "resourceVersion"}));
    if (decision.transition) {
      const auto& t = *decision.transition;
      if (reconcile::IsTerminal(t.to)) {
        std::lock_guard lock(terminal_mu_);
        terminal_since_[snapshot.uid] = now;  // the lastTransitionTime just written, unrounded
      }
      transitions_->WithLabelValues({std::string(reconcile::PhaseName(t.from)), std::string(reconcile::PhaseName(t.to)), t.reason}).Inc();
      log::Info(kLogger, "reservation phase changed",
                {{"reservation", name}, {"from", std::string(reconcile::PhaseName(t.from))},
                 {"to", std::string(reconcile::PhaseName(t.to))}, {"reason", t.reason}});
      if (decision.deadline && t.reason == reconcile::kReasonExpired) {
        expiry_lag_->WithLabelValues({}).Observe(std::chrono::duration<double>(written_at - *decision.deadline).count());
      }
    }
  }
  if (!decision.events.empty()) {
    shim::ObjectReference ref{std::string(kGroup) + "/" + kVersion, "Reservation", "", name, snapshot.uid, "", ""};
    for (const auto& e : decision.events) {
      recorder_->Event(ref, e.type == "Warning" ? shim::EventType::kWarning : shim::EventType::kNormal, e.reason, e.message);
    }
  }
  if (decision.requeue_after) {
    // Never less than a millisecond: a deadline that just passed is handled by the next pass.
    auto after = std::max<std::chrono::nanoseconds>(*decision.requeue_after, std::chrono::milliseconds(1));
    return shim::ReconcileResult::RequeueAfter(after);
  }
  return shim::ReconcileResult::Done();
}

shim::ReconcileResult ReservationController::CleanupOwners(const std::string& reservation_uid) {
  auto pods = pods_->store().ByIndex(kReservationUidIndex, reservation_uid);
  if (!pods) return shim::ReconcileResult::Done();
  // A reservation with the same uid may not come back, but be safe against stale keys.
  if (auto same = reservations_->store().ByIndex(kUidIndex, reservation_uid); same && !same->empty()) {
    return shim::ReconcileResult::Done();
  }
  std::string failures;
  for (const auto& pod : *pods) {
    shim::ResourceRef ref{"", "v1", "pods", std::string(pod->Namespace()), std::string(pod->Name())};
    // Remove the annotation only if it still has the value we saw (the test op guards the race
    // with a scheduler that re-allocates the pod meanwhile).
    auto value = pod->FindString({"metadata", "annotations", kReservationAllocatedAnnotation});
    if (!value) continue;
    rapidjson::Document ops(rapidjson::kArrayType);
    auto& a = ops.GetAllocator();
    const std::string path = "/metadata/annotations/scheduling.koordinator.sh~1reservation-allocated";
    Value test(rapidjson::kObjectType);
    test.AddMember("op", "test", a);
    test.AddMember("path", Value(path.c_str(), a), a);
    test.AddMember("value", Value(value->c_str(), a), a);
    Value remove(rapidjson::kObjectType);
    remove.AddMember("op", "remove", a);
    remove.AddMember("path", Value(path.c_str(), a), a);
    ops.PushBack(test, a);
    ops.PushBack(remove, a);
    auto result = client_.Patch(ref, json::Serialize(ops), shim::kJsonPatch);
    if (!result && !IsGone(result.error())) {
      // A failed test op (the cache was stale) or a transient error: retried from the cache,
      // where a pod re-allocated meanwhile no longer names this uid.
      LogWriteRetry(kLogger, "removing the allocation annotation", pod->Key(), result.error());
      failures += " " + std::string(pod->Key()) + ": " + result.error().message;
    } else if (result) {
      log::Info(kLogger, "removed allocation annotation of deleted reservation",
                {{"pod", std::string(pod->Key())}, {"reservation_uid", reservation_uid}});
    }
  }
  if (!failures.empty()) return shim::ReconcileResult::Error("cleaning owners of " + reservation_uid + ":" + failures);
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
