#include "e2e/kubesim/sim/replicaset_controller.h"

#include <algorithm>
#include <map>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/sim/scale_down_rank.h"
#include "e2e/kubesim/sim/workload_events.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using workload::IntAt;

constexpr char kReplicaSets[] = "apps/replicasets";
constexpr char kPods[] = "/pods";
// The controller's burstReplicas: at most this many creations or deletions per sync.
constexpr int64_t kBurstReplicas = 500;

struct OwnedPod {
  ObjectPtr stored;
  const Document& doc;  // parsed_pods_'s, until its next Sweep
};

Document PodFromTemplate(const Value& rs, const std::string& ns) {
  Document pod(rapidjson::kObjectType);
  auto& a = pod.GetAllocator();
  pod.AddMember("apiVersion", "v1", a);
  pod.AddMember("kind", "Pod", a);
  Value meta(rapidjson::kObjectType);
  std::string_view name = json::GetString(rs, {"metadata", "name"});
  json::SetString(meta, "generateName", std::string(name) + "-", a);
  json::SetString(meta, "namespace", ns, a);
  for (std::string_view field : {"labels", "annotations", "finalizers"}) {
    if (const Value* v = json::Find(rs, {"spec", "template", "metadata", field}); v && !v->IsNull()) {
      json::SetMember(meta, field, Value(*v, a), a);
    }
  }
  Value owners(rapidjson::kArrayType);
  owners.PushBack(workload::MakeControllerRef("apps/v1", "ReplicaSet", name, json::GetString(rs, {"metadata", "uid"}), a), a);
  meta.AddMember("ownerReferences", owners, a);
  pod.AddMember("metadata", meta, a);
  const Value* spec = json::Find(rs, {"spec", "template", "spec"});
  pod.AddMember("spec", spec && spec->IsObject() ? Value(*spec, a) : Value(rapidjson::kObjectType), a);
  return pod;
}

}  // namespace

ReplicaSetController::ReplicaSetController(ApiServer& api, RunAfter after) : api_(api), after_(std::move(after)) {}

void ReplicaSetController::OnEvent(const HistoryEvent& event) {
  const StoredObject& obj = event.object ? *event.object : *event.previous;
  if (event.resource == kReplicaSets) {
    if (event.type == WatchEventType::kDeleted) {
      by_uid_.erase(obj.uid);
      return;
    }
    by_uid_[obj.uid] = {obj.namespace_name, obj.name};
    dirty_.insert({obj.namespace_name, obj.name});
  } else if (event.resource == kPods) {
    for (const StoredObject* version : {event.object.get(), event.previous.get()}) {
      if (!version) continue;
      for (const auto& uid : version->owner_uids) {
        if (auto it = by_uid_.find(uid); it != by_uid_.end()) dirty_.insert(it->second);
      }
    }
  }
}

void ReplicaSetController::SyncDirty() {
  auto dirty = std::move(dirty_);
  dirty_.clear();
  for (const auto& [ns, name] : dirty) Sync(ns, name);
  if (!dirty.empty()) parsed_pods_.Sweep();
}

std::map<std::string, int64_t> ReplicaSetController::RelatedPodsPerNode(const rapidjson::Value& rs, const std::string& ns,
                                                                       const std::string& rs_uid) {
  // getIndirectlyRelatedPods: the pods of every ReplicaSet that shares this one's controller
  // (a Deployment's old and new ReplicaSets), or only this one's pods when it has none.
  std::set<std::string> owners{rs_uid};
  if (std::string owner(workload::ControllerUid(rs)); !owner.empty()) {
    auto siblings = api_.store().List(kReplicaSets, ns, [&](const StoredObject& o) {
      return std::find(o.owner_uids.begin(), o.owner_uids.end(), owner) != o.owner_uids.end();
    }, 0, 0, "");
    for (const auto& sibling : siblings->items) {
      if (workload::ControllerUid(workload::ParseStored(*sibling)) == owner) owners.insert(sibling->uid);
    }
  }
  std::map<std::string, int64_t> per_node;
  auto pods = api_.store().List(kPods, ns, [&](const StoredObject& o) {
    return std::any_of(o.owner_uids.begin(), o.owner_uids.end(), [&](const std::string& u) { return owners.contains(u); });
  }, 0, 0, "");
  for (const auto& p : pods->items) {
    const Document& d = parsed_pods_.Get(p);
    if (!owners.contains(std::string(workload::ControllerUid(d))) || !workload::IsActivePod(d)) continue;
    ++per_node[std::string(json::GetString(d, {"spec", "nodeName"}))];
  }
  return per_node;
}

