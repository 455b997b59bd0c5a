// controllers/provisioning/provisioning_controller.cc
#include "controllers/provisioning/provisioning_controller.h"

#include "controllers/common/api_discovery.h"

#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/cache/transform.h"
#include "controllers/provisioning/provisioning_codec.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_support.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/pod_builder.h"
#include "reconcile/provisioning/routing.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;
namespace prov = reconcile::provisioning;
namespace placement = reconcile::placement;
using scheduler_support::ToJson;

constexpr char kLogger[] = "provisioningrequest";
constexpr char kReservationsPath[] = "/apis/scheduling.koordinator.sh/v1alpha1/reservations";
constexpr char kConsumerIndex[] = "consume-provisioning-request";
constexpr char kBookingUidIndex[] = "provisioning-request-uid";
// A Reservation create the cache has not shown after this long is forgotten (the next pass
// decides from what the API server has).
constexpr auto kPendingCreateTimeout = std::chrono::seconds(60);

std::optional<std::string> ConsumedRequest(const shim::CachedObject& pod) {
  for (const char* key : {kConsumeProvisioningRequestAnnotation, kConsumeProvisioningRequestAnnotationDeprecated}) {
    auto v = pod.FindString({"metadata", "annotations", key});
    if (v && !v->empty()) return prov::ConsumerKey(pod.Namespace(), *v);
  }
  return std::nullopt;
}

bool Terminal(const shim::CachedObject& pod) {
  auto phase = pod.FindString({"status", "phase"});
  return phase && (*phase == "Succeeded" || *phase == "Failed");
}

shim::ResourceRef ReservationRef(std::string_view name) {
  return shim::ResourceRef{"scheduling.koordinator.sh", "v1alpha1", "reservations", "", std::string(name)};
}

bool HasFinalizer(const Value& object) {
  const Value* list = json::Find(object, {"metadata", "finalizers"});
  if (!list || !list->IsArray()) return false;
  for (const auto& f : list->GetArray()) {
    if (f.IsString() && std::string_view(f.GetString()) == kBookingFinalizer) return true;
  }
  return false;
}

// FinalizerPatch: a merge patch setting metadata.finalizers to the current list with ours added
// or removed, guarded by the resourceVersion it was computed from.
Document FinalizerPatch(const Value& object, std::string_view resource_version, bool present) {
  Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  Value list(rapidjson::kArrayType);
  if (const Value* old = json::Find(object, {"metadata", "finalizers"}); old && old->IsArray()) {
    for (const auto& f : old->GetArray()) {
      if (f.IsString() && std::string_view(f.GetString()) == kBookingFinalizer) continue;
      list.PushBack(Value(f, a), a);
    }
  }
  if (present) list.PushBack(Value(kBookingFinalizer, a), a);
  Value meta(rapidjson::kObjectType);
  meta.AddMember("finalizers", list, a);
  meta.AddMember("resourceVersion", Value(resource_version.data(), static_cast<rapidjson::SizeType>(resource_version.size()), a), a);
  patch.AddMember("metadata", meta, a);
  return patch;
}

// Served: whether GET /apis/autoscaling.x-k8s.io/<version> lists provisioningrequests; nullopt
// when discovery could not answer (not a 404).
std::optional<bool> Served(shim::RestClient& rest, std::string_view version) {
  return ResourceServed(rest, std::string(kProvisioningGroup) + "/" + std::string(version), "provisioningrequests");
}

// ServedVersion: v1 unless discovery says only v1beta1 is served (an older CRD left in place,
// e.g. provisioningRequest.installCRD=false under Cluster Autoscaler < 1.31).
std::string ServedVersion(shim::RestClient& rest) {
  if (Served(rest, kProvisioningVersion).value_or(true)) return kProvisioningVersion;
  if (Served(rest, kProvisioningVersionV1beta1).value_or(false)) {
    log::Warn(kLogger, "ProvisioningRequest v1 is not served; using the deprecated v1beta1 (same schema). "
                       "Upgrade the CRD to Cluster Autoscaler's 1.31 or later, which serves v1",
              {{"group", kProvisioningGroup}});
    return kProvisioningVersionV1beta1;
  }
  log::Error(kLogger, "the ProvisioningRequest CRD is not served (neither v1 nor v1beta1): install it, or run "
                      "--controllers=*,-provisioningrequest",
             {{"group", kProvisioningGroup}});
  return kProvisioningVersion;
}

}  // namespace

