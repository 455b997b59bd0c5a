// controllers/provisioning/provisioning_controller.h
//
// The ProvisioningRequest controller (check-capacity, and the booking for every class berth
// handles). Informers on provisioningrequests (v1), podtemplates, pods, nodes and reservations
// feed one work-queue key: each pass builds a ClusterSnapshot from the caches (nodes, bound
// pods, active Reservations, the bookings being created), decides every request of a handled
// class serially with reconcile::provisioning::DecidePass, and writes the outcome:
//   - a booking is one Reservation per booked node (provisioning_codec.h), created after the
//     request got the finalizer berth.dev/provisioning-request-booking;
//   - the status goes through the status subresource with the cached resourceVersion; a
//     409/429/5xx fails the pass, which is retried (rate-limited) and decided again from fresh
//     caches (Reservation names are deterministic, so a repeat finds what the first attempt made);
//   - Reservations are deleted when the booking ends or the request is deleted; the finalizer
//     is removed once the cache shows none left;
//   - an Event for every condition transition; the next deadline becomes AddAfter.
// Requests of other classes are never touched (logged once).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/manager/manager.h"
#include "reconcile/placement/types.h"
#include "reconcile/provisioning/check_capacity.h"

namespace berth::controllers {

struct ProvisioningRequestControllerOptions {
  // --provisioning-classes. Default: check-capacity and best-effort-atomic-scale-up.
  std::vector<std::string> classes = {"check-capacity.autoscaling.x-k8s.io",
                                      "best-effort-atomic-scale-up.autoscaling.x-k8s.io"};
  // schedulerName of the booking Reservations (the first of --scheduler-names), so berth's
  // scheduler places them. Default: koord-scheduler.
  std::string scheduler_name = "koord-scheduler";
  reconcile::provisioning::ProvisioningOptions timers;
  // --check-capacity-processor-instance (Cluster Autoscaler's flag): "" handles check-capacity
  // requests without parameters.processorInstance; a name handles only those naming it and turns
  // best-effort-atomic-scale-up off (reconcile/provisioning/routing.h).
  std::string processor_instance;
  // The API version read and written: "" asks discovery at Setup (v1 when served, else the
  // deprecated v1beta1 of an older Cluster Autoscaler CRD, else v1 with an error logged).
  std::string api_version;
};

class ProvisioningRequestController {
 public:
  // The queue key of a pass (there is only one: decisions are serial by design).
  static constexpr char kPassKey[] = "pass";

  static Result<std::unique_ptr<ProvisioningRequestController>> Setup(
      shim::Manager& manager, shim::RestClientPtr rest, ProvisioningRequestControllerOptions options);
  ~ProvisioningRequestController();

  shim::ReconcileResult Reconcile(const std::string& key);

  // Provisioners by class (best-effort-atomic-scale-up plugs in here). Call before the manager
  // starts.
  void SetProvisioner(const std::string& class_name, reconcile::provisioning::Provisioner* provisioner);

 private:
  struct PendingBooking {
    std::string request_uid;
    reconcile::provisioning::BookedSlice slice;
    reconcile::placement::ReservationView view;
    std::chrono::steady_clock::time_point created;
  };
  struct Written {
    bool ok = true;
    std::string error;
  };

  ProvisioningRequestController(shim::RestClientPtr rest, ProvisioningRequestControllerOptions options);
  void Enqueue(bool capacity_freed);
  Written Apply(const reconcile::provisioning::RequestDecision& decision,
                const reconcile::provisioning::ProvisioningRequestView& view, const rapidjson::Value& object);
  Written EnsureFinalizer(const rapidjson::Value& object, std::string& resource_version, bool present);
  void UpdateMetrics(const std::vector<reconcile::provisioning::RequestDecision>& decisions,
                     const std::vector<reconcile::provisioning::ProvisioningRequestView>& views);

  shim::ResourceRef RequestRef(std::string_view ns, std::string_view name) const;

  ProvisioningRequestControllerOptions options_;
  shim::ObjectClient client_;
  std::unique_ptr<shim::EventRecorder> recorder_;
  std::shared_ptr<shim::SharedInformer> requests_;
  std::shared_ptr<shim::SharedInformer> templates_;
  std::shared_ptr<shim::SharedInformer> pods_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  std::shared_ptr<shim::SharedInformer> reservations_;
  shim::Controller* controller_ = nullptr;
  std::atomic<bool> capacity_freed_{false};
  std::unordered_map<std::string, reconcile::provisioning::Provisioner*> provisioners_;

  // Pass state (the single worker only).
  std::unordered_map<std::string, reconcile::provisioning::BackoffState> backoff_;
  std::unordered_map<std::string, PendingBooking> pending_creates_;  // by Reservation name
  std::unordered_set<std::string> pending_deletes_;                  // Reservation names
  std::unordered_set<std::string> ignored_logged_;                   // uids of requests not ours
  std::set<std::pair<std::string, std::string>> state_labels_;       // {class, state} ever set
  std::set<std::string> booked_resource_labels_;

  // Metrics.
  shim::GaugeFamily* requests_gauge_ = nullptr;
  shim::HistogramFamily* check_duration_ = nullptr;
  shim::GaugeFamily* booked_resources_ = nullptr;
};

}  // namespace berth::controllers
