#include "controllers/migration/drain_controller.h"

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/cache/store.h"
#include "controllers/common/write_errors.h"
#include "controllers/migration/migration_codec.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;
using rapidjson::Value;

constexpr char kLogger[] = "drain";
constexpr char kNodeIndex[] = "migration.drain.spec.nodeName";
constexpr char kJobNodeIndex[] = "migration.drain.node";
constexpr char kJobPodIndex[] = "migration.drain.podRef";
// How long a created job the cache does not show yet is not created again.
constexpr auto kCreatedExpectationTtl = std::chrono::seconds(30);
// A draining node's pods and jobs change many times a second; each pass reads every pod on the
// node, so their events are merged into one pass per this interval (the earliest deadline wins in
// the queue). The label's event is handled at once.
constexpr auto kPodEventCoalesce = std::chrono::milliseconds(250);

shim::ResourceRef NodeRef(const std::string& name) { return {"", "v1", "nodes", "", name}; }
shim::ResourceRef JobRef(const std::string& name) {
  return {"scheduling.koordinator.sh", "v1alpha1", "podmigrationjobs", "", name};
}

std::optional<reconcile::Time> LatestTransition(const shim::CachedObject& job) {
  auto conds = job.FindJson({"status", "conditions"});
  std::optional<reconcile::Time> latest;
  if (!conds || !conds->IsArray()) return latest;
  for (const auto& c : conds->GetArray()) {
    auto t = shim::ParseTimestamp(json::GetString(c, {"lastTransitionTime"}));
    if (!t) continue;
    auto tp = std::chrono::time_point_cast<reconcile::Duration>(*t);
    if (!latest || tp > *latest) latest = tp;
  }
  return latest;
}

// DrainRelevant: whether a node is, or was, drained by label (only those are reconciled).
bool DrainRelevant(const shim::CachedObject& node) {
  return node.FindString({"metadata", "labels", std::string(mig::kDrainLabel)}) ||
         node.FindString({"metadata", "annotations", std::string(mig::kCordonedByDrainAnnotation)}) ||
         node.FindString({"metadata", "annotations", std::string(mig::kDrainStatusAnnotation)});
}

}  // namespace

std::string DrainStatusJson(const mig::DrainStatus& s) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::SetString(d, "status", s.status, a);
  d.AddMember("podsRemaining", s.pods_remaining, a);
  json::SetString(d, "message", s.message, a);
  json::SetString(d, "lastTransitionTime",
                  shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(s.last_transition_time)),
                  a);
  return json::Serialize(d);
}

Result<mig::DrainStatus> ParseDrainStatus(std::string_view text) {
  auto doc = json::Parse(text);
  if (!doc) return std::unexpected(doc.error());
  if (!doc->IsObject()) return MakeError(ErrorCode::kInvalid, "drain status is not a JSON object");
  mig::DrainStatus s;
  s.status = json::GetString(*doc, {"status"});
  if (s.status != mig::kDrainDraining && s.status != mig::kDrainDrained) {
    return MakeError(ErrorCode::kInvalid, "drain status \"" + s.status + "\" is neither Draining nor Drained");
  }
  const Value* remaining = json::Member(*doc, "podsRemaining");
  if (!remaining || !remaining->IsInt64() || remaining->GetInt64() < 0) {
    return MakeError(ErrorCode::kInvalid, "drain status podsRemaining is not a non-negative integer");
  }
  s.pods_remaining = remaining->GetInt64();
  s.message = json::GetString(*doc, {"message"});
  auto t = shim::ParseTimestamp(json::GetString(*doc, {"lastTransitionTime"}));
  if (!t) return MakeError(ErrorCode::kInvalid, "drain status lastTransitionTime: " + t.error().message);
  s.last_transition_time = std::chrono::time_point_cast<reconcile::Duration>(*t);
  return s;
}

DrainController::DrainController(shim::RestClientPtr rest, mig::DrainOptions options)
    : options_(std::move(options)), client_(std::move(rest)) {}

DrainController::~DrainController() {
  if (recorder_) recorder_->Stop();
}