shim::ResourceRef ProvisioningRequestController::RequestRef(std::string_view ns, std::string_view name) const {
  return shim::ResourceRef{kProvisioningGroup, options_.api_version, "provisioningrequests", std::string(ns),
                           std::string(name)};
}

ProvisioningRequestController::ProvisioningRequestController(shim::RestClientPtr rest,
                                                             ProvisioningRequestControllerOptions options)
    : options_(std::move(options)), client_(std::move(rest), std::chrono::milliseconds(4000)) {}

ProvisioningRequestController::~ProvisioningRequestController() {
  if (recorder_) recorder_->Stop();
}

void ProvisioningRequestController::SetProvisioner(const std::string& class_name, prov::Provisioner* provisioner) {
  provisioners_[class_name] = provisioner;
}

Result<std::unique_ptr<ProvisioningRequestController>> ProvisioningRequestController::Setup(
    shim::Manager& manager, shim::RestClientPtr rest, ProvisioningRequestControllerOptions options) {
  if (options.api_version.empty()) options.api_version = ServedVersion(*rest);
  std::unique_ptr<ProvisioningRequestController> c(new ProvisioningRequestController(rest, std::move(options)));
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-manager";
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);

  auto& reg = manager.registry();
  auto requests = reg.AddGauge("berth_provisioningrequests",
                               "ProvisioningRequests of the classes berth handles, by class and state.",
                               {"class", "state"});
  auto duration = reg.AddHistogram("berth_provisioningrequest_check_duration_seconds",
                                   "Time to decide one pass over the ProvisioningRequests that ran a capacity check.",
                                   {}, {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
  auto booked = reg.AddGauge("berth_booked_resources",
                             "Resources held by ProvisioningRequest bookings (cpu in cores, memory in bytes).",
                             {"resource"});
  if (!requests || !duration || !booked) {
    return MakeError(ErrorCode::kInternal, "registering provisioningrequest metrics failed");
  }
  c->requests_gauge_ = *requests;
  c->check_duration_ = *duration;
  c->booked_resources_ = *booked;

  auto& informers = manager.informers();
  c->requests_ = informers.InformerFor(shim::InformerKey{
      std::string("/apis/") + kProvisioningGroup + "/" + c->options_.api_version + "/provisioningrequests", "", ""});
  c->templates_ = informers.InformerFor(shim::InformerKey{"/api/v1/podtemplates", "", ""}, PodTemplateTransform());
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  c->reservations_ = informers.InformerFor(shim::InformerKey{kReservationsPath, "", ""});
  auto s1 = c->pods_->AddIndexers({{kConsumerIndex, [](const shim::CachedObject& o) {
    auto key = ConsumedRequest(o);
    return key ? std::vector<std::string>{*key} : std::vector<std::string>{};
  }}});
  auto s2 = c->reservations_->AddIndexers({{kBookingUidIndex, [](const shim::CachedObject& o) {
    auto uid = o.FindString({"metadata", "labels", kBookingUidLabel});
    return uid && !uid->empty() ? std::vector<std::string>{*uid} : std::vector<std::string>{};
  }}});
  if (!s1 || !s2) return MakeError(ErrorCode::kInternal, "adding provisioningrequest indexers failed");

  ProvisioningRequestController* self = c.get();
  // One worker: every pass sees the bookings of the passes before it.
  auto controller = manager.AddController(shim::ControllerOptions{"provisioningrequest", 1, nullptr, nullptr, &reg},
                                          [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;

  auto any = [self](const shim::ObjectPtr&, bool) { self->Enqueue(false); };
  c->requests_->AddEventHandler(shim::EventHandler{
      any, [self](const shim::ObjectPtr&, const shim::ObjectPtr&) { self->Enqueue(false); },
      [self](const shim::DeletedObject&) { self->Enqueue(false); }});
  // A template deleted under a booked request fails it (FailedToBookCapacity) on this pass.
  c->templates_->AddEventHandler(shim::EventHandler{
      any, [self](const shim::ObjectPtr&, const shim::ObjectPtr&) { self->Enqueue(false); },
      [self](const shim::DeletedObject&) { self->Enqueue(false); }});
  c->pods_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& pod, bool) {
        if (ConsumedRequest(*pod)) self->Enqueue(false);
      },
      [self](const shim::ObjectPtr& old_pod, const shim::ObjectPtr& pod) {
        const bool bound_changed = old_pod->FindString({"spec", "nodeName"}) != pod->FindString({"spec", "nodeName"});
        const bool finished = !Terminal(*old_pod) && Terminal(*pod);
        if (finished) {
          self->Enqueue(true);
        } else if (bound_changed && ConsumedRequest(*pod)) {
          self->Enqueue(false);
        }
      },
      [self](const shim::DeletedObject& deleted) {
        if (deleted.object && deleted.object->FindString({"spec", "nodeName"})) self->Enqueue(true);
      }});
  c->nodes_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr&, bool) { self->Enqueue(true); },
      [self](const shim::ObjectPtr& old_node, const shim::ObjectPtr& node) {
        if (old_node->FindJson({"spec", "unschedulable"}) != node->FindJson({"spec", "unschedulable"}) ||
            old_node->FindJson({"status", "allocatable"}) != node->FindJson({"status", "allocatable"}) ||
            old_node->FindJson({"spec", "taints"}) != node->FindJson({"spec", "taints"})) {
          self->Enqueue(true);
        }
      },
      [self](const shim::DeletedObject&) { self->Enqueue(false); }});
  c->reservations_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& r, bool) {
        if (r->FindString({"metadata", "annotations", kBookingForAnnotation})) self->Enqueue(false);
      },
      [self](const shim::ObjectPtr& old_r, const shim::ObjectPtr& r) {
        auto phase = [](const shim::ObjectPtr& o) { return o->FindString({"status", "phase"}).value_or(""); };
        const std::string now = phase(r);
        if (phase(old_r) != now && (now == "Succeeded" || now == "Failed")) self->Enqueue(true);
      },
      [self](const shim::DeletedObject&) { self->Enqueue(true); }});
  return c;
}

