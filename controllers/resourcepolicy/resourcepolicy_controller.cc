#include "controllers/resourcepolicy/resourcepolicy_controller.h"

#include "controllers/common/api_discovery.h"

#include <atomic>
#include <thread>

#include "clientgo-shim/api/deletion_cost.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/resourcepolicy/cost_annotations.h"
#include "reconcile/resourcepolicy/policy_costs.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;
namespace rp = reconcile::resourcepolicy;
using Kind = rp::CostAnnotationDecision::Kind;

constexpr char kLogger[] = "resourcepolicy";
constexpr char kPoliciesPath[] = "/apis/scheduling.sigs.x-k8s.io/v1alpha1/resourcepolicies";
constexpr char kNamespaceIndex[] = "resourcepolicy.namespace";
// A write whose echo never arrives (the watch relisted past it) stops shadowing the cache after this.
constexpr auto kWrittenTtl = std::chrono::seconds(60);

bool Finished(const shim::CachedObject& pod) {
  auto phase = pod.FindString({"status", "phase"});
  return (phase && (*phase == "Succeeded" || *phase == "Failed")) ||
         pod.FindString({"metadata", "deletionTimestamp"}).has_value();
}

rp::PodCostAnnotations AnnotationsOf(const shim::CachedObject& pod) {
  return {pod.FindString({"metadata", "annotations", shim::kPodDeletionCostAnnotation}),
          pod.FindString({"metadata", "annotations", rp::kDeletionCostPolicyAnnotation})};
}

// CostFieldsChanged: an update that can change some policy's plan or decision.
bool CostFieldsChanged(const shim::CachedObject& a, const shim::CachedObject& b) {
  auto ca = AnnotationsOf(a), cb = AnnotationsOf(b);
  return ca.cost != cb.cost || ca.marker != cb.marker || Finished(a) != Finished(b) ||
         a.FindString({"spec", "nodeName"}) != b.FindString({"spec", "nodeName"}) ||
         a.FindJson({"metadata", "labels"}) != b.FindJson({"metadata", "labels"});
}

std::optional<placement::ResourcePolicyView> ViewOf(const shim::ObjectPtr& policy) {
  if (!policy) return std::nullopt;
  auto doc = policy->ToJson();
  if (!doc) return std::nullopt;
  auto view = ReadResourcePolicyView(*doc);
  if (!view) return std::nullopt;
  return std::move(*view);
}

bool Transient(const Error& e) {
  return e.code == ErrorCode::kConflict || e.code == ErrorCode::kTooManyRequests || e.code == ErrorCode::kTransport ||
         e.code == ErrorCode::kTimeout || e.http_status >= 500;
}

}  // namespace

bool ResourcePoliciesServed(shim::RestClient& rest) {
  return ResourceServed(rest, "scheduling.sigs.x-k8s.io/v1alpha1", "resourcepolicies").value_or(true);
}

ResourcePolicyController::ResourcePolicyController(shim::RestClientPtr rest, ResourcePolicyControllerOptions options)
    : options_(options), client_(std::move(rest)) {}

ResourcePolicyController::~ResourcePolicyController() {
  if (recorder_) recorder_->Stop();
}

