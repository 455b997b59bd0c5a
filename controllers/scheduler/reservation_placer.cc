// controllers/scheduler/reservation_placer.cc
//
// The reservation half of SchedulerController (declared in scheduler_controller.h): places
// Pending Reservations (plain or preAllocation), writes their status and Events, and promotes
// Waiting ones to Available once their node has room or their pre-allocated pods are gone.
#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/reservation/reservation_metrics.h"
#include "controllers/scheduler/pre_allocation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using scheduler_support::kGroup;
using scheduler_support::kLogger;
using scheduler_support::kReasonUnschedulable;
using scheduler_support::kVersion;
using scheduler_support::ToJson;
using scheduler_support::Truncate;
namespace placement = reconcile::placement;

constexpr std::string_view kReasonScheduled = "Scheduled";
constexpr std::string_view kReasonAvailable = "Available";
constexpr std::string_view kReasonWaiting = "Waiting";

shim::ObjectReference ReservationReference(const std::string& name, const std::string& uid) {
  return shim::ObjectReference{std::string(kGroup) + "/" + kVersion, "Reservation", "", name, uid, "", ""};
}

const reconcile::Condition* FindCondition(const std::vector<reconcile::Condition>& conditions,
                                          std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// SetCondition updates or appends one condition; lastTransitionTime moves only with status.
void SetCondition(std::vector<reconcile::Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string_view message,
                  reconcile::Time now) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    if (c.status != status || !c.last_transition_time) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.last_probe_time = now;
    return;
  }
  conditions.push_back({std::string(type), std::string(status), std::string(reason),
                        std::string(message), now, now});
}

}  // namespace

shim::ReconcileResult SchedulerController::ReconcileReservation(const std::string& name) {
  WakeOnExpiry();
  auto doc = ToJson(reservations_->store().Get(name));
  if (!doc) return shim::ReconcileResult::Done();
  if (json::Find(*doc, {"metadata", "deletionTimestamp"})) return shim::ReconcileResult::Done();
  auto phase = reconcile::ParsePhase(json::GetString(*doc, {"status", "phase"}));
  if (!phase || reconcile::IsTerminal(*phase)) return shim::ReconcileResult::Done();
  // Past its deadline a reservation is neither placed nor promoted: the lifecycle controller
  // fails it (and the cache already treats it as gone). Before it, look again at the deadline.
  std::optional<reconcile::Time> deadline = ReadExpiryDeadline(*doc);
  auto now = std::chrono::system_clock::now();
  if (deadline && *deadline <= now) return shim::ReconcileResult::Done();
  shim::ReconcileResult result = shim::ReconcileResult::Done();
  if (IsOurs(json::GetString(*doc, {"spec", "template", "spec", "schedulerName"}))) {
    bool placed = !json::GetString(*doc, {"status", "nodeName"}).empty();
    uint64_t seen = cluster_generation_.load();
    if (*phase == reconcile::Phase::kPending && !placed) result = PlaceReservation(*doc, name, seen);
    if (*phase == reconcile::Phase::kWaiting && placed) result = PromoteWaiting(*doc, name, seen);
  }
  if (deadline && result.kind == shim::ReconcileResult::Kind::kDone) {
    return shim::ReconcileResult::RequeueAfter(*deadline - now + std::chrono::milliseconds(1));
  }
  return result;
}