void ProvisioningRequestController::Enqueue(bool capacity_freed) {
  if (capacity_freed) capacity_freed_.store(true);
  if (controller_) controller_->queue().Add(kPassKey);
}

shim::ReconcileResult ProvisioningRequestController::Reconcile(const std::string&) {
  // The requests of the classes berth handles, as JSON (the status write starts from them).
  std::vector<Document> objects;
  std::vector<prov::ProvisioningRequestView> views;
  for (const shim::ObjectPtr& obj : requests_->store().List()) {
    const std::string class_name = obj->FindString({"spec", "provisioningClassName"}).value_or("");
    const std::string instance =
        obj->FindString({"spec", "parameters", prov::kParamProcessorInstance}).value_or("");
    const prov::Route route = prov::RouteRequest(class_name, instance, options_.classes, options_.processor_instance);
    if (route != prov::Route::kHandled) {
      if (ignored_logged_.insert(std::string(obj->Uid())).second) {
        log::Info(kLogger, prov::RouteMessage(route),
                  {{"request", std::string(obj->Key())}, {"class", class_name}, {"processorInstance", instance},
                   {"instance", options_.processor_instance}});
      }
      continue;
    }
    auto doc = ToJson(obj);
    if (!doc) continue;
    views.push_back(ReadProvisioningRequest(*doc));
    objects.push_back(std::move(*doc));
  }
  const bool capacity_freed = capacity_freed_.exchange(false);
  if (views.empty()) {
    UpdateMetrics({}, {});
    backoff_.clear();
    for (auto& [class_name, provisioner] : provisioners_) provisioner->Retain({}, std::chrono::system_clock::now());
    return shim::ReconcileResult::Done();
  }

  // Forget creates the cache now shows (or that never showed), and deletes it no longer shows.
  const auto steady_now = std::chrono::steady_clock::now();
  for (auto it = pending_creates_.begin(); it != pending_creates_.end();) {
    bool seen = reservations_->store().Get(it->first) != nullptr;
    it = seen || steady_now - it->second.created > kPendingCreateTimeout ? pending_creates_.erase(it) : std::next(it);
  }
  for (auto it = pending_deletes_.begin(); it != pending_deletes_.end();) {
    it = reservations_->store().Get(*it) == nullptr ? pending_deletes_.erase(it) : std::next(it);
  }

  // The snapshot: nodes, bound pods, Reservations (bookings being placed count as placed on
  // their node), and the bookings this process created that the cache does not show yet.
  placement::ClusterSnapshot snapshot;
  std::unordered_map<std::string, bool> unschedulable;
  for (const shim::ObjectPtr& obj : nodes_->store().List()) {
    auto doc = ToJson(obj);
    if (!doc) continue;
    placement::NodeView node = ReadNodeView(*doc);
    unschedulable[node.name] = node.unschedulable;
    snapshot.UpsertNode(node);
  }
  for (const shim::ObjectPtr& obj : pods_->store().List()) {
    auto node = obj->FindString({"spec", "nodeName"});
    if (!node || node->empty() || Terminal(*obj)) continue;
    auto doc = ToJson(obj);
    if (!doc) continue;
    snapshot.UpsertPod(ReadPodView(*doc));
  }
  std::unordered_map<std::string, std::vector<prov::BookedSlice>> bookings;  // by request uid
  for (const shim::ObjectPtr& obj : reservations_->store().List()) {
    if (pending_deletes_.contains(std::string(obj->Name()))) continue;
    auto doc = ToJson(obj);
    if (!doc) continue;
    placement::ReservationView view = ReadReservationView(*doc);
    if (!view.provisioning_request.empty()) {
      prov::BookedSlice slice = ReadBookedSlice(*doc);
      std::string uid(json::GetString(*doc, {"metadata", "labels", kBookingUidLabel}));
      if (view.phase == reconcile::Phase::kPending && view.node_name.empty()) {
        view.phase = reconcile::Phase::kAvailable;
        view.node_name = slice.node_name;
        view.allocatable = slice.resources;
        view.allocatable.erase("pods");
      }
      // A terminal slice (e.g. Failed/Expired when its node was deleted) stays part of the
      // booking, so the request still sees the node it lost (CapacityRevoked) and deletes it.
      if (!uid.empty()) bookings[uid].push_back(std::move(slice));
    }
    snapshot.UpsertReservation(view);
  }
  for (const auto& [name, pending] : pending_creates_) {
    bookings[pending.request_uid].push_back(pending.slice);
    snapshot.UpsertReservation(pending.view);
  }

  for (prov::ProvisioningRequestView& view : views) {
    if (auto it = bookings.find(view.uid); it != bookings.end()) view.booking = it->second;
    auto consumers = pods_->store().ByIndex(kConsumerIndex, prov::ConsumerKey(view.namespace_name, view.name));
    if (consumers) {
      for (const auto& pod : *consumers) {
        auto node = pod->FindString({"spec", "nodeName"});
        // As upstream's snapshot (its AllPodLister drops Succeeded and Failed pods): a finished
        // consumer does not consume the booking its replacement still needs.
        if (node && !node->empty() && !pod->FindString({"metadata", "deletionTimestamp"}) && !Terminal(*pod)) {
          ++view.bound_consumers;
        }
      }
    }
  }

  // PodTemplates are read only for the requests that need them.
  std::unordered_map<std::string, std::unique_ptr<prov::PodTemplateView>> templates;
  prov::PassInput input;
  input.template_lookup = [&](std::string_view ns, std::string_view name) -> const prov::PodTemplateView* {
    std::string key = prov::ConsumerKey(ns, name);
    auto it = templates.find(key);
    if (it != templates.end()) return it->second.get();
    std::unique_ptr<prov::PodTemplateView> view;
    if (shim::ObjectPtr obj = templates_->store().Get(key)) {
      if (auto doc = ToJson(obj)) view = std::make_unique<prov::PodTemplateView>(ReadPodTemplate(*doc));
    }
    const prov::PodTemplateView* out = view.get();
    templates.emplace(std::move(key), std::move(view));
    return out;
  };
  input.node_unschedulable = [&](std::string_view node) -> std::optional<bool> {
    auto it = unschedulable.find(std::string(node));
    if (it == unschedulable.end()) return std::nullopt;
    return it->second;
  };
  input.backoff = backoff_;
  input.capacity_freed = capacity_freed;
  input.provisioners = provisioners_;
  input.requests = views;

  const auto started = std::chrono::steady_clock::now();
  std::vector<prov::RequestDecision> decisions =
      prov::DecidePass(input, snapshot, std::chrono::system_clock::now(), options_.timers);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Scale-ups of requests that no longer wait for capacity (deleted, failed) are given back.
  if (!provisioners_.empty()) {
    std::set<std::string> waiting;
    for (size_t i = 0; i < decisions.size(); ++i) {
      const prov::RequestState st = decisions[i].state;
      if (st == prov::RequestState::kPending || st == prov::RequestState::kAccepted ||
          st == prov::RequestState::kProvisioned) {
        waiting.insert(decisions[i].uid);
      }
    }
    for (const prov::ProvisioningRequestView& v : views) {
      if (v.deleting) waiting.erase(v.uid);
    }
    for (auto& [class_name, provisioner] : provisioners_) provisioner->Retain(waiting, std::chrono::system_clock::now());
  }
  if (std::any_of(decisions.begin(), decisions.end(), [](const auto& d) { return d.checked; })) {
    check_duration_->WithLabelValues({}).Observe(seconds);
  }

  std::unordered_map<std::string, size_t> index;  // uid → position in views/objects
  for (size_t i = 0; i < views.size(); ++i) index[views[i].uid] = i;
  std::unordered_map<std::string, prov::BackoffState> next_backoff;
  std::optional<std::chrono::nanoseconds> requeue;
  std::string failures;
  for (const prov::RequestDecision& d : decisions) {
    const size_t i = index.at(d.uid);
    if (d.backoff != prov::BackoffState{}) next_backoff[d.uid] = d.backoff;
    Written w = Apply(d, views[i], objects[i]);
    if (!w.ok) failures += (failures.empty() ? "" : "; ") + w.error;
    if (d.requeue_after && (!requeue || *d.requeue_after < *requeue)) requeue = d.requeue_after;
  }
  backoff_ = std::move(next_backoff);
  // A scale-up class's in-flight state goes into the request's annotation after the pass (after
  // the status write, which carries the cached resourceVersion), so a restarted berth-manager
  // resumes it instead of asking the cloud again.
  for (const prov::ProvisioningRequestView& v : views) {
    auto p = provisioners_.find(v.class_name);
    if (p == provisioners_.end() || v.deleting) continue;
    const std::string state = p->second->PersistedState(v.uid);
    if (state == v.scale_up_state) continue;
    Document patch(rapidjson::kObjectType);
    auto& a = patch.GetAllocator();
    Value annotations(rapidjson::kObjectType);
    Value key(prov::kScaleUpStateAnnotation.data(),
              static_cast<rapidjson::SizeType>(prov::kScaleUpStateAnnotation.size()), a);
    if (state.empty()) {
      annotations.AddMember(key, Value(rapidjson::kNullType), a);
    } else {
      annotations.AddMember(key, Value(state.c_str(), a), a);
    }
    Value meta(rapidjson::kObjectType);
    meta.AddMember("annotations", annotations, a);
    patch.AddMember("metadata", meta, a);
    auto written = client_.MergePatch(RequestRef(v.namespace_name, v.name), patch);
    if (!written && written.error().code != ErrorCode::kNotFound) {
      failures += (failures.empty() ? "" : "; ") + std::string("scale-up state of ") + v.namespace_name + "/" +
                  v.name + ": " + written.error().message;
    }
  }
  UpdateMetrics(decisions, views);
  if (!failures.empty()) {
    // Decided again from fresh caches after the rate limiter's delay.
    return shim::ReconcileResult::Error(failures);
  }
  if (requeue) {
    return shim::ReconcileResult::RequeueAfter(std::max<std::chrono::nanoseconds>(*requeue, std::chrono::milliseconds(1)));
  }
  return shim::ReconcileResult::Done();
}