Result<std::unique_ptr<ResourcePolicyController>> ResourcePolicyController::Setup(
    shim::Manager& manager, shim::RestClientPtr rest, ResourcePolicyControllerOptions options) {
  std::unique_ptr<ResourcePolicyController> c(new ResourcePolicyController(rest, options));
  auto& reg = manager.registry();
  auto unit_pods = reg.AddGauge("berth_resourcepolicy_unit_pods",
                                "Pods a ResourcePolicy manages the deletion cost of, per unit they run on.",
                                {"namespace", "policy", "unit"});
  auto writes = reg.AddCounter("berth_deletion_cost_writes_total",
                               "Pod patches that set or removed berth's pod-deletion-cost annotations.");
  if (!unit_pods || !writes) return MakeError(ErrorCode::kInternal, "registering resourcepolicy metrics failed");
  c->unit_pods_ = *unit_pods;
  c->writes_ = *writes;
  c->writes_->WithLabelValues({});
  // The CRD may be missing (Helm installs crds/ only on the first install): run without policies
  // rather than wait forever for an informer that cannot sync.
  if (!ResourcePoliciesServed(*rest)) {
    log::Warn(kLogger, "ResourcePolicy CRD not served; no deletion costs until berth restarts", {{"path", kPoliciesPath}});
    return c;
  }
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-manager";
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);

  auto& informers = manager.informers();
  c->policies_ = informers.InformerFor(shim::InformerKey{kPoliciesPath, "", ""});
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  if (!c->pods_->AddIndexers({{kNamespaceIndex, [](const shim::CachedObject& o) {
        return std::vector<std::string>{std::string(o.Namespace())};
      }}})) {
    return MakeError(ErrorCode::kInternal, "adding the resourcepolicy pod index failed");
  }

  ResourcePolicyController* self = c.get();
  auto controller = manager.AddController(
      shim::ControllerOptions{"resourcepolicy", options.workers, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;

  // A policy's pods are the ones no other policy of the namespace selects: a policy created,
  // edited or deleted changes its siblings' plans too (their costs come off pods it now also
  // selects, or back on), so the whole namespace is planned again, the policy itself included
  // (when deleted it is no longer listed).
  auto enqueue_policy = [self](const shim::ObjectPtr& p) {
    if (!p) return;
    self->controller_->queue().Add(std::string(p->Key()));
    self->EnqueueNamespace(p->Namespace(), false);
  };
  c->policies_->AddEventHandler(shim::EventHandler{
      [enqueue_policy](const shim::ObjectPtr& obj, bool) { enqueue_policy(obj); },
      [enqueue_policy](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        // Status writes do not move the generation; only spec (and deletion) changes the plan.
        if (old_obj && new_obj && old_obj->FindJson({"metadata", "generation"}) == new_obj->FindJson({"metadata", "generation"}) &&
            old_obj->FindJson({"metadata", "labels"}) == new_obj->FindJson({"metadata", "labels"})) {
          return;
        }
        enqueue_policy(new_obj);
      },
      [enqueue_policy](const shim::DeletedObject& deleted) { enqueue_policy(deleted.object); }});
  c->pods_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) { self->OnPodEvent(nullptr, obj); },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) { self->OnPodEvent(old_obj, new_obj); },
      [self](const shim::DeletedObject& deleted) {
        if (!deleted.object) return;
        {
          std::lock_guard lock(self->mu_);
          self->written_.erase(std::string(deleted.object->Uid()));
        }
        self->EnqueueNamespace(deleted.object->Namespace(), true);
      }});
  auto node_changed = [self] { self->EnqueueNamespace("", true); };
  c->nodes_->AddEventHandler(shim::EventHandler{
      [node_changed](const shim::ObjectPtr&, bool initial) {
        if (!initial) node_changed();
      },
      [node_changed](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        if (old_obj && new_obj && old_obj->FindJson({"metadata", "labels"}) == new_obj->FindJson({"metadata", "labels"})) {
          return;
        }
        node_changed();
      },
      [node_changed](const shim::DeletedObject&) { node_changed(); }});
  return c;
}

void ResourcePolicyController::EnqueueNamespace(std::string_view ns, bool batch) {
  if (!controller_ || !policies_) return;
  for (const shim::ObjectPtr& p : policies_->store().List()) {
    if (!ns.empty() && p->Namespace() != ns) continue;
    if (batch) {
      controller_->queue().AddAfter(std::string(p->Key()), options_.pod_batch_delay);
    } else {
      controller_->queue().Add(std::string(p->Key()));
    }
  }
}

void ResourcePolicyController::OnPodEvent(const shim::ObjectPtr& old_pod, const shim::ObjectPtr& new_pod) {
  if (!new_pod) return;
  if (old_pod) {
    std::lock_guard lock(mu_);
    auto it = written_.find(std::string(new_pod->Uid()));
    if (it != written_.end() && it->second.resource_version == new_pod->ResourceVersion()) {
      written_.erase(it);  // the echo of our own patch: nothing new
      return;
    }
  }
  if (old_pod && !CostFieldsChanged(*old_pod, *new_pod)) return;
  EnqueueNamespace(new_pod->Namespace(), true);
  // A marker naming a policy that is gone (deleted while berth was down): its key cleans up.
  if (auto marker = AnnotationsOf(*new_pod).marker; marker && controller_) {
    std::string key = std::string(new_pod->Namespace()) + "/" + *marker;
    if (!policies_->store().Get(key)) controller_->queue().AddAfter(key, options_.pod_batch_delay);
  }
}

void ResourcePolicyController::SetUnitGauges(const std::string& ns, const std::string& policy,
                                             const std::map<std::string, int64_t>& units) {
  std::lock_guard lock(mu_);
  auto& published = gauge_units_[ns + "/" + policy];
  for (const auto& unit : published) {
    if (!units.contains(unit)) unit_pods_->Remove({ns, policy, unit});
  }
  published.clear();
  for (const auto& [unit, count] : units) {
    unit_pods_->WithLabelValues({ns, policy, unit}).Set(static_cast<double>(count));
    published.push_back(unit);
  }
  if (published.empty()) gauge_units_.erase(ns + "/" + policy);
}