shim::ReconcileResult SchedulerController::PlaceReservation(Document& doc, const std::string& name, uint64_t seen) {
  std::string uid(json::GetString(doc, {"metadata", "uid"}));
  if (uid.empty()) return shim::ReconcileResult::Done();
  // An earlier placement whose write failed is written again as it was (sticky): owner pods
  // may already be bound into it on its node. Otherwise an assumed one awaits its informer event.
  std::optional<placement::ReservationPlacement> unwritten = cache_.UnwrittenPlacement(uid);
  if (!unwritten && cache_.IsReservationAssumed(uid)) return shim::ReconcileResult::Done();
  reconcile::ReservationSnapshot snapshot = ReadReservation(doc);
  if (!snapshot.spec_errors.empty()) {
    // The lifecycle controller reports it (Ready=False, InvalidSpec, naming the fields). Placing
    // it anyway would hold capacity for amounts (an unparsable quantity) or a lifetime berth
    // cannot read. Fixing the spec is an update, which brings it back here.
    attempts_->WithLabelValues({"reservation", "unschedulable"}).Inc();
    log::Info(kLogger, "reservation not placed: invalid spec",
              {{"reservation", name}, {"error", snapshot.spec_errors.front()}});
    return shim::ReconcileResult::Done();
  }
  placement::PodSpecView template_pod = ReadTemplateView(doc);
  placement::ReservationView view = ReadReservationView(doc);
  view.pre_allocated.clear();  // a Pending reservation is decided afresh
  bool pre_allocation = ReadPreAllocationEnabled(doc);
  placement::ReservationDecision decision;
  if (unwritten) {
    decision = std::move(*unwritten);
  } else if (pre_allocation) {
    placement::PreAllocationPolicy policy = ReadPreAllocationPolicy(doc);
    decision = cache_.PlacePreAllocationAndAssume(template_pod, view, PreAllocatablePods(policy), policy,
                                                  options_.pre_allocation);
  } else {
    decision = cache_.PlaceAndAssumeReservation(template_pod, view, false);
  }
  reconcile::ReservationStatus status = std::move(snapshot.status);
  auto now = std::chrono::system_clock::now();
  auto write = [&]() -> Result<Document> {
    Value& out = json::EnsureObject(doc, "status", doc.GetAllocator());
    out = StatusJson(status, doc.GetAllocator());
    json::SetString(doc, "apiVersion", std::string(kGroup) + "/" + kVersion, doc.GetAllocator());
    json::SetString(doc, "kind", "Reservation", doc.GetAllocator());
    return client_.UpdateStatus(shim::ResourceRef{kGroup, kVersion, "reservations", "", name}, doc);
  };
  if (!decision) {
    attempts_->WithLabelValues({"reservation", "unschedulable"}).Inc();
    std::string message = decision.error().Message();
    const reconcile::Condition* scheduled = FindCondition(status.conditions, reconcile::kConditionScheduled);
    if (!scheduled || scheduled->status != "False" || scheduled->reason != kReasonUnschedulable ||
        scheduled->message != message) {
      SetCondition(status.conditions, reconcile::kConditionScheduled, "False", kReasonUnschedulable, message, now);
      status.phase = reconcile::Phase::kPending;
      auto written = write();
      if (!written) {
        if (IsGone(written.error())) return shim::ReconcileResult::Done();
        LogWriteRetry(kLogger, "reservation Unschedulable status update", name, written.error());
        return shim::ReconcileResult::Error("status update of reservation " + name + ": " + written.error().message);
      }
    }
    RecorderFor(json::GetString(doc, {"spec", "template", "spec", "schedulerName"}))
      .Event(ReservationReference(name, uid), shim::EventType::kWarning, "FailedScheduling", Truncate(message));
    ParkReservation(name, seen);
    return shim::ReconcileResult::Done();
  }
  const placement::ReservationPlacement& where = *decision;
  // Record the pre-allocated pods first (the status subresource ignores metadata), so that a
  // restart between the two writes finds a Pending reservation, decided again, never a Waiting
  // one without its pods.
  std::string recorded = where.pre_allocated.empty() ? "" : FormatPreAllocatedPods(where.pre_allocated);
  const Value* old_record = json::Find(doc, {"metadata", "annotations", kPreAllocatedPodsAnnotation});
  if (!recorded.empty() || old_record) {
    Document patch(rapidjson::kObjectType);
    auto& pa = patch.GetAllocator();
    Value& annotations = json::EnsureObject(json::EnsureObject(patch, "metadata", pa), "annotations", pa);
    if (recorded.empty()) {
      annotations.AddMember(Value(kPreAllocatedPodsAnnotation, pa), Value(rapidjson::kNullType), pa);
    } else {
      json::SetString(annotations, kPreAllocatedPodsAnnotation, recorded, pa);
    }
    auto patched = client_.Patch(shim::ResourceRef{kGroup, kVersion, "reservations", "", name}, json::Serialize(patch),
                                 shim::kMergePatch);
    if (!patched) {
      attempts_->WithLabelValues({"reservation", "error"}).Inc();
      if (IsGone(patched.error())) {
        cache_.ForgetReservation(uid);
        return shim::ReconcileResult::Done();
      }
      cache_.MarkPlacementUnwritten(uid);
      LogWriteRetry(kLogger, "recording pre-allocated pods", name, patched.error());
      return shim::ReconcileResult::Error("recording pre-allocated pods of reservation " + name + ": " +
                                          patched.error().message);
    }
    doc = std::move(*patched);  // the status write needs the new resourceVersion
  }
  status.phase = where.phase;
  status.node_name = where.node_name;
  status.allocatable = where.allocatable;
  std::erase_if(status.allocatable, [](const auto& e) { return e.first == placement::kResourcePods; });
  bool waiting = where.phase == reconcile::Phase::kWaiting;
  std::string waiting_message;
  if (waiting) {
    waiting_message = where.pre_allocated.empty() ? "node " + where.node_name + " has not enough free resources yet"
                                                  : WaitingMessage(where.pre_allocated);
  }
  status.conditions = {
      reconcile::Condition{std::string(reconcile::kConditionScheduled), "True", std::string(kReasonScheduled), "", now, now},
      reconcile::Condition{std::string(reconcile::kConditionReady), waiting ? "False" : "True",
                           std::string(waiting ? kReasonWaiting : kReasonAvailable), waiting_message, now, now}};
  auto written = write();
  if (!written) {
    attempts_->WithLabelValues({"reservation", "error"}).Inc();
    if (IsGone(written.error())) {
      cache_.ForgetReservation(uid);
      return shim::ReconcileResult::Done();
    }
    // Kept assumed on its node (pods may be bound into it already); the retry writes the same
    // placement. Forgetting it here let the retry place it on another node.
    cache_.MarkPlacementUnwritten(uid);
    // A conflict means the cache was stale; the informer brings the newer version.
    LogWriteRetry(kLogger, "reservation placement status update", name, written.error());
    return shim::ReconcileResult::Error("status update of reservation " + name + ": " + written.error().message);
  }
  attempts_->WithLabelValues({"reservation", "scheduled"}).Inc();
  transitions_->WithLabelValues({std::string(reconcile::PhaseName(reconcile::Phase::kPending)),
                                 std::string(reconcile::PhaseName(where.phase)), std::string(kReasonScheduled)})
      .Inc();
  log::Debug(kLogger, "reservation placed", {{"reservation", name}, {"node", where.node_name},
                                             {"phase", std::string(reconcile::PhaseName(where.phase))}});
  RecorderFor(json::GetString(doc, {"spec", "template", "spec", "schedulerName"}))
      .Event(ReservationReference(name, uid), shim::EventType::kNormal, "Scheduled",
                   "Successfully assigned " + name + " to " + where.node_name);
  return shim::ReconcileResult::Done();
}