void ReplicaSetController::Sync(const std::string& ns, const std::string& name) {
  ObjectPtr rs_obj = api_.store().Get(kReplicaSets, ns, name);
  if (!rs_obj) return;
  by_uid_[rs_obj->uid] = {ns, name};
  Document rs = workload::ParseStored(*rs_obj);
  const std::string uid = rs_obj->uid;
  auto list_owned = [&] {
    std::vector<OwnedPod> owned;
    auto page = api_.store().List(kPods, ns, [&](const StoredObject& o) {
      return std::find(o.owner_uids.begin(), o.owner_uids.end(), uid) != o.owner_uids.end();
    }, 0, 0, "");
    for (const auto& p : page->items) {
      const Document& d = parsed_pods_.Get(p);
      if (workload::ControllerUid(d) != uid) continue;
      owned.push_back(OwnedPod{p, d});
    }
    return owned;
  };
  std::vector<OwnedPod> owned = list_owned();
  const int64_t replicas = IntAt(rs, {"spec", "replicas"}, 1);
  ResourceTypePtr pod_type = api_.TypeOf("", "pods");
  bool failed = false;
  const EventSubject subject{"apps/v1", "ReplicaSet", ns, name, uid};
  if (!rs_obj->deleting && pod_type) {
    std::vector<const OwnedPod*> active;
    for (const auto& p : owned) {
      if (workload::IsActivePod(p.doc)) active.push_back(&p);
    }
    int64_t diff = static_cast<int64_t>(active.size()) - replicas;
    bool changed = false;
    if (diff < 0) {
      WriteOptions opts;
      opts.internal = true;
      opts.field_validation = "Ignore";
      for (int64_t i = 0; i < std::min(-diff, kBurstReplicas); ++i) {
        OpResult r = api_.DoCreate(*pod_type, ns, PodFromTemplate(rs, ns), opts);
        if (!r.ok()) {
          failed = true;  // e.g. the namespace is terminating: try again later
          break;
        }
        changed = true;
        RecordEvent(api_, subject, "replicaset-controller", "Normal", "SuccessfulCreate", "Created pod: " + r.object->name);
      }
    } else if (diff > 0) {
      std::map<std::string, int64_t> related_per_node = RelatedPodsPerNode(rs, ns, uid);
      std::vector<std::pair<ScaleDownFacts, const OwnedPod*>> ranked;
      for (const auto* p : active) ranked.emplace_back(FactsOf(p->doc, related_per_node), p);
      std::sort(ranked.begin(), ranked.end(),
                [](const auto& a, const auto& b) { return DeletesBefore(a.first, b.first); });
      for (size_t i = 0; i < ranked.size(); ++i) active[i] = ranked[i].second;
      for (int64_t i = 0; i < std::min(diff, kBurstReplicas); ++i) {
        DeleteOptions opts;
        opts.precondition_uid = active[i]->stored->uid;
        if (api_.DoDelete(*pod_type, ns, active[i]->stored->name, opts).ok()) {
          RecordEvent(api_, subject, "replicaset-controller", "Normal", "SuccessfulDelete",
                      "Deleted pod: " + active[i]->stored->name);
        }
        changed = true;
      }
    }
    if (changed) owned = list_owned();
  }

  // calculateStatus
  const int64_t min_ready = IntAt(rs, {"spec", "minReadySeconds"}, 0);
  const Value* template_labels = json::Find(rs, {"spec", "template", "metadata", "labels"});
  auto now = std::chrono::system_clock::now();
  int64_t count = 0, fully_labeled = 0, ready = 0, available = 0;
  std::optional<shim::TimePoint> next_available;
  for (const auto& p : owned) {
    if (!workload::IsActivePod(p.doc)) continue;
    ++count;
    if (workload::LabelsContain(json::Find(p.doc, {"metadata", "labels"}), template_labels)) ++fully_labeled;
    if (workload::ReadySince(p.doc)) ++ready;
    std::optional<shim::TimePoint> at;
    if (workload::IsPodAvailable(p.doc, min_ready, now, &at)) {
      ++available;
    } else if (at && (!next_available || *at < *next_available)) {
      next_available = at;
    }
  }
  const int64_t generation = IntAt(rs, {"metadata", "generation"}, 0);
  bool same = IntAt(rs, {"status", "replicas"}, 0) == count &&
              IntAt(rs, {"status", "fullyLabeledReplicas"}, 0) == fully_labeled &&
              IntAt(rs, {"status", "readyReplicas"}, 0) == ready &&
              IntAt(rs, {"status", "availableReplicas"}, 0) == available &&
              IntAt(rs, {"status", "observedGeneration"}, -1) == generation;
  if (!same) {
    ResourceTypePtr rs_type = api_.TypeOf("apps", "replicasets");
    api_.Mutate(*rs_type, ns, name, "status", [&](Document& d) {
      if (json::GetString(d, {"metadata", "uid"}) != uid) return false;
      auto& a = d.GetAllocator();
      Value& status = json::EnsureObject(d, "status", a);
      // Zero counts are omitted on the wire (omitempty), replicas is always written.
      json::SetMember(status, "replicas", Value(count), a);
      auto set_or_drop = [&](std::string_view field, int64_t v) {
        if (v == 0) {
          json::RemoveMember(status, field);
        } else {
          json::SetMember(status, field, Value(v), a);
        }
      };
      set_or_drop("fullyLabeledReplicas", fully_labeled);
      set_or_drop("readyReplicas", ready);
      set_or_drop("availableReplicas", available);
      json::SetMember(status, "observedGeneration", Value(generation), a);
      return true;
    });
  }
  if (next_available) {
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*next_available - now) +
                 std::chrono::milliseconds(1001);  // lastTransitionTime has whole seconds
    std::pair<std::string, std::string> key{ns, name};
    after_(std::max(delay, std::chrono::milliseconds(0)), [this, key] { dirty_.insert(key); });
  }
  if (failed) {
    std::pair<std::string, std::string> key{ns, name};
    after_(std::chrono::milliseconds(1000), [this, key] { dirty_.insert(key); });
  }
}

}  // namespace berth::kubesim