Result<std::unique_ptr<DrainController>> DrainController::Setup(shim::Manager& manager, shim::RestClientPtr rest,
                                                                mig::DrainOptions options,
                                                                std::shared_ptr<shim::SharedInformer> jobs,
                                                                std::shared_ptr<shim::SharedInformer> pods) {
  std::unique_ptr<DrainController> c(new DrainController(rest, std::move(options)));
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-manager";
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);
  auto remaining = manager.registry().AddGauge(
      "berth_drain_pods_remaining", "Evictable pods left on a node drained by label berth.dev/drain=true.", {"node"});
  if (!remaining) return MakeError(ErrorCode::kInternal, "registering berth_drain_pods_remaining failed");
  c->remaining_ = *remaining;
  c->nodes_ = manager.informers().InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  c->pods_ = std::move(pods);
  c->jobs_ = std::move(jobs);
  auto s1 = c->pods_->AddIndexers({{kNodeIndex, shim::NodeNameIndexFunc()}});
  auto s2 = c->jobs_->AddIndexers(
      {{kJobNodeIndex,
        [](const shim::CachedObject& o) {
          auto node = o.FindString({"metadata", "annotations", kDrainNodeAnnotation});
          return node ? std::vector<std::string>{*node} : std::vector<std::string>{};
        }},
       {kJobPodIndex, [](const shim::CachedObject& o) {
          auto ns = o.FindString({"spec", "podRef", "namespace"});
          auto name = o.FindString({"spec", "podRef", "name"});
          if (!ns || !name) return std::vector<std::string>{};
          return std::vector<std::string>{*ns + "/" + *name};
        }}});
  if (!s1 || !s2) return MakeError(ErrorCode::kInternal, "adding drain indexers failed");

  DrainController* self = c.get();
  auto controller = manager.AddController(
      shim::ControllerOptions{"drain", 1, nullptr, nullptr, &manager.registry()},
      [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;

  auto node_changed = [self](const shim::ObjectPtr& node) {
    if (node && DrainRelevant(*node)) self->controller_->queue().Add(std::string(node->Name()));
  };
  c->nodes_->AddEventHandler(shim::EventHandler{
      [node_changed](const shim::ObjectPtr& obj, bool) { node_changed(obj); },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        // A removed label leaves the node relevant through its annotations (or it was never ours).
        if ((old_obj && DrainRelevant(*old_obj)) || DrainRelevant(*new_obj)) {
          self->controller_->queue().Add(std::string(new_obj->Name()));
        }
      },
      [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        self->remaining_->Remove({std::string(deleted.object->Name())});
        std::lock_guard lock(self->mu_);
        self->status_written_.erase(std::string(deleted.object->Name()));
      }});
  auto pod_changed = [self](const shim::ObjectPtr& pod) {
    if (!pod) return;
    if (auto node = pod->FindString({"spec", "nodeName"}); node && !node->empty()) self->EnqueueIfDraining(*node);
  };
  // A pod of the first list wakes nothing: a draining node is queued by its own add (as the
  // migration controller's wake-ups, migration_wakeups.cc).
  c->pods_->AddEventHandler(shim::EventHandler{
      [pod_changed](const shim::ObjectPtr& obj, bool) { pod_changed(obj); },
      [pod_changed](const shim::ObjectPtr&, const shim::ObjectPtr& new_obj) { pod_changed(new_obj); },
      [pod_changed](const shim::DeletedObject& deleted) { pod_changed(deleted.object); },
      [](const std::vector<shim::ObjectPtr>&) {}});  // the first list: see above
  auto job_changed = [self](const shim::ObjectPtr& job) {
    if (!job) return;
    if (auto node = job->FindString({"metadata", "annotations", kDrainNodeAnnotation})) self->EnqueueIfDraining(*node);
  };
  c->jobs_->AddEventHandler(shim::EventHandler{
      [self, job_changed](const shim::ObjectPtr& obj, bool) {
        {
          std::lock_guard lock(self->mu_);
          self->being_created_.erase(std::string(obj->Name()));
        }
        job_changed(obj);
      },
      [job_changed](const shim::ObjectPtr&, const shim::ObjectPtr& new_obj) { job_changed(new_obj); },
      [job_changed](const shim::DeletedObject& deleted) { job_changed(deleted.object); }});
  return c;
}

void DrainController::EnqueueIfDraining(const std::string& node) {
  auto n = nodes_->store().Get(node);
  if (n && DrainRelevant(*n)) controller_->queue().AddAfter(node, kPodEventCoalesce);
}

