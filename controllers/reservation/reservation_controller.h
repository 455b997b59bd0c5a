// controllers/reservation/reservation_controller.h
//
// The Reservation lifecycle controller: informers on reservations, pods and nodes map events to
// reservation names; each reconcile builds a ReservationSnapshot from the caches, asks
// reconcile::DecideReservation, and writes the result: one status update when something changed,
// Events for every phase transition, a delete when GC is due, and AddAfter for the next exact
// deadline. When a reservation disappears, the allocation annotation is removed from the pods
// that still name its uid.
// Pipeline: informers (clientgo-shim) → queue → Reconcile → reconcile/ → status write.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "controllers/common/phase_gauge.h"
#include "controllers/reservation/koordinator_metrics.h"
#include "controllers/reservation/own_writes.h"
#include "controllers/reservation/owner_sync.h"
#include "reconcile/reservation/lifecycle.h"

namespace berth::controllers {

// ReservationControllerOptions: each field says its default.
struct ReservationControllerOptions {
  // --reservation-gc-duration: how long terminal reservations are kept. 0 disables GC.
  // Default: 24h (koordinator's GCDurationSeconds).
  std::chrono::nanoseconds gc_duration = std::chrono::hours(24);
  int workers = 4;  // Default: 4.
  // At most one owner-only status write (currentOwners/allocated) per reservation per interval;
  // the first goes out at once, later ones wait for the interval and carry every bind since.
  // Phase transitions, conditions and Events are never held. 0 writes every change at once.
  // Default: 1s (the EndpointSlice controller's batch period is of the same order).
  std::chrono::nanoseconds owner_sync_interval = std::chrono::seconds(1);
  // --scheduler-names: the lifecycle controller writes only reservations whose
  // spec.template.spec.schedulerName (empty = "default-scheduler", koordinator's fallback) is one
  // of these; another scheduler's reservations are its own business. Default: {"koord-scheduler"}.
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
  // --reservation-lifecycle-all-schedulers: manage every reservation whatever its schedulerName
  // (berth's behaviour before issue 13). Default: false.
  bool all_schedulers = false;
};

// ManagesReservation: whether the lifecycle controller with `options` acts on a reservation whose
// template schedulerName is `scheduler_name`.
bool ManagesReservation(const ReservationControllerOptions& options, std::string_view scheduler_name);

class ReservationController {
 public:
  // Setup registers the informers, handlers, metrics and the controller with `manager`.
  static Result<std::unique_ptr<ReservationController>> Setup(shim::Manager& manager,
                                                              shim::RestClientPtr rest,
                                                              ReservationControllerOptions options);
  ~ReservationController();

  shim::ReconcileResult Reconcile(const std::string& key);

 private:
  ReservationController(shim::RestClientPtr rest, ReservationControllerOptions options);
  shim::ReconcileResult ReconcileReservation(const std::string& name);
  shim::ReconcileResult CleanupOwners(const std::string& reservation_uid);
  void Enqueue(const std::string& key);
  void CountPhase(const shim::ObjectPtr& old_object, const shim::ObjectPtr& new_object);
  void ObserveForKoordinatorMetrics(const shim::ObjectPtr& reservation);

  ReservationControllerOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> reservations_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  shim::Controller* controller_ = nullptr;

  // Metrics.
  PhaseGauge phases_;
  KoordinatorReservationMetrics koordinator_metrics_;
  shim::HistogramFamily* expiry_lag_ = nullptr;
  shim::CounterFamily* gc_total_ = nullptr;
  shim::CounterFamily* transitions_ = nullptr;
  // uid → when this process wrote the reservation's terminal transition (sub-second, for exact GC).
  std::mutex terminal_mu_;
  std::unordered_map<std::string, reconcile::Time> terminal_since_;
  OwnerSyncLimiter owner_sync_;
  // Our last status write per reservation: its watch echo is not reconciled again (see
  // own_writes.h for when it still is).
  OwnWrites own_writes_;
};

}  // namespace berth::controllers
