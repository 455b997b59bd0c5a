// controllers/migration/drain_controller.h
//
// Node drain by label (part of the `migration` controller; decisions in reconcile/migration/drain):
// the nodes, pods (by node) and PodMigrationJobs (by the drain's node annotation and by pod)
// caches wake a node's reconcile, which cordons or uncordons it with one merge patch (spec
// .unschedulable and the berth.dev/cordoned-by-drain and berth.dev/drain-status annotations),
// creates the drain's PodMigrationJobs (named after the pod uid, so a retried create is a 409),
// deletes Pending ones when the drain stops, records node Events and sets
// berth_drain_pods_remaining{node}. Failed writes requeue the node with backoff. The jobs it created
// are not created again until the job cache shows them (each drain pass would otherwise repeat the
// creates the cache has not caught up with, answered 409), and it remembers when it last wrote the
// status annotation (rewritten at most once per DrainOptions::status_interval while Draining).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "reconcile/migration/drain.h"

namespace berth::controllers {

inline constexpr char kDrainNodeAnnotation[] = "berth.dev/drain-node";  // on the drain's jobs

class DrainController {
 public:
  static Result<std::unique_ptr<DrainController>> Setup(shim::Manager& manager, shim::RestClientPtr rest,
                                                        reconcile::migration::DrainOptions options,
                                                        std::shared_ptr<shim::SharedInformer> jobs,
                                                        std::shared_ptr<shim::SharedInformer> pods);
  ~DrainController();

  shim::ReconcileResult Reconcile(const std::string& node);

 private:
  DrainController(shim::RestClientPtr rest, reconcile::migration::DrainOptions options);
  // EnqueueIfDraining: a pass for the node within kPodEventCoalesce, if it is draining (or was).
  void EnqueueIfDraining(const std::string& node);

  reconcile::migration::DrainOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> nodes_, pods_, jobs_;
  shim::Controller* controller_ = nullptr;
  shim::GaugeFamily* remaining_ = nullptr;
  std::mutex mu_;
  std::unordered_map<std::string, reconcile::Time> being_created_;  // job name → when created
  std::unordered_map<std::string, reconcile::Time> status_written_;  // node → last status write
};

// DrainStatusJson / ParseDrainStatus: the berth.dev/drain-status annotation,
// {"status":"Draining","podsRemaining":3,"message":"…","lastTransitionTime":"2026-01-01T00:00:00Z"}.
std::string DrainStatusJson(const reconcile::migration::DrainStatus& status);
Result<reconcile::migration::DrainStatus> ParseDrainStatus(std::string_view text);

}  // namespace berth::controllers
