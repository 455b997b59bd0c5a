// controllers/scheduler/scheduler_controller.cc
//
// SchedulerController setup and the pod half (schedule, bind, PodScheduled=False). The informer
// handlers and the parking of unschedulable keys are scheduler_events.cc; the reservation half is
// reservation_placer.cc.
#include "controllers/scheduler/scheduler_controller.h"

#include "controllers/common/api_discovery.h"
#include "controllers/scheduler/default_spread.h"
#include "controllers/scheduler/pod_requeue.h"

#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/reservation/reservation_metrics.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/pre_allocation_codec.h"
#include "controllers/scheduler/reservation_change.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_support.h"
#include "reconcile/placement/pod_constraints.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using scheduler_support::kLogger;
using scheduler_support::kReasonUnschedulable;
using scheduler_support::ReservationAllocatedValue;
using scheduler_support::ToJson;
using scheduler_support::Truncate;
namespace placement = reconcile::placement;

constexpr char kReservationsPath[] = "/apis/scheduling.koordinator.sh/v1alpha1/reservations";
constexpr char kResourcePoliciesPath[] = "/apis/scheduling.sigs.x-k8s.io/v1alpha1/resourcepolicies";

// ResourcePoliciesServed asks discovery whether the ResourcePolicy resource exists; only a clear
// "no" (a 404, a list without it) says so: otherwise the informer is created and retries.
bool ResourcePoliciesServed(shim::RestClient& rest) {
  return ResourceServed(rest, "scheduling.sigs.x-k8s.io/v1alpha1", "resourcepolicies").value_or(true);
}

shim::ObjectReference PodReference(const placement::PodSpecView& pod) {
  return shim::ObjectReference{"v1", "Pod", pod.namespace_name, pod.name, pod.uid, "", ""};
}

// PodScheduledUnchanged: the pod already says PodScheduled=False/Unschedulable with `message`.
bool PodScheduledUnchanged(const Value& pod, const std::string& message) {
  const Value* conditions = json::Find(pod, {"status", "conditions"});
  if (!conditions || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (json::GetString(c, {"type"}) != "PodScheduled") continue;
    return json::GetString(c, {"status"}) == "False" && json::GetString(c, {"reason"}) == kReasonUnschedulable &&
           json::GetString(c, {"message"}) == message;
  }
  return false;
}

}  // namespace

std::string scheduler_support::ReservationAllocatedValue(const placement::ReservationRef& ref) {
  Document d(rapidjson::kObjectType);
  json::SetString(d, "name", ref.name, d.GetAllocator());
  json::SetString(d, "uid", ref.uid, d.GetAllocator());
  return json::Serialize(d);
}

