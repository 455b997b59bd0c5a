#include "e2e/kubesim/sim/cluster_sim.h"

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/pod_conditions.h"
#include "e2e/kubesim/disruption/pdb_status.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr char kPods[] = "/pods";
constexpr char kNodes[] = "/nodes";
constexpr char kNamespaces[] = "/namespaces";
constexpr char kPdbs[] = "policy/poddisruptionbudgets";

Document Parse(const StoredObject& obj) {
  Document d;
  d.Parse(obj.json.data(), obj.json.size());
  return d;
}

// SetConditionTrue sets the pod condition to True, stamping lastTransitionTime only on a change.
void SetConditionTrue(Value& status, std::string_view type, const std::string& now, Document::AllocatorType& a) {
  Value& c = ConditionOfType(status, type, a);
  if (json::GetString(c, {"status"}) == "True") return;
  bool added = !c.HasMember("status");
  json::SetString(c, "status", "True", a);
  if (added) c.AddMember("lastProbeTime", Value(rapidjson::kNullType), a);
  json::SetString(c, "lastTransitionTime", now, a);
}

}  // namespace

ClusterSim::ClusterSim(ClusterSimOptions options, ApiServer& api)
    : options_(options),
      api_(api),
      deployments_(api, [this](auto delay, auto fn) { After(delay, std::move(fn)); }),
      replicasets_(api, [this](auto delay, auto fn) { After(delay, std::move(fn)); }),
      service_accounts_(api),
      default_scheduler_(api) {
  api_.store().Subscribe([this](const HistoryEvent& event) {
    {
      std::lock_guard lock(mu_);
      events_.push_back(event);
    }
    cv_.notify_one();
  });
}

ClusterSim::~ClusterSim() { Stop(); }

void ClusterSim::Start() { thread_ = std::thread([this] { Run(); }); }

void ClusterSim::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClusterSim::After(std::chrono::milliseconds delay, std::function<void()> fn) {
  std::lock_guard lock(mu_);
  timers_.push(Timer{std::chrono::steady_clock::now() + delay, timer_seq_++, std::move(fn)});
  cv_.notify_one();
}

void ClusterSim::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    auto next = timers_.empty() ? std::chrono::steady_clock::now() + std::chrono::hours(1) : timers_.top().at;
    cv_.wait_until(lock, next, [&] {
      return stop_ || !events_.empty() || (!timers_.empty() && timers_.top().at <= std::chrono::steady_clock::now());
    });
    if (stop_) break;
    std::deque<HistoryEvent> batch;
    batch.swap(events_);
    std::vector<std::function<void()>> due;
    auto now = std::chrono::steady_clock::now();
    while (!timers_.empty() && timers_.top().at <= now) {
      due.push_back(timers_.top().fn);
      timers_.pop();
    }
    lock.unlock();
    for (const auto& e : batch) OnEvent(e);
    for (auto& fn : due) fn();
    // PDB status is recomputed once per batch for each namespace that changed.
    std::set<std::string> dirty;
    dirty.swap(dirty_pdb_namespaces_);
    for (const auto& ns : dirty) SyncPdbs(ns);
    if (!dirty.empty()) pdb_pods_.Sweep();
    deployments_.SyncDirty();
    replicasets_.SyncDirty();
    service_accounts_.SyncDirty();
    if (options_.default_scheduler) default_scheduler_.SyncDirty();
    lock.lock();
  }
}