shim::ReconcileResult ResourcePolicyController::Reconcile(const std::string& key) {
  if (!policies_) return shim::ReconcileResult::Done();
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return shim::ReconcileResult::TerminalError("malformed key " + key);
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);

  shim::ObjectPtr object = policies_->store().Get(key);
  std::optional<placement::ResourcePolicyView> view;
  if (object) {
    view = ViewOf(object);
    if (!view) {
      // The status writer reports Valid=False with the parse error; costs stay as they are
      // until the spec parses again.
      log::Info(kLogger, "ResourcePolicy spec does not parse; deletion costs left as they are", {{"resourcepolicy", key}});
      return shim::ReconcileResult::Done();
    }
  }
  std::vector<placement::ResourcePolicyView> others_storage;
  std::set<std::string, std::less<>> live_policies;
  for (const shim::ObjectPtr& p : policies_->store().List()) {
    if (p->Namespace() != ns) continue;
    live_policies.insert(std::string(p->Name()));
    if (p->Key() == key) continue;
    if (auto other = ViewOf(p)) others_storage.push_back(std::move(*other));
  }
  std::vector<const placement::ResourcePolicyView*> others;
  for (const auto& o : others_storage) others.push_back(&o);

  auto in_namespace = pods_->store().ByIndex(kNamespaceIndex, ns);
  if (!in_namespace) return shim::ReconcileResult::Error(in_namespace.error().message);
  std::vector<shim::ObjectPtr> pods;
  std::vector<rp::CostPodFacts> facts;
  for (const shim::ObjectPtr& p : *in_namespace) {
    if (Finished(*p)) continue;  // terminating or done: nothing to write on it
    rp::CostPodFacts f;
    f.name = std::string(p->Name());
    f.labels = ReadObjectLabels(*p);
    f.node_name = p->FindString({"spec", "nodeName"}).value_or("");
    // The apiserver always sets it; a pod without one ranks as the oldest.
    if (auto created = p->FindString({"metadata", "creationTimestamp"})) {
      if (auto t = shim::ParseTimestamp(*created)) f.created = *t;
    }
    pods.push_back(p);
    facts.push_back(std::move(f));
  }
  std::map<std::string, placement::LabelMap, std::less<>> node_labels;
  if (view) {
    for (const shim::ObjectPtr& n : nodes_->store().List()) {
      node_labels.emplace(std::string(n->Name()), ReadObjectLabels(*n));
    }
  }
  rp::PolicyCostPlan plan;
  if (view) {
    plan = rp::PlanPolicyCosts(*view, others, facts, node_labels);
  } else {
    plan.costs.assign(pods.size(), std::nullopt);
  }

  struct Write {
    shim::ObjectPtr pod;
    rp::CostAnnotationDecision decision;
  };
  std::vector<Write> writes;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < pods.size(); ++i) {
      const shim::CachedObject& pod = *pods[i];
      rp::PodCostAnnotations current = AnnotationsOf(pod);
      if (auto it = written_.find(std::string(pod.Uid())); it != written_.end()) {
        if (now - it->second.at < kWrittenTtl) {
          current = {it->second.cost, it->second.marker};
        } else {
          written_.erase(it);
        }
      }
      if (!plan.costs[i] && current.marker != name) continue;
      bool marker_live = current.marker && live_policies.contains(*current.marker);
      auto decision = rp::DecideCostAnnotations(name, pod.Name(), current, plan.costs[i], marker_live);
      if (decision.kind == Kind::kUserOwned && !decision.event_message.empty() &&
          reported_.emplace(std::string(pod.Uid()), *current.cost).second) {
        recorder_->Event(shim::ObjectReference{"v1", "Pod", ns, std::string(pod.Name()), std::string(pod.Uid()), "", ""},
                         shim::EventType::kWarning, "InvalidDeletionCost", decision.event_message);
      }
      if (decision.kind == Kind::kSet || decision.kind == Kind::kRemove) writes.push_back({pods[i], std::move(decision)});
    }
  }
  SetUnitGauges(ns, name, plan.unit_pods);

  // The patches, a few at a time: each is one small request, and a policy edit can touch
  // thousands of pods.
  std::atomic<size_t> next{0};
  std::atomic<size_t> transient{0}, failed{0};
  std::mutex error_mu;
  std::string first_error;
  auto work = [&] {
    for (size_t i = next++; i < writes.size(); i = next++) {
      const Write& w = writes[i];
      auto patch = json::Parse(rp::CostMergePatch(w.decision, name));
      auto result = client_.MergePatch(shim::ResourceRef{"", "v1", "pods", ns, std::string(w.pod->Name())}, *patch);
      if (result) {
        writes_->WithLabelValues({}).Inc();
        Written record;
        if (w.decision.kind == Kind::kSet) {
          record.cost = w.decision.cost;
          record.marker = name;
        }
        record.resource_version = std::string(json::GetString(*result, {"metadata", "resourceVersion"}));
        record.at = std::chrono::steady_clock::now();
        std::lock_guard lock(mu_);
        written_[std::string(w.pod->Uid())] = std::move(record);
        continue;
      }
      if (result.error().code == ErrorCode::kNotFound) continue;  // the pod is gone
      (Transient(result.error()) ? transient : failed)++;
      std::lock_guard lock(error_mu);
      if (first_error.empty()) first_error = "pod " + std::string(w.pod->Name()) + ": " + result.error().message;
    }
  };
  const size_t threads = std::min<size_t>(std::max(1, options_.write_concurrency), writes.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  if (!writes.empty()) {
    log::Info(kLogger, "deletion costs written",
              {{"resourcepolicy", key}, {"writes", std::to_string(writes.size() - transient - failed)},
               {"failed", std::to_string(transient + failed)}});
  }
  if (transient + failed > 0) {
    log::Warn(kLogger, "writing deletion costs failed; retrying with backoff",
              {{"resourcepolicy", key}, {"failed", std::to_string(transient + failed)}, {"error", first_error}});
    return shim::ReconcileResult::Error(first_error);
  }
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