std::vector<std::string> ParseSchedulerNames(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

SchedulerController::SchedulerController(shim::RestClientPtr rest, SchedulerControllerOptions options)
    : options_(std::move(options)),
      rest_(rest),
      client_(std::move(rest)),
      cache_(placement::SchedulerOptions{options_.scoring}) {}

SchedulerController::~SchedulerController() {
  for (auto& [name, recorder] : recorders_) recorder->Stop();
}

shim::EventRecorder& SchedulerController::RecorderFor(std::string_view scheduler_name) {
  auto it = recorders_.find(scheduler_name);
  // Only served names reach here; the first profile's recorder stands in for anything else.
  if (it == recorders_.end()) it = recorders_.find(options_.scheduler_names.front());
  return *it->second;
}

Result<std::unique_ptr<SchedulerController>> SchedulerController::Setup(
    shim::Manager& manager, shim::RestClientPtr rest, SchedulerControllerOptions options) {
  if (options.scheduler_names.empty()) return MakeError(ErrorCode::kInvalidArgument, "no scheduler names");
  std::unique_ptr<SchedulerController> c(new SchedulerController(rest, std::move(options)));
  for (const std::string& name : c->options_.scheduler_names) {
    shim::EventRecorderOptions events;
    events.rest = rest;
    events.component = name;  // kube-scheduler: the profile's schedulerName
    events.max_queue = 10000;
    c->recorders_.emplace(name, std::make_unique<shim::EventRecorder>(events));
  }

  auto& reg = manager.registry();
  auto attempts = reg.AddCounter("berth_scheduler_attempts_total",
                                 "Scheduling attempts of pods and Reservations by result.", {"kind", "result"});
  auto transitions = RegisterReservationTransitions(reg);
  if (!attempts || !transitions) return MakeError(ErrorCode::kInternal, "registering scheduler metrics failed");
  c->attempts_ = *attempts;
  c->transitions_ = *transitions;
  // Every series at zero from the start, as controller-runtime does for reconcile_total, so
  // rate() and the dashboard work before the first attempt.
  for (const char* kind : {"pod", "reservation"}) {
    for (const char* result : {"scheduled", "unschedulable", "error"}) c->attempts_->WithLabelValues({kind, result});
  }

  auto& informers = manager.informers();
  c->reservations_ = informers.InformerFor(shim::InformerKey{kReservationsPath, "", ""});
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  c->namespaces_ = informers.InformerFor(shim::InformerKey{"/api/v1/namespaces", "", ""});
  // Read at preemption time only (which victims a budget protects): no handler.
  c->pdbs_ = informers.InformerFor(shim::InformerKey{"/apis/policy/v1/poddisruptionbudgets", "", ""});
  // Read at decision time for PodTopologySpread's system defaults (ApplyDefaultSpread): no
  // handler. ReplicationControllers are not watched (kube-scheduler also reads those).
  c->services_ = informers.InformerFor(shim::InformerKey{"/api/v1/services", "", ""});
  c->replicasets_ = informers.InformerFor(shim::InformerKey{"/apis/apps/v1/replicasets", "", ""});
  c->statefulsets_ = informers.InformerFor(shim::InformerKey{"/apis/apps/v1/statefulsets", "", ""});
  if (!c->services_->AddIndexers({{shim::kNamespaceIndex, shim::NamespaceIndexFunc()}})) {
    return MakeError(ErrorCode::kInternal, "adding the scheduler's service namespace index failed");
  }
  // The ResourcePolicy CRD may be missing (Helm installs crds/ only on the first install): then
  // the scheduler runs without policies rather than wait forever for an informer that cannot sync.
  if (ResourcePoliciesServed(*rest)) {
    c->resource_policies_ = informers.InformerFor(shim::InformerKey{kResourcePoliciesPath, "", ""});
  } else {
    log::Warn(kLogger, "ResourcePolicy CRD not served; placement ignores ResourcePolicies until berth restarts",
              {{"path", kResourcePoliciesPath}});
  }

  SchedulerController* self = c.get();
  auto pod_controller = manager.AddController(
      shim::ControllerOptions{"pod-scheduler", c->options_.pod_workers, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->ReconcilePod(key); });
  if (!pod_controller) return std::unexpected(pod_controller.error());
  c->pod_controller_ = *pod_controller;
  auto reservation_controller = manager.AddController(
      shim::ControllerOptions{"reservation-scheduler", c->options_.reservation_workers, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->ReconcileReservation(key); });
  if (!reservation_controller) return std::unexpected(reservation_controller.error());
  c->reservation_controller_ = *reservation_controller;
  auto status_controller = manager.AddController(
      shim::ControllerOptions{"resourcepolicy-status", 1, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->ReconcilePolicyStatus(key); });
  if (!status_controller) return std::unexpected(status_controller.error());
  c->status_controller_ = *status_controller;

  c->nodes_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) {
        auto doc = ToJson(obj);
        if (doc && self->cache_.UpsertNode(ReadNodeView(*doc, self->options_.prefer_avoid_ttl))) self->OnNodeChanged();
      },
      [self](const shim::ObjectPtr&, const shim::ObjectPtr& obj) {
        auto doc = ToJson(obj);
        if (doc && self->cache_.UpsertNode(ReadNodeView(*doc, self->options_.prefer_avoid_ttl))) self->OnNodeChanged();
      },
      [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        self->cache_.RemoveNode(deleted.object->Name());
        if (self->cache_.HasResourcePolicies()) self->EnqueuePolicyStatus("", /*batch=*/true);
      }});
  // Namespace labels decide which pods a namespaceSelector term covers: a change may admit or
  // repel parked pods.
  auto on_namespace = [self](const shim::ObjectPtr& obj) {
    auto doc = ToJson(obj);
    if (!doc) return;
    placement::LabelMap labels;
    if (const auto* l = json::Find(*doc, {"metadata", "labels"}); l && l->IsObject()) {
      for (const auto& m : l->GetObject()) {
        if (m.value.IsString()) labels.emplace(m.name.GetString(), m.value.GetString());
      }
    }
    if (self->cache_.UpsertNamespace(obj->Name(), labels)) self->RetryParked();
  };
  c->namespaces_->AddEventHandler(shim::EventHandler{
      [on_namespace](const shim::ObjectPtr& obj, bool) { on_namespace(obj); },
      [on_namespace](const shim::ObjectPtr&, const shim::ObjectPtr& obj) { on_namespace(obj); },
      [self](const shim::DeletedObject& deleted) {
        if (deleted.object) self->cache_.RemoveNamespace(deleted.object->Name());
      }});
  c->pods_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) { self->OnPod(nullptr, obj); },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& obj) { self->OnPod(old_obj, obj); },
      [self](const shim::DeletedObject& deleted) { self->OnPodDeleted(deleted.object); },
      [self](const std::vector<shim::ObjectPtr>& pods) { self->OnInitialPods(pods); }});
  // ResourcePolicies steer placement: any change may free (or close) units, so parked pods retry.
  if (c->resource_policies_) c->resource_policies_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) { self->OnResourcePolicy(obj); },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& obj) {
        // Status writes (ours) leave metadata.generation alone: nothing to recount.
        if (old_obj && old_obj->FindJson({"metadata", "generation"}) == obj->FindJson({"metadata", "generation"}) &&
            LabelsEqual(*old_obj, *obj)) {
          return;
        }
        self->OnResourcePolicy(obj);
      },
      [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        self->cache_.RemoveResourcePolicy(deleted.object->Namespace(), deleted.object->Name());
        self->RetryParked();
        // The others' Conflict condition may clear now.
        self->EnqueuePolicyStatus(deleted.object->Namespace(), /*batch=*/false);
      }});
  c->reservations_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) {
        if (auto doc = ToJson(obj)) self->OnReservation(*doc, std::string(obj->Name()), true);
      },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& obj) {
        // Only changes that move capacity or eligibility wake parked work (phase, node, spec,
        // allocatable, first/last owner); our own condition writes and owner syncs do not, and
        // are told apart on the cached form without converting either object.
        ReservationChange change = DiffReservation(old_obj.get(), *obj);
        if (!change.any()) return;  // an owner/allocated sync or a condition refresh
        auto after = ToJson(obj);
        if (!after) return;
        self->OnReservation(*after, std::string(obj->Name()), change.capacity);
      },
      [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        self->cache_.RemoveReservation(deleted.object->Uid());
        {
          std::lock_guard lock(self->parked_mu_);
          self->parked_reservations_.erase(std::string(deleted.object->Name()));
        }
        self->RetryParked();
      }});
  return c;
}