void ClusterSim::OnEvent(const HistoryEvent& event) {
  const StoredObject& obj = event.object ? *event.object : *event.previous;
  // Maintain the owner → dependents index.
  ObjectRef ref{event.resource, obj.namespace_name, obj.name};
  if (event.previous) {
    for (const auto& uid : event.previous->owner_uids) {
      auto it = dependents_.find(uid);
      if (it != dependents_.end()) {
        it->second.erase(ref);
        if (it->second.empty()) dependents_.erase(it);
      }
    }
  }
  if (event.type != WatchEventType::kDeleted) {
    for (const auto& uid : obj.owner_uids) dependents_[uid].insert(ref);
    live_[obj.uid] = ref;
  } else {
    live_.erase(obj.uid);
  }
  // A dependent that went away (or dropped its reference) may let a foreground deletion finish.
  if (event.previous) {
    for (const auto& uid : event.previous->owner_uids) {
      if (!dependents_.count(uid) && live_.count(uid)) RecheckForegroundOwner(uid);
    }
  }
  if (event.type != WatchEventType::kDeleted && !obj.deleting) {
    for (const auto& uid : obj.owner_uids) {
      if (!live_.count(uid)) {
        ObjectRefKey key{event.resource, obj.namespace_name, obj.name};
        After(std::chrono::milliseconds(0), [this, key] { CollectIfDangling(key); });
        break;
      }
    }
  }

  if (options_.workload_controllers) {
    deployments_.OnEvent(event);
    replicasets_.OnEvent(event);
  }
  service_accounts_.OnEvent(event);
  if (options_.default_scheduler) default_scheduler_.OnEvent(event);
  if (event.resource == kPods) {
    OnPod(event);
    if (pdbs_per_namespace_.count(obj.namespace_name)) dirty_pdb_namespaces_.insert(obj.namespace_name);
  } else if (event.resource == kPdbs) {
    if (event.type == WatchEventType::kAdded) ++pdbs_per_namespace_[obj.namespace_name];
    if (event.type == WatchEventType::kDeleted && --pdbs_per_namespace_[obj.namespace_name] <= 0) {
      pdbs_per_namespace_.erase(obj.namespace_name);
    }
    if (event.type != WatchEventType::kDeleted) dirty_pdb_namespaces_.insert(obj.namespace_name);
  } else if (event.resource.rfind("apps/", 0) == 0) {
    if (pdbs_per_namespace_.count(obj.namespace_name)) dirty_pdb_namespaces_.insert(obj.namespace_name);
  } else if (event.resource == kNodes && event.type == WatchEventType::kDeleted) {
    std::string node = obj.name;
    After(options_.pod_gc_delay, [this, node] { DeletePodsOfNode(node); });
  } else if (event.resource == kNamespaces && event.type != WatchEventType::kDeleted && obj.deleting) {
    EmptyNamespace(obj.name);
  }

  if (event.type == WatchEventType::kDeleted) {
    CollectDependents(obj.uid);
  } else if (obj.deleting) {
    HandleDeletionFinalizers(event);
  }
}

void ClusterSim::OnPod(const HistoryEvent& event) {
  if (!options_.kubelet || event.type == WatchEventType::kDeleted) return;
  const StoredObject& pod = *event.object;
  auto node = pod.fields.find("spec.nodeName");
  if (node == pod.fields.end() || node->second.empty()) return;
  if (!api_.store().Get(kNodes, "", node->second)) return;  // no kubelet for a missing node
  if (pod.deleting) {
    std::string ns = pod.namespace_name, name = pod.name, uid = pod.uid;
    After(std::chrono::milliseconds(0), [this, ns, name, uid] { FinishPodDeletion(ns, name, uid); });
    return;
  }
  auto phase = pod.fields.find("status.phase");
  if (phase != pod.fields.end() && phase->second != "Pending") return;
  // Start once per pod: only on the event that first shows it bound.
  bool was_bound = false;
  if (event.previous) {
    auto prev_node = event.previous->fields.find("spec.nodeName");
    was_bound = prev_node != event.previous->fields.end() && !prev_node->second.empty();
  }
  if (was_bound) return;
  std::string ns = pod.namespace_name, name = pod.name, uid = pod.uid;
  After(options_.pod_ready_delay, [this, ns, name, uid] { StartPod(ns, name, uid); });
}

