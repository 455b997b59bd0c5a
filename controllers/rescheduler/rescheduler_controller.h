// controllers/rescheduler/rescheduler_controller.h
//
// The rescheduler (`--controllers` name `rescheduler`; the controlled-rescheduling seed's
// component): every `interval` it reads nodes, pods and PodMigrationJobs from the caches, asks
// reconcile::rescheduler::PlanRescheduling which pods to move and creates one ReservationFirst
// PodMigrationJob per move (the migration controller executes it, PDBs enforced by the Eviction
// API). The job's reservation template is the pod's own with a required node-affinity term
// limiting it to the move's target nodes, so the replacement lands where the decision meant.
// Configuration: ConfigMap berth-rescheduler (key config.yaml, reconcile/rescheduler/config.h) in
// `config_namespace`, watched: a change applies at the next reconcile, which it triggers; a
// malformed one keeps the last good configuration and is reported as a Warning Event
// `InvalidConfiguration` on the ConfigMap and an error log line (once per resourceVersion); a
// deleted one restores the defaults (both strategies off). Dry-run logs each move, records a
// Normal Event `WouldReschedule` on the pod and counts it, and creates nothing.
// Metrics: berth_rescheduler_moves_total{strategy,result} (result: created, dry_run, error),
// berth_rescheduler_config_valid (1 while the ConfigMap in force parsed).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "reconcile/rescheduler/selection.h"

namespace berth::controllers {

struct ReschedulerControllerOptions {
  std::string config_namespace = "default";  // the manager's namespace
  reconcile::rescheduler::PlanOptions plan;  // evictability flags and scheduler names, as the migration's
};

class ReschedulerController {
 public:
  static Result<std::unique_ptr<ReschedulerController>> Setup(shim::Manager& manager, shim::RestClientPtr rest,
                                                             ReschedulerControllerOptions options);
  ~ReschedulerController();

  shim::ReconcileResult Reconcile(const std::string& key);

  // The configuration in force (for tests).
  reconcile::rescheduler::ReschedulerConfig config() const;

 private:
  ReschedulerController(shim::RestClientPtr rest, ReschedulerControllerOptions options);
  void LoadConfig();
  reconcile::rescheduler::ReschedulerInput ReadInput() const;
  void Act(const reconcile::rescheduler::Move& move, bool dry_run);

  ReschedulerControllerOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> config_maps_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> jobs_;
  std::shared_ptr<shim::SharedInformer> reservations_;
  std::shared_ptr<shim::SharedInformer> budgets_;  // PodDisruptionBudgets: a move must be allowed by its pod's
  shim::Controller* controller_ = nullptr;
  shim::CounterFamily* moves_total_ = nullptr;
  shim::GaugeFamily* config_valid_ = nullptr;

  mutable std::mutex mu_;
  reconcile::rescheduler::ReschedulerConfig config_;
  std::string config_version_;  // resourceVersion last read ("" = no ConfigMap)
};

}  // namespace berth::controllers