ProvisioningRequestController::Written ProvisioningRequestController::EnsureFinalizer(const Value& object,
                                                                                      std::string& resource_version,
                                                                                      bool present) {
  if (HasFinalizer(object) == present) return {};
  Document patch = FinalizerPatch(object, resource_version, present);
  auto ref = RequestRef(json::GetString(object, {"metadata", "namespace"}), json::GetString(object, {"metadata", "name"}));
  auto written = client_.MergePatch(ref, patch);
  if (!written) {
    if (!present && written.error().code == ErrorCode::kNotFound) return {};
    return {false, "finalizer of " + ref.ns + "/" + ref.name + ": " + written.error().message};
  }
  resource_version = std::string(json::GetString(*written, {"metadata", "resourceVersion"}));
  return {};
}

ProvisioningRequestController::Written ProvisioningRequestController::Apply(const prov::RequestDecision& d,
                                                                            const prov::ProvisioningRequestView& view,
                                                                            const Value& object) {
  const std::string key = view.namespace_name + "/" + view.name;
  std::string resource_version(json::GetString(object, {"metadata", "resourceVersion"}));
  if (!d.book.empty()) {
    // The finalizer first: a request deleted from here on still gets its Reservations removed.
    if (Written w = EnsureFinalizer(object, resource_version, true); !w.ok) return w;
    std::unordered_set<std::string> desired;
    for (prov::BookedSlice slice : d.book) {
      slice.reservation_name = BookingReservationName(view.uid, slice.node_name);
      desired.insert(slice.reservation_name);
      pending_deletes_.erase(slice.reservation_name);
      const int64_t ttl = std::chrono::duration_cast<std::chrono::seconds>(options_.timers.booking_time).count() + 60;
      Document body = BookingReservation(view, slice, options_.scheduler_name, ttl);
      auto created = client_.Create(ReservationRef(slice.reservation_name), body);
      if (!created && created.error().code != ErrorCode::kAlreadyExists) {
        return {false, "booking Reservation " + slice.reservation_name + " for " + key + ": " + created.error().message};
      }
      PendingBooking pending;
      pending.request_uid = view.uid;
      pending.slice = slice;
      pending.slice.reservation_uid = "pending:" + slice.reservation_name;
      pending.view.name = slice.reservation_name;
      pending.view.uid = pending.slice.reservation_uid;
      pending.view.phase = reconcile::Phase::kAvailable;
      pending.view.node_name = slice.node_name;
      pending.view.allocatable = slice.resources;
      pending.view.allocatable.erase("pods");
      pending.view.allocate_once = false;
      pending.view.provisioning_request = prov::ConsumerKey(view.namespace_name, view.name);
      pending.created = std::chrono::steady_clock::now();
      if (!reservations_->store().Get(slice.reservation_name)) pending_creates_[slice.reservation_name] = pending;
    }
    for (const prov::BookedSlice& old : view.booking) {
      if (desired.contains(old.reservation_name)) continue;
      if (auto s = client_.Delete(ReservationRef(old.reservation_name)); !s && s.error().code != ErrorCode::kNotFound) {
        return {false, "stale booking Reservation " + old.reservation_name + ": " + s.error().message};
      }
      pending_deletes_.insert(old.reservation_name);
      pending_creates_.erase(old.reservation_name);
    }
  }
  if (d.release_booking) {
    for (const prov::BookedSlice& slice : view.booking) {
      if (auto s = client_.Delete(ReservationRef(slice.reservation_name)); !s && s.error().code != ErrorCode::kNotFound) {
        return {false, "releasing booking Reservation " + slice.reservation_name + ": " + s.error().message};
      }
      pending_deletes_.insert(slice.reservation_name);
      pending_creates_.erase(slice.reservation_name);
    }
    log::Info(kLogger, "booking released", {{"request", key}, {"reservations", std::to_string(view.booking.size())}});
  }
  if (d.conditions) {
    Document body = StatusBody(object, *d.conditions, options_.api_version);
    json::SetString(json::EnsureObject(body, "metadata", body.GetAllocator()), "resourceVersion", resource_version,
                    body.GetAllocator());
    auto written = client_.UpdateStatus(RequestRef(view.namespace_name, view.name), body);
    if (!written) {
      if (written.error().code == ErrorCode::kNotFound) return {};
      return {false, "status of " + key + ": " + written.error().message};
    }
    resource_version = std::string(json::GetString(*written, {"metadata", "resourceVersion"}));
    shim::ObjectReference ref{std::string(kProvisioningGroup) + "/" + options_.api_version, "ProvisioningRequest",
                              view.namespace_name, view.name, view.uid, "", ""};
    for (const auto& e : d.events) {
      recorder_->Event(ref, e.type == "Warning" ? shim::EventType::kWarning : shim::EventType::kNormal, e.reason,
                       e.message);
      log::Info(kLogger, "condition changed", {{"request", key}, {"reason", e.reason}, {"message", e.message}});
    }
  }
  if (d.delete_request) {
    if (auto s = client_.Delete(RequestRef(view.namespace_name, view.name)); !s && s.error().code != ErrorCode::kNotFound) {
      return {false, "deleting " + key + ": " + s.error().message};
    }
    log::Info(kLogger, "deleted a ProvisioningRequest terminal for longer than the retention", {{"request", key}});
  }
  // The finalizer goes once no Reservation of the request is left in the cache or in flight.
  if (view.deleting && HasFinalizer(object)) {
    auto left = reservations_->store().ByIndex(kBookingUidIndex, view.uid);
    bool in_flight = std::any_of(pending_creates_.begin(), pending_creates_.end(),
                                 [&](const auto& p) { return p.second.request_uid == view.uid; });
    if ((!left || left->empty()) && !in_flight) {
      if (Written w = EnsureFinalizer(object, resource_version, false); !w.ok) return w;
    }
  }
  return {};
}