void ClusterSim::StartPod(const std::string& ns, const std::string& name, const std::string& uid) {
  ResourceTypePtr pods = api_.TypeOf("", "pods");
  std::string now = NowRfc3339();
  uint64_t ip = next_pod_ip_++;
  std::string pod_ip = "10.244." + std::to_string((ip >> 8) & 0xFF) + "." + std::to_string(ip & 0xFF);
  api_.Mutate(*pods, ns, name, "status", [&](Document& d) {
    auto& a = d.GetAllocator();
    if (json::GetString(d, {"metadata", "uid"}) != uid) return false;
    if (json::Find(d, {"metadata", "deletionTimestamp"})) return false;
    if (json::GetString(d, {"status", "phase"}) != "Pending") return false;
    std::string node(json::GetString(d, {"spec", "nodeName"}));
    Value& status = json::EnsureObject(d, "status", a);
    json::SetString(status, "phase", "Running", a);
    json::SetString(status, "startTime", now, a);
    json::SetString(status, "podIP", pod_ip, a);
    Value ips(rapidjson::kArrayType);
    Value ip_entry(rapidjson::kObjectType);
    json::SetString(ip_entry, "ip", pod_ip, a);
    ips.PushBack(ip_entry, a);
    json::SetMember(status, "podIPs", std::move(ips), a);
    if (ObjectPtr node_obj = api_.store().Get(kNodes, "", node)) {
      Document nd = Parse(*node_obj);
      if (const Value* addrs = json::Find(nd, {"status", "addresses"}); addrs && addrs->IsArray()) {
        for (const auto& addr : addrs->GetArray()) {
          if (json::GetString(addr, {"type"}) == "InternalIP") {
            json::SetString(status, "hostIP", json::GetString(addr, {"address"}), a);
          }
        }
      }
    }
    for (std::string_view type : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
      SetConditionTrue(status, type, now, a);
    }
    Value statuses(rapidjson::kArrayType);
    if (const Value* containers = json::Find(d, {"spec", "containers"}); containers && containers->IsArray()) {
      int index = 0;
      for (const auto& c : containers->GetArray()) {
        Value cs(rapidjson::kObjectType);
        json::SetString(cs, "name", json::GetString(c, {"name"}), a);
        cs.AddMember("ready", true, a);
        cs.AddMember("started", true, a);
        cs.AddMember("restartCount", 0, a);
        json::SetString(cs, "image", json::GetString(c, {"image"}), a);
        json::SetString(cs, "imageID", "", a);
        json::SetString(cs, "containerID", "containerd://" + uid.substr(0, 8) + std::to_string(index++), a);
        Value state(rapidjson::kObjectType);
        Value running(rapidjson::kObjectType);
        json::SetString(running, "startedAt", now, a);
        state.AddMember("running", running, a);
        cs.AddMember("state", state, a);
        statuses.PushBack(cs, a);
      }
    }
    json::SetMember(status, "containerStatuses", std::move(statuses), a);
    return true;
  });
}

void ClusterSim::FinishPodDeletion(const std::string& ns, const std::string& name, const std::string& uid) {
  ObjectPtr pod = api_.store().Get(kPods, ns, name);
  if (!pod || pod->uid != uid || !pod->deleting) return;
  Document d = Parse(*pod);
  const Value* finalizers = json::Find(d, {"metadata", "finalizers"});
  if (finalizers && finalizers->IsArray() && !finalizers->Empty()) return;
  api_.store().Remove(kPods, ns, name, [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
    if (cur->uid != uid) return nullptr;
    Document doc = Parse(*cur);
    json::SetString(json::EnsureObject(doc, "metadata", doc.GetAllocator()), "resourceVersion",
                    std::to_string(rv), doc.GetAllocator());
    return ApiServer::ToStored(doc, rv);
  });
}

