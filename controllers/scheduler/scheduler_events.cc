// controllers/scheduler/scheduler_events.cc — SchedulerController's informer handlers (pods,
// nodes, ResourcePolicies, reservations) and the parking of keys that found no room until the
// cluster (or the pod itself) changes, as kube-scheduler's unschedulable queue.
#include <set>
#include <string>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/pod_requeue.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using scheduler_support::kLogger;
using scheduler_support::ToJson;
namespace placement = reconcile::placement;

}  // namespace

void SchedulerController::RetryParked() {
  std::set<std::string> pods, reservations;
  {
    std::lock_guard lock(parked_mu_);
    cluster_generation_.fetch_add(1);
    pods.swap(parked_pods_);
    parked_on_pods_.clear();
    reservations.swap(parked_reservations_);
  }
  for (const auto& key : reservations) reservation_controller_->queue().Add(key);
  for (const auto& key : pods) pod_controller_->queue().Add(key);
}

void SchedulerController::RetryParkedOnPods() {
  std::set<std::string> pods;
  {
    std::lock_guard lock(parked_mu_);
    pod_arrivals_.fetch_add(1);
    if (parked_on_pods_.empty()) return;
    pods.swap(parked_on_pods_);
    for (const auto& key : pods) parked_pods_.erase(key);
  }
  for (const auto& key : pods) pod_controller_->queue().Add(key);
}

void SchedulerController::ParkPod(const std::string& key, uint64_t seen, uint64_t seen_arrivals,
                                  bool waits_on_pods) {
  {
    std::lock_guard lock(parked_mu_);
    if (cluster_generation_.load() == seen && (!waits_on_pods || pod_arrivals_.load() == seen_arrivals)) {
      parked_pods_.insert(key);
      if (waits_on_pods) parked_on_pods_.insert(key);
      return;
    }
  }
  // The cluster changed while we decided: try again (rate-limited so churn cannot spin us).
  pod_controller_->queue().AddRateLimited(key);
}

void SchedulerController::ParkReservation(const std::string& key, uint64_t seen) {
  {
    std::lock_guard lock(parked_mu_);
    if (cluster_generation_.load() == seen) {
      parked_reservations_.insert(key);
      return;
    }
  }
  reservation_controller_->queue().AddRateLimited(key);
}

void SchedulerController::OnPod(const shim::ObjectPtr& old_object, const shim::ObjectPtr& object) {
  if (cache_.HasResourcePolicies()) EnqueuePolicyStatus(object->Namespace(), /*batch=*/true);
  if (!old_object) {
    PreparedPod prepared = PrepareAddedPod(*object);
    ApplyAddedPod(*object, prepared);
    return;
  }
  bool labels_changed = false;
  {
    // A bound pod's spec is immutable: while its node, its reservation annotation and its
    // non-terminal phase stay the same (kubelet status updates), the cache already has it.
    auto node = object->FindString({"spec", "nodeName"});
    auto phase = object->FindString({"status", "phase"});
    if (node && !node->empty() && node == old_object->FindString({"spec", "nodeName"}) &&
        phase != "Succeeded" && phase != "Failed" &&
        object->FindString({"metadata", "annotations", kReservationAllocatedAnnotation}) ==
            old_object->FindString({"metadata", "annotations", kReservationAllocatedAnnotation}) &&
        // Preemption reads deletion: a victim already terminating is not preempted again.
        object->FindString({"metadata", "deletionTimestamp"}).has_value() ==
            old_object->FindString({"metadata", "deletionTimestamp"}).has_value()) {
      // The kubelet's start time orders equal-priority victims; set alone, without a conversion.
      if (auto start = object->FindString({"status", "startTime"});
          start != old_object->FindString({"status", "startTime"})) {
        cache_.SetPodStartTime(object->Uid(), start);
      }
      // Labels decide what other pods' affinity terms and spreading constraints count, and which
      // ResourcePolicy counts the pod: a relabelled pod is converted again.
      if (LabelsEqual(*old_object, *object)) return;
      labels_changed = true;
    }
  }
  {
    // An unbound pod is not in the cache (an assumed one stays assumed whatever the watch
    // says), so only the scheduling queue cares: decide from a few fields, no conversion.
    auto node = object->FindString({"spec", "nodeName"});
    auto phase = object->FindString({"status", "phase"});
    if ((!node || node->empty()) && phase != "Succeeded" && phase != "Failed") {
      if (!IsOurs(object->FindString({"spec", "schedulerName"}).value_or(""))) return;
      if (object->FindString({"metadata", "deletionTimestamp"})) return;
      std::string key(object->Key());
      if (old_object) {
        std::lock_guard lock(parked_mu_);
        auto parked = parked_pods_.find(key);
        if (parked != parked_pods_.end()) {
          // Waits for a cluster change, or one of its own (a toleration added, a label).
          if (!PodChangedBeyondStatus(*old_object, *object)) return;
          parked_pods_.erase(parked);
          parked_on_pods_.erase(key);
        }
      }
      pod_controller_->queue().Add(key);
      return;
    }
  }
  // Bound or terminal: converted as the first list's pods are (PrepareAddedPod).
  PreparedPod prepared = PrepareAddedPod(*object);
  if (prepared.kind == PreparedPod::Kind::kTerminal) {
    if (cache_.RemovePod(prepared.view.uid)) RetryParked();
    return;
  }
  if (prepared.kind != PreparedPod::Kind::kBound) return;
  // Bound (here or by another scheduler): counted from now on, and no longer waiting.
  cache_.UpsertPod(prepared.view);
  if (prepared.adopt && (!old_object || !old_object->FindString({"spec", "nodeName"}))) {
    pod_controller_->queue().Add(std::string(object->Key()));  // ReconcilePod → AdoptBoundPod
  }
  if (old_object && !old_object->FindString({"spec", "nodeName"})) {
    std::lock_guard lock(parked_mu_);
    parked_pods_.erase(std::string(object->Key()));
  }
  // A pod that just landed, or whose labels changed, can satisfy a parked pod's required pod
  // affinity, stop matching its anti-affinity or change a topology domain's skew: the pods parked on
  // those try again (kube-scheduler's Pod/Add and Pod/UpdatePodLabel events).
  if (!old_object || !old_object->FindString({"spec", "nodeName"}) || labels_changed) RetryParkedOnPods();
  // A bound pod relabelled (out of a podSelector or its matchLabelKeys group) or starting to
  // terminate (ignoreTerminatingPod) can stop counting in a ResourcePolicy unit, freeing a slot a
  // parked pod waits for; berth has no periodic flush of parked pods, so they try again now.
  // (The policy check first: a pod update is a hot path, and most clusters have no policy.)
  if (cache_.HasResourcePolicies() &&
      (labels_changed || (old_object && !old_object->FindString({"metadata", "deletionTimestamp"}) &&
                          object->FindString({"metadata", "deletionTimestamp"})))) {
    RetryParked();
  }
}