void ProvisioningRequestController::UpdateMetrics(const std::vector<prov::RequestDecision>& decisions,
                                                  const std::vector<prov::ProvisioningRequestView>& views) {
  std::map<std::pair<std::string, std::string>, int> counts;
  std::map<std::string, int64_t> booked;  // milli-units
  std::unordered_map<std::string, const prov::ProvisioningRequestView*> by_uid;
  for (const auto& v : views) by_uid[v.uid] = &v;
  for (const prov::RequestDecision& d : decisions) {
    const prov::ProvisioningRequestView& v = *by_uid.at(d.uid);
    ++counts[{v.class_name, std::string(prov::RequestStateName(d.state))}];
    if (d.state != prov::RequestState::kProvisioned) continue;
    for (const prov::BookedSlice& s : d.book.empty() ? v.booking : d.book) {
      for (const auto& [resource, milli] : s.resources) booked[resource] += milli;
    }
  }
  for (const auto& labels : state_labels_) {
    if (!counts.contains(labels)) requests_gauge_->WithLabelValues({labels.first, labels.second}).Set(0);
  }
  for (const auto& [labels, n] : counts) {
    state_labels_.insert(labels);
    requests_gauge_->WithLabelValues({labels.first, labels.second}).Set(n);
  }
  for (const std::string& r : booked_resource_labels_) {
    if (!booked.contains(r)) booked_resources_->WithLabelValues({r}).Set(0);
  }
  for (const auto& [resource, milli] : booked) {
    booked_resource_labels_.insert(resource);
    booked_resources_->WithLabelValues({resource}).Set(static_cast<double>(milli) / 1000.0);
  }
}

}  // namespace berth::controllers