void ClusterSim::DeletePodsOfNode(const std::string& node) {
  if (api_.store().Get(kNodes, "", node)) return;  // the node came back
  ResourceTypePtr pods = api_.TypeOf("", "pods");
  auto page = api_.store().List(kPods, "", [&](const StoredObject& o) {
    auto it = o.fields.find("spec.nodeName");
    return it != o.fields.end() && it->second == node;
  }, 0, 0, "");
  DeleteOptions force;
  force.grace_period_seconds = 0;
  for (const auto& pod : page->items) {
    api_.DoDelete(*pods, pod->namespace_name, pod->name, force);
    FinishPodDeletion(pod->namespace_name, pod->name, pod->uid);
  }
}

void ClusterSim::CollectDependents(const std::string& owner_uid) {
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return;
  std::set<ObjectRef> refs = it->second;
  for (const auto& ref : refs) {
    ObjectPtr obj = api_.store().Get(ref.resource, ref.ns, ref.name);
    if (!obj) continue;
    auto slash = ref.resource.find('/');
    ResourceTypePtr type = api_.TypeOf(ref.resource.substr(0, slash), ref.resource.substr(slash + 1));
    if (!type) continue;
    // A dependent with another live owner only loses the dangling reference.
    bool other_owner_alive = false;
    for (const auto& uid : obj->owner_uids) {
      if (uid != owner_uid && live_.count(uid)) other_owner_alive = true;
    }
    if (other_owner_alive) {
      api_.Mutate(*type, ref.ns, ref.name, "", [&](Document& d) {
        Value* owners = json::FindMutable(d, {"metadata", "ownerReferences"});
        if (!owners || !owners->IsArray()) return false;
        for (auto o = owners->Begin(); o != owners->End(); ++o) {
          if (json::GetString(*o, {"uid"}) == owner_uid) {
            owners->Erase(o);
            return true;
          }
        }
        return false;
      });
      continue;
    }
    DeleteOptions background;
    background.propagation_policy = "Background";
    api_.DoDelete(*type, ref.ns, ref.name, background);
  }
}

void ClusterSim::CollectIfDangling(const ObjectRefKey& key) {
  ObjectPtr obj = api_.store().Get(key.resource, key.ns, key.name);
  if (!obj || obj->deleting) return;
  std::vector<std::string> absent;
  for (const auto& uid : obj->owner_uids) {
    if (!live_.count(uid)) absent.push_back(uid);
  }
  if (absent.empty()) return;
  auto slash = key.resource.find('/');
  ResourceTypePtr type = api_.TypeOf(key.resource.substr(0, slash), key.resource.substr(slash + 1));
  if (!type) return;
  if (absent.size() == obj->owner_uids.size()) {
    DeleteOptions background;
    background.propagation_policy = "Background";
    api_.DoDelete(*type, key.ns, key.name, background);
    return;
  }
  api_.Mutate(*type, key.ns, key.name, "", [&](Document& d) {
    Value* owners = json::FindMutable(d, {"metadata", "ownerReferences"});
    if (!owners || !owners->IsArray()) return false;
    bool changed = false;
    for (auto o = owners->Begin(); o != owners->End();) {
      if (std::find(absent.begin(), absent.end(), json::GetString(*o, {"uid"})) != absent.end()) {
        o = owners->Erase(o);
        changed = true;
      } else {
        ++o;
      }
    }
    return changed;
  });
}

void ClusterSim::RecheckForegroundOwner(const std::string& owner_uid) {
  auto it = live_.find(owner_uid);
  if (it == live_.end()) return;
  ObjectPtr owner = api_.store().Get(it->second.resource, it->second.ns, it->second.name);
  if (!owner || owner->uid != owner_uid || !owner->deleting) return;
  HandleDeletionFinalizers(HistoryEvent{WatchEventType::kModified, it->second.resource, owner, nullptr,
                                        owner->resource_version});
}