shim::ReconcileResult SchedulerController::PromoteWaiting(Document& doc, const std::string& name, uint64_t seen) {
  std::string uid(json::GetString(doc, {"metadata", "uid"}));
  placement::WaitingDecision decision = cache_.DecideWaiting(uid);
  reconcile::ReservationStatus status = ReadReservation(doc).status;
  auto now = std::chrono::system_clock::now();
  if (decision.state != placement::WaitingState::kAvailable) {
    // Keep the message naming what it still waits for (pods leave one by one).
    std::string message = decision.state == placement::WaitingState::kPodsRunning
                              ? WaitingMessage(decision.running)
                              : "node " + status.node_name + " has not enough free resources yet";
    const reconcile::Condition* ready = FindCondition(status.conditions, reconcile::kConditionReady);
    if (ready && ready->message != message) {
      SetCondition(status.conditions, reconcile::kConditionReady, "False", kReasonWaiting, message, now);
      Value& out = json::EnsureObject(doc, "status", doc.GetAllocator());
      out = StatusJson(status, doc.GetAllocator());
      json::SetString(doc, "apiVersion", std::string(kGroup) + "/" + kVersion, doc.GetAllocator());
      json::SetString(doc, "kind", "Reservation", doc.GetAllocator());
      auto written = client_.UpdateStatus(shim::ResourceRef{kGroup, kVersion, "reservations", "", name}, doc);
      if (!written) {
        if (IsGone(written.error())) return shim::ReconcileResult::Done();
        LogWriteRetry(kLogger, "reservation Waiting message update", name, written.error());
        return shim::ReconcileResult::Error("status update of reservation " + name + ": " + written.error().message);
      }
    }
    ParkReservation(name, seen);
    return shim::ReconcileResult::Done();
  }
  status.phase = reconcile::Phase::kAvailable;
  SetCondition(status.conditions, reconcile::kConditionReady, "True", kReasonAvailable, "", now);
  Value& out = json::EnsureObject(doc, "status", doc.GetAllocator());
  out = StatusJson(status, doc.GetAllocator());
  json::SetString(doc, "apiVersion", std::string(kGroup) + "/" + kVersion, doc.GetAllocator());
  json::SetString(doc, "kind", "Reservation", doc.GetAllocator());
  auto written = client_.UpdateStatus(shim::ResourceRef{kGroup, kVersion, "reservations", "", name}, doc);
  if (!written) {
    if (IsGone(written.error())) return shim::ReconcileResult::Done();
    LogWriteRetry(kLogger, "reservation Available status update", name, written.error());
    return shim::ReconcileResult::Error("status update of reservation " + name + ": " + written.error().message);
  }
  transitions_->WithLabelValues({std::string(reconcile::PhaseName(reconcile::Phase::kWaiting)),
                                 std::string(reconcile::PhaseName(reconcile::Phase::kAvailable)),
                                 std::string(kReasonAvailable)})
      .Inc();
  log::Info(kLogger, "waiting reservation is available", {{"reservation", name}});
  RecorderFor(json::GetString(doc, {"spec", "template", "spec", "schedulerName"}))
      .Event(ReservationReference(name, uid), shim::EventType::kNormal, std::string(kReasonAvailable),
                   "Reservation " + name + " is available on " + status.node_name);
  return shim::ReconcileResult::Done();
}