void SchedulerController::ApplyDefaultSpread(placement::PodSpecView& view) const {
  if (!view.topology_spread.empty()) return;
  std::vector<rapidjson::Document> service_selectors;
  if (services_) {
    if (auto services = services_->store().ByIndex(shim::kNamespaceIndex, view.namespace_name); services) {
      for (const shim::ObjectPtr& service : *services) {
        if (auto selector = service->FindJson({"spec", "selector"})) service_selectors.push_back(std::move(*selector));
      }
    }
  }
  const placement::PodOwnerReference* owner = nullptr;
  const SpreadOwnerKind kind = SpreadOwnerOf(view, &owner);
  const shim::SharedInformer* owners = kind == SpreadOwnerKind::kReplicaSet    ? replicasets_.get()
                                       : kind == SpreadOwnerKind::kStatefulSet ? statefulsets_.get()
                                                                               : nullptr;
  std::optional<rapidjson::Document> owner_selector;
  if (owners != nullptr && owner != nullptr) {
    if (shim::ObjectPtr workload = owners->store().Get(view.namespace_name + "/" + owner->name)) {
      owner_selector = workload->FindJson({"spec", "selector"});
    }
  }
  if (service_selectors.empty() && !owner_selector) return;  // the common case: nothing to build
  std::vector<const rapidjson::Value*> selectors;
  selectors.reserve(service_selectors.size());
  for (const auto& s : service_selectors) selectors.push_back(&s);
  view.default_spread_selector =
      DefaultSpreadSelector(view.labels, selectors, kind, owner_selector ? &*owner_selector : nullptr);
}