void ClusterSim::HandleDeletionFinalizers(const HistoryEvent& event) {
  const StoredObject& obj = *event.object;
  Document d = Parse(obj);
  const Value* finalizers = json::Find(d, {"metadata", "finalizers"});
  if (!finalizers || !finalizers->IsArray()) return;
  bool orphan = false, foreground = false;
  for (const auto& f : finalizers->GetArray()) {
    if (!f.IsString()) continue;
    orphan = orphan || std::string_view(f.GetString()) == "orphan";
    foreground = foreground || std::string_view(f.GetString()) == "foregroundDeletion";
  }
  if (!orphan && !foreground) return;
  auto deps_it = dependents_.find(obj.uid);
  std::set<ObjectRef> deps = deps_it == dependents_.end() ? std::set<ObjectRef>{} : deps_it->second;
  for (const auto& ref : deps) {
    auto slash = ref.resource.find('/');
    ResourceTypePtr type = api_.TypeOf(ref.resource.substr(0, slash), ref.resource.substr(slash + 1));
    if (!type) continue;
    if (orphan) {
      api_.Mutate(*type, ref.ns, ref.name, "", [&](Document& dep) {
        Value* owners = json::FindMutable(dep, {"metadata", "ownerReferences"});
        if (!owners || !owners->IsArray()) return false;
        for (auto o = owners->Begin(); o != owners->End(); ++o) {
          if (json::GetString(*o, {"uid"}) == obj.uid) {
            owners->Erase(o);
            return true;
          }
        }
        return false;
      });
    } else {
      DeleteOptions fg;
      fg.propagation_policy = "Foreground";
      api_.DoDelete(*type, ref.ns, ref.name, fg);
    }
  }
  // Foreground deletion completes once no dependents remain; orphaning completes at once.
  if (foreground && !deps.empty()) return;
  auto slash = event.resource.find('/');
  ResourceTypePtr type = api_.TypeOf(event.resource.substr(0, slash), event.resource.substr(slash + 1));
  if (!type) return;
  api_.Mutate(*type, obj.namespace_name, obj.name, "", [&](Document& doc) {
    Value* list = json::FindMutable(doc, {"metadata", "finalizers"});
    if (!list || !list->IsArray()) return false;
    bool changed = false;
    for (auto f = list->Begin(); f != list->End();) {
      if (f->IsString() && (std::string_view(f->GetString()) == "orphan" ||
                            std::string_view(f->GetString()) == "foregroundDeletion")) {
        f = list->Erase(f);
        changed = true;
      } else {
        ++f;
      }
    }
    return changed;
  });
}

void ClusterSim::EmptyNamespace(const std::string& ns) {
  DeleteOptions background;
  background.propagation_policy = "Background";
  bool remaining = false;
  for (const auto& type : api_.registry().All()) {
    if (!type->namespaced || type->version != type->storage_version) continue;
    auto page = api_.store().List(type->StorageKey(), ns, nullptr, 0, 0, "");
    for (const auto& obj : page->items) {
      api_.DoDelete(*type, ns, obj->name, background);
      remaining = true;
    }
  }
  if (remaining) {
    After(std::chrono::milliseconds(100), [this, ns] {
      ObjectPtr nso = api_.store().Get(kNamespaces, "", ns);
      if (nso && nso->deleting) EmptyNamespace(ns);
    });
    return;
  }
  ResourceTypePtr namespaces = api_.TypeOf("", "namespaces");
  api_.Mutate(*namespaces, "", ns, "", [&](Document& d) {
    // Both finalizer lists must be empty: spec.finalizers ("kubernetes") and metadata's.
    bool changed = false;
    if (Value* spec_f = json::FindMutable(d, {"spec", "finalizers"}); spec_f && spec_f->IsArray() && !spec_f->Empty()) {
      spec_f->Clear();
      changed = true;
    }
    return changed;
  });
  ObjectPtr nso = api_.store().Get(kNamespaces, "", ns);
  if (nso && nso->deleting) {
    Document d = Parse(*nso);
    const Value* f = json::Find(d, {"metadata", "finalizers"});
    if (!f || !f->IsArray() || f->Empty()) {
      api_.store().Remove(kNamespaces, "", ns, [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
        Document doc = Parse(*cur);
        json::SetString(json::EnsureObject(doc, "metadata", doc.GetAllocator()), "resourceVersion",
                        std::to_string(rv), doc.GetAllocator());
        return ApiServer::ToStored(doc, rv);
      });
    }
  }
}