std::vector<placement::PreAllocatablePod> SchedulerController::PreAllocatablePods(
    const placement::PreAllocationPolicy& policy) const {
  const placement::PreAllocationOptions& options = options_.pre_allocation;
  std::vector<placement::PreAllocatablePod> out;
  if (policy.mode == placement::PreAllocationMode::kCluster && !options.enable_cluster_mode) return out;
  for (const shim::ObjectPtr& pod : pods_->store().List()) {
    auto node = pod->FindString({"spec", "nodeName"});
    if (!node || node->empty()) continue;
    // Cheap pre-filters on the packed form, so that only possible candidates are converted:
    // IsPreAllocatable refuses finished, deleting and reservation-consuming pods anyway (a pod
    // carrying any reservation-allocated annotation, even a malformed one, is left out here).
    auto phase = pod->FindString({"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") continue;
    if (pod->FindString({"metadata", "deletionTimestamp"})) continue;
    if (pod->FindString({"metadata", "annotations", kReservationAllocatedAnnotation})) continue;
    if (policy.mode == placement::PreAllocationMode::kCluster &&
        pod->FindString({"metadata", "labels", options.cluster_label_key}) != "true") {
      continue;  // cheap pre-filter: only labelled pods are converted
    }
    auto doc = ToJson(pod);
    if (!doc) continue;
    out.push_back(ReadPreAllocatablePod(*doc, options.cluster_priority_annotation_key));
  }
  return out;
}

std::string SchedulerController::WaitingMessage(const std::vector<placement::PreAllocatedPod>& running) const {
  std::string message = "waiting for the pre-allocated pods to terminate:";
  for (size_t i = 0; i < running.size(); ++i) {
    const placement::PreAllocatedPod& p = running[i];
    message += (i == 0 ? " " : ", ") + p.namespace_name + "/" + p.name;
    auto doc = ToJson(pods_->store().Get(p.namespace_name + "/" + p.name));
    if (!doc || json::GetString(*doc, {"metadata", "uid"}) != p.uid) continue;
    placement::PodSpecView view = ReadPodView(*doc);
    Document amounts;
    Value written = WriteAmounts(view.requests, amounts.GetAllocator());
    std::string held;
    for (const auto& m : written.GetObject()) {
      if (!held.empty()) held += ", ";
      held += std::string(m.name.GetString()) + " " + m.value.GetString();
    }
    if (!held.empty()) message += " (" + held + ")";
  }
  return message;
}

}  // namespace berth::controllers