void SchedulerController::OnNodeChanged() {
  RetryParked();
  // Node labels decide unit membership: every policy's status may change.
  if (cache_.HasResourcePolicies()) EnqueuePolicyStatus("", /*batch=*/true);
}

void SchedulerController::OnResourcePolicy(const shim::ObjectPtr& object) {
  auto doc = ToJson(object);
  if (!doc) return;
  auto view = ReadResourcePolicyView(*doc);
  if (!view) {
    // Not enforced rather than guessed: the pods it would select schedule as without it.
    log::Warn(kLogger, "ignoring ResourcePolicy that does not parse",
              {{"resourcepolicy", std::string(object->Key())}, {"error", view.error().message}});
    cache_.RemoveResourcePolicy(object->Namespace(), object->Name());
  } else {
    cache_.UpsertResourcePolicy(*view);
  }
  RetryParked();
  // Every policy of the namespace: the Conflict condition of the others depends on this one.
  EnqueuePolicyStatus(object->Namespace(), /*batch=*/false);
}

void SchedulerController::OnPodDeleted(const shim::ObjectPtr& object) {
  if (!object) return;
  if (cache_.HasResourcePolicies()) EnqueuePolicyStatus(object->Namespace(), /*batch=*/true);
  {
    std::lock_guard lock(parked_mu_);
    parked_pods_.erase(std::string(object->Key()));
  }
  if (cache_.RemovePod(object->Uid())) RetryParked();
}

void SchedulerController::OnReservation(const Document& reservation, const std::string& name, bool changed) {
  const Document* doc = &reservation;
  placement::ReservationView view = ReadReservationView(*doc);
  cache_.UpsertReservation(view);
  if (changed) RetryParked();
  if (view.expiry_deadline && !reconcile::IsTerminal(view.phase)) {
    // Look at it again at its deadline (any scheduler's: its held capacity is freed then), so
    // that parked pods are woken even when no lifecycle controller writes Failed.
    auto left = *view.expiry_deadline - std::chrono::system_clock::now();
    reservation_controller_->queue().AddAfter(name, std::max<std::chrono::nanoseconds>(left, std::chrono::nanoseconds(0)));
  }
  if (!IsOurs(json::GetString(*doc, {"spec", "template", "spec", "schedulerName"}))) return;
  if (json::Find(*doc, {"metadata", "deletionTimestamp"})) return;
  bool pending = view.phase == reconcile::Phase::kPending && view.node_name.empty();
  bool waiting = view.phase == reconcile::Phase::kWaiting && !view.node_name.empty();
  if (!pending && !waiting) return;
  {
    std::lock_guard lock(parked_mu_);
    if (parked_reservations_.contains(name)) return;
  }
  reservation_controller_->queue().Add(name);
}

}  // namespace berth::controllers