void ClusterSim::SyncPdbs(const std::string& ns) {
  auto pdb_page = api_.store().List(kPdbs, ns, nullptr, 0, 0, "");
  if (pdb_page->items.empty()) return;
  auto pod_page = api_.store().List(kPods, ns, nullptr, 0, 0, "");
  std::vector<const Value*> pods;
  pods.reserve(pod_page->items.size());
  for (const auto& p : pod_page->items) pods.push_back(&pdb_pods_.Get(p));
  // Scale of a pod's controller: a ReplicaSet owned by a Deployment reports the Deployment's.
  disruption::ScaleLookup scale = [&](std::string_view pod_ns, const disruption::OwnerRef& ref)
      -> std::optional<disruption::ControllerScale> {
    auto replicas_of = [](const Document& d) {
      const Value* r = json::Find(d, {"spec", "replicas"});
      return r && r->IsInt() ? r->GetInt() : 1;
    };
    std::string resource = ref.kind == "ReplicaSet" ? "apps/replicasets"
                           : ref.kind == "StatefulSet" ? "apps/statefulsets"
                           : ref.kind == "Deployment" ? "apps/deployments" : "";
    if (resource.empty()) return std::nullopt;
    ObjectPtr owner = api_.store().Get(resource, std::string(pod_ns), ref.name);
    if (!owner || owner->uid != ref.uid) return std::nullopt;
    Document od = Parse(*owner);
    if (ref.kind == "ReplicaSet") {
      if (const Value* owners = json::Find(od, {"metadata", "ownerReferences"}); owners && owners->IsArray()) {
        for (const auto& o : owners->GetArray()) {
          const Value* controller = json::Member(o, "controller");
          if (json::GetString(o, {"kind"}) != "Deployment" || !controller || !controller->IsBool() || !controller->GetBool()) continue;
          ObjectPtr dep = api_.store().Get("apps/deployments", std::string(pod_ns), std::string(json::GetString(o, {"name"})));
          if (dep && dep->uid == json::GetString(o, {"uid"})) {
            return disruption::ControllerScale{dep->uid, replicas_of(Parse(*dep))};
          }
        }
      }
    }
    return disruption::ControllerScale{owner->uid, replicas_of(od)};
  };
  ResourceTypePtr pdb_type = api_.TypeOf("policy", "poddisruptionbudgets");
  auto now = std::chrono::system_clock::now();
  std::optional<std::chrono::system_clock::time_point> recheck;
  for (const auto& pdb_obj : pdb_page->items) {
    if (pdb_obj->deleting) continue;
    Document pdb = Parse(*pdb_obj);
    auto result = disruption::ComputePdbStatus(pdb, pods, scale, now);
    if (result.recheck_at && (!recheck || *result.recheck_at < *recheck)) recheck = result.recheck_at;
    if (!result.changed) continue;
    api_.Mutate(*pdb_type, ns, pdb_obj->name, "status", [&](Document& d) {
      if (json::GetString(d, {"metadata", "uid"}) != pdb_obj->uid) return false;
      json::SetMember(d, "status", Value(result.status, d.GetAllocator()), d.GetAllocator());
      return true;
    });
  }
  if (recheck) {
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*recheck - now) + std::chrono::milliseconds(10);
    After(std::max(delay, std::chrono::milliseconds(0)), [this, ns] { dirty_pdb_namespaces_.insert(ns); });
  }
}

}  // namespace berth::kubesim