shim::ReconcileResult DrainController::Reconcile(const std::string& name) {
  shim::ObjectPtr node = nodes_->store().Get(name);
  if (!node) {
    remaining_->Remove({name});
    return shim::ReconcileResult::Done();
  }
  mig::DrainSnapshot snap;
  snap.node = name;
  snap.label = node->FindString({"metadata", "labels", std::string(mig::kDrainLabel)});
  snap.cordoned_by_berth =
      node->FindString({"metadata", "annotations", std::string(mig::kCordonedByDrainAnnotation)}).has_value();
  {
    rapidjson::Document scratch;
    Value v;
    snap.unschedulable = node->FindValue({"spec", "unschedulable"}, v, scratch.GetAllocator()) && v.IsBool() &&
                         v.GetBool();
  }
  if (auto text = node->FindString({"metadata", "annotations", std::string(mig::kDrainStatusAnnotation)})) {
    auto status = ParseDrainStatus(*text);
    if (status) {
      snap.status = *status;
    } else {
      // Rewritten from the facts below; a hand-edited status is not trusted.
      log::Warn(kLogger, "unreadable drain status annotation is replaced",
                {{"node", name}, {"error", status.error().message}});
    }
  }
  const auto now = std::chrono::system_clock::now();
  if (auto jobs = jobs_->store().ByIndex(kJobNodeIndex, name)) {
    for (const auto& j : *jobs) {
      std::string phase = j->FindString({"status", "phase"}).value_or("");
      if (phase.empty() || phase == "Pending") snap.pending_jobs.emplace_back(j->Name());
    }
  }
  if (snap.label && *snap.label == "true") {
    if (auto pods = pods_->store().ByIndex(kNodeIndex, name)) {
      for (const auto& p : *pods) {
        auto pj = p->ToJson();
        if (!pj) continue;
        mig::DrainPod dp;
        dp.pod = ReadPodFacts(*pj);
        std::optional<reconcile::Time> newest_created;
        if (auto jobs = jobs_->store().ByIndex(kJobPodIndex, dp.pod.namespace_name + "/" + dp.pod.name)) {
          for (const auto& j : *jobs) {
            std::string uid = j->FindString({"spec", "podRef", "uid"}).value_or("");
            if (!uid.empty() && uid != dp.pod.uid) continue;
            std::string phase = j->FindString({"status", "phase"}).value_or("");
            const bool active = phase.empty() || phase == "Pending" || phase == "Running";
            if (active) dp.has_active_job = true;
            if (!j->FindString({"metadata", "annotations", kDrainNodeAnnotation})) continue;
            ++dp.jobs_so_far;
            auto created = shim::ParseTimestamp(j->FindString({"metadata", "creationTimestamp"}).value_or(""));
            auto created_at = created ? std::chrono::time_point_cast<reconcile::Duration>(*created) : reconcile::Time{};
            if (newest_created && created_at < *newest_created) continue;
            newest_created = created_at;
            if (phase == "Failed" || phase == "Aborted") {
              dp.last_failed_at = LatestTransition(*j).value_or(created_at);
              dp.last_failure = j->FindString({"status", "reason"}).value_or("") + ": " +
                                j->FindString({"status", "message"}).value_or("");
            } else {
              dp.last_failed_at.reset();
              dp.last_failure.clear();
            }
          }
        }
        snap.pods.push_back(std::move(dp));
      }
    }
  }

  {
    std::lock_guard lock(mu_);
    for (auto it = being_created_.begin(); it != being_created_.end();) {
      // A create the cache never showed (a dropped watch event, a job deleted at once) is retried.
      if (now - it->second > kCreatedExpectationTtl) {
        it = being_created_.erase(it);
      } else {
        snap.jobs_being_created.insert(it->first);
        ++it;
      }
    }
    if (auto it = status_written_.find(name); it != status_written_.end()) snap.status_written_at = it->second;
  }
  mig::DrainDecision d = mig::DecideDrain(snap, now, options_);

  // One merge patch for the node: cordon, the berth-made-cordon mark, the status.
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  bool patch_node = false;
  if (d.set_unschedulable) {
    Value& spec = json::EnsureObject(patch, "spec", a);
    // Uncordon removes the field, as the API server drops a false one (omitempty).
    if (*d.set_unschedulable) {
      spec.AddMember("unschedulable", true, a);
    } else {
      spec.AddMember("unschedulable", Value(), a);
    }
    patch_node = true;
  }
  auto annotate = [&](std::string_view key, std::optional<std::string> value) {
    Value& meta = json::EnsureObject(patch, "metadata", a);
    Value& annotations = json::EnsureObject(meta, "annotations", a);
    Value k(key.data(), static_cast<rapidjson::SizeType>(key.size()), a);
    Value v;
    if (value) v.SetString(value->data(), static_cast<rapidjson::SizeType>(value->size()), a);
    annotations.AddMember(k, v, a);
    patch_node = true;
  };
  if (d.set_cordoned_by_berth) {
    annotate(mig::kCordonedByDrainAnnotation, *d.set_cordoned_by_berth ? std::optional<std::string>("true")
                                                                       : std::nullopt);
  }
  if (d.status) annotate(mig::kDrainStatusAnnotation, DrainStatusJson(*d.status));
  if (d.remove_status) annotate(mig::kDrainStatusAnnotation, std::nullopt);

  // Jobs first: a node cordoned with no job yet would show Draining with nothing moving.
  for (const mig::JobToCreate& job : d.create_jobs) {
    rapidjson::Document body(rapidjson::kObjectType);
    auto& ba = body.GetAllocator();
    json::SetString(body, "apiVersion", "scheduling.koordinator.sh/v1alpha1", ba);
    json::SetString(body, "kind", "PodMigrationJob", ba);
    Value& meta = json::EnsureObject(body, "metadata", ba);
    json::SetString(meta, "name", job.name, ba);
    Value& annotations = json::EnsureObject(meta, "annotations", ba);
    json::SetString(annotations, kDrainNodeAnnotation, name, ba);
    json::SetString(annotations, "koordinator.sh/evict-trigger", std::string(mig::kDrainTrigger), ba);
    json::SetString(annotations, "koordinator.sh/evict-reason",
                    "node " + name + " is drained (label " + std::string(mig::kDrainLabel) + "=true)", ba);
    if (name.size() <= 63) {
      Value& labels = json::EnsureObject(meta, "labels", ba);
      json::SetString(labels, kDrainNodeAnnotation, name, ba);
    }
    Value& spec = json::EnsureObject(body, "spec", ba);
    json::SetString(spec, "mode",
                    std::string(job.mode == mig::JobMode::kEvictDirectly ? mig::kModeEvictDirectly
                                                                         : mig::kModeReservationFirst),
                    ba);
    Value& ref = json::EnsureObject(spec, "podRef", ba);
    json::SetString(ref, "namespace", job.pod_namespace, ba);
    json::SetString(ref, "name", job.pod_name, ba);
    json::SetString(ref, "uid", job.pod_uid, ba);
    auto created = client_.Create(JobRef(""), body);
    if (!created && created.error().code != ErrorCode::kAlreadyExists) {
      LogWriteRetry(kLogger, "creating the drain's PodMigrationJob", job.name, created.error());
      return shim::ReconcileResult::Error("node " + name + ": creating job " + job.name + ": " +
                                          created.error().message);
    }
    if (!jobs_->store().Get(job.name)) {
      std::lock_guard lock(mu_);
      being_created_[job.name] = now;
    }
  }
  for (const std::string& job : d.delete_jobs) {
    auto deleted = client_.Delete(JobRef(job));
    if (!deleted && !IsGone(deleted.error())) {
      LogWriteRetry(kLogger, "deleting the drain's Pending PodMigrationJob", job, deleted.error());
      return shim::ReconcileResult::Error("node " + name + ": deleting job " + job + ": " + deleted.error().message);
    }
  }
  if (patch_node) {
    auto patched = client_.MergePatch(NodeRef(name), patch);
    if (!patched) {
      if (IsGone(patched.error())) return shim::ReconcileResult::Done();
      LogWriteRetry(kLogger, "patching the drained node", name, patched.error());
      return shim::ReconcileResult::Error("node " + name + ": " + patched.error().message);
    }
    if (d.status) {
      std::lock_guard lock(mu_);
      status_written_[name] = now;
    }
  }
  if (!d.events.empty()) {
    shim::ObjectReference ref{"v1", "Node", "", name, std::string(node->Uid()), "", ""};
    for (const auto& e : d.events) {
      recorder_->Event(ref, e.type == "Warning" ? shim::EventType::kWarning : shim::EventType::kNormal, e.reason,
                       e.message);
      log::Info(kLogger, "drain", {{"node", name}, {"reason", e.reason}, {"message", e.message}});
    }
  }
  if (d.pods_remaining) {
    remaining_->WithLabelValues({name}).Set(static_cast<double>(*d.pods_remaining));
  } else {
    remaining_->Remove({name});
  }
  if (d.requeue_after) {
    return shim::ReconcileResult::RequeueAfter(std::max<reconcile::Duration>(*d.requeue_after,
                                                                            std::chrono::milliseconds(1)));
  }
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