bool SchedulerController::IsOurs(std::string_view scheduler_name) const {
  return std::find(options_.scheduler_names.begin(), options_.scheduler_names.end(), scheduler_name) !=
         options_.scheduler_names.end();
}

// ---- Pods ----------------------------------------------------------------------------------

void SchedulerController::WakeOnExpiry() {
  // Capacity an expired reservation held is free for other pods now: wake the parked ones.
  if (!cache_.TakeExpired().empty()) RetryParked();
}

shim::ReconcileResult SchedulerController::ReconcilePod(const std::string& key) {
  WakeOnExpiry();
  shim::ObjectPtr cached = pods_->store().Get(key);
  if (!cached) return shim::ReconcileResult::Done();
  if (auto node = cached->FindString({"spec", "nodeName"}); node && !node->empty()) {
    return options_.adopt_bound_pods ? AdoptBoundPod(cached) : shim::ReconcileResult::Done();
  }
  auto doc = ToJson(cached);
  if (!doc) return shim::ReconcileResult::Done();
  if (!IsOurs(json::GetString(*doc, {"spec", "schedulerName"})) || json::Find(*doc, {"metadata", "deletionTimestamp"}) ||
      PodIsTerminal(*doc)) {
    return shim::ReconcileResult::Done();
  }
  // Gated: not attempted at all (the gates' removal is a pod update, which queues it again).
  if (PodIsSchedulingGated(*doc)) return shim::ReconcileResult::Done();
  placement::PodSpecView view = ReadPodView(*doc);
  if (view.uid.empty() || cache_.IsPodAssumed(view.uid)) return shim::ReconcileResult::Done();
  ApplyDefaultSpread(view);
  // A nomination written earlier (or by a previous leader) keeps its room from less important pods.
  cache_.SetNomination(view, view.priority.nominated_node_name);
  uint64_t seen = cluster_generation_.load();
  uint64_t seen_arrivals = pod_arrivals_.load();
  placement::PodDecision decision = cache_.ScheduleAndAssumePod(view);
  if (!decision) return HandleUnschedulable(*doc, key, view, decision.error(), seen, seen_arrivals);
  return Bind(json::GetString(*doc, {"spec", "schedulerName"}), view, *decision);
}

shim::ReconcileResult SchedulerController::Bind(std::string_view scheduler_name, const placement::PodSpecView& view,
                                                const placement::PodPlacement& placement, std::string* not_bound) {
  Document binding(rapidjson::kObjectType);
  auto& a = binding.GetAllocator();
  json::SetString(binding, "apiVersion", "v1", a);
  json::SetString(binding, "kind", "Binding", a);
  Value& meta = json::EnsureObject(binding, "metadata", a);
  json::SetString(meta, "name", view.name, a);
  json::SetString(meta, "namespace", view.namespace_name, a);
  json::SetString(meta, "uid", view.uid, a);
  if (placement.reservation) {
    // The binding storage copies these onto the pod in the same write that sets nodeName, so the
    // lifecycle controller never sees the pod bound without its reservation.
    Value& annotations = json::EnsureObject(meta, "annotations", a);
    json::SetString(annotations, kReservationAllocatedAnnotation, ReservationAllocatedValue(*placement.reservation), a);
  }
  Value& target = json::EnsureObject(binding, "target", a);
  json::SetString(target, "apiVersion", "v1", a);
  json::SetString(target, "kind", "Node", a);
  json::SetString(target, "name", placement.node_name, a);
  shim::RestRequest request;
  request.method = "POST";
  request.path = shim::ResourcePath(shim::ResourceRef{"", "v1", "pods", view.namespace_name, view.name}, "binding");
  request.body = json::Serialize(binding);
  auto response = rest_->Do(request);
  if (!response) {
    const Error& error = response.error();
    const std::string key = view.namespace_name + "/" + view.name;
    attempts_->WithLabelValues({"pod", "error"}).Inc();
    if (auto bound_to = AlreadyAssignedNode(error)) {
      // The pod has a node: ours when an earlier attempt landed but its answer was lost (keep
      // the assumption until the informer confirms it, so the capacity stays booked), someone
      // else's otherwise (the informer brings that pod and its node).
      if (*bound_to != placement.node_name) {
        cache_.ForgetPod(view.uid);
        if (not_bound) *not_bound = "pod " + key + " is already assigned to node " + *bound_to;
      }
      log::Info(kLogger, "pod is already bound", {{"pod", key}, {"node", *bound_to}});
      return shim::ReconcileResult::Done();
    }
    cache_.ForgetPod(view.uid);
    if (IsGone(error)) {
      log::Info(kLogger, "pod to bind is gone", {{"pod", key}});
      if (not_bound) *not_bound = "pod " + key + " is gone: " + error.message;
      return shim::ReconcileResult::Done();
    }
    // 409 (a conflict injected or caused by a stale cache, a uid mismatch of a recreated pod, a
    // pod being deleted), 429, 5xx, timeouts: try again with backoff, deciding again from the
    // cache (the assumption was dropped, so no capacity stays booked for a pod not bound).
    LogWriteRetry(kLogger, "binding", key, error);
    return shim::ReconcileResult::Error("binding " + key + ": " + error.message);
  }
  attempts_->WithLabelValues({"pod", "scheduled"}).Inc();
  if (options_.pod_scheduled_events) {
    RecorderFor(scheduler_name).Event(PodReference(view), shim::EventType::kNormal, "Scheduled",
                     "Successfully assigned " + view.namespace_name + "/" + view.name + " to " + placement.node_name);
  }
  return shim::ReconcileResult::Done();
}

shim::ReconcileResult SchedulerController::MarkPodUnschedulable(const Value& pod, const std::string& key,
                                                                const std::string& message,
                                                                const std::optional<std::string>& nomination,
                                                                uint64_t seen, uint64_t seen_arrivals,
                                                                bool waits_on_pods) {
  attempts_->WithLabelValues({"pod", "unschedulable"}).Inc();
  placement::PodSpecView view = ReadPodView(pod);
  const bool nomination_unchanged = !nomination || *nomination == json::GetString(pod, {"status", "nominatedNodeName"});
  if (!PodScheduledUnchanged(pod, message) || !nomination_unchanged) {
    Document patch(rapidjson::kObjectType);
    auto& a = patch.GetAllocator();
    Value condition(rapidjson::kObjectType);
    json::SetString(condition, "type", "PodScheduled", a);
    json::SetString(condition, "status", "False", a);
    json::SetString(condition, "reason", kReasonUnschedulable, a);
    json::SetString(condition, "message", message, a);
    condition.AddMember("lastProbeTime", Value(rapidjson::kNullType), a);
    json::SetString(condition, "lastTransitionTime", shim::FormatTimestamp(std::chrono::system_clock::now()), a);
    Value conditions(rapidjson::kArrayType);
    conditions.PushBack(condition, a);
    Value& status = json::EnsureObject(patch, "status", a);
    status.AddMember("conditions", conditions, a);
    if (nomination && nomination->empty()) {
      status.AddMember("nominatedNodeName", Value(rapidjson::kNullType), a);  // cleared
    } else if (nomination) {
      json::SetString(status, "nominatedNodeName", *nomination, a);
    }
    auto written = client_.Patch(shim::ResourceRef{"", "v1", "pods", view.namespace_name, view.name},
                                 json::Serialize(patch), shim::kStrategicMergePatch, "status");
    if (!written) {
      if (IsGone(written.error())) return shim::ReconcileResult::Done();
      // Not parked: a parked pod waits for a cluster change and would keep no condition
      // explaining why it is Pending. Retried with backoff (and decided again).
      LogWriteRetry(kLogger, "PodScheduled condition update", key, written.error());
      RecorderFor(json::GetString(pod, {"spec", "schedulerName"}))
          .Event(PodReference(view), shim::EventType::kWarning, "FailedScheduling", Truncate(message));
      return shim::ReconcileResult::Error("PodScheduled of " + key + ": " + written.error().message);
    }
  }
  RecorderFor(json::GetString(pod, {"spec", "schedulerName"}))
          .Event(PodReference(view), shim::EventType::kWarning, "FailedScheduling", Truncate(message));
  ParkPod(key, seen, seen_arrivals, waits_on_pods);
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
