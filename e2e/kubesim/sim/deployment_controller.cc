#include "e2e/kubesim/sim/deployment_controller.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/disruption/int_or_percent.h"
#include "e2e/kubesim/sim/deployment_status.h"
#include "e2e/kubesim/sim/workload_events.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using workload::IntAt;

constexpr char kDeployments[] = "apps/deployments";
constexpr char kReplicaSets[] = "apps/replicasets";
constexpr char kPods[] = "/pods";
constexpr char kHashLabel[] = "pod-template-hash";
constexpr char kRevision[] = "deployment.kubernetes.io/revision";
constexpr char kDesiredReplicas[] = "deployment.kubernetes.io/desired-replicas";
constexpr char kMaxReplicas[] = "deployment.kubernetes.io/max-replicas";
// rand.SafeEncodeString's alphabet (no vowels, no 0/1/3: no words, no look-alikes).
constexpr char kSafeAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";

void CanonicalJson(const Value& v, std::string& out) {
  if (v.IsObject()) {
    std::vector<const Value::Member*> members;
    for (const auto& m : v.GetObject()) members.push_back(&m);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    out += '{';
    for (size_t i = 0; i < members.size(); ++i) {
      if (i) out += ',';
      out += json::Serialize(members[i]->name);
      out += ':';
      CanonicalJson(members[i]->value, out);
    }
    out += '}';
  } else if (v.IsArray()) {
    out += '[';
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (i) out += ',';
      CanonicalJson(v[i], out);
    }
    out += ']';
  } else {
    out += json::Serialize(v);
  }
}

// DropNulls removes null members of objects, recursively: upstream compares decoded Go structs,
// where `creationTimestamp: null` (as kubectl rollout undo sends it) and an absent field are equal.
void DropNulls(Value& v) {
  if (v.IsObject()) {
    for (auto m = v.MemberBegin(); m != v.MemberEnd();) {
      if (m->value.IsNull()) {
        m = v.EraseMember(m);
      } else {
        DropNulls(m->value);
        ++m;
      }
    }
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray()) DropNulls(e);
  }
}

// TemplateWithoutHash copies a pod template without nulls and without its pod-template-hash label.
Document TemplateWithoutHash(const Value* pod_template) {
  Document copy(rapidjson::kObjectType);
  if (pod_template && pod_template->IsObject()) copy.CopyFrom(*pod_template, copy.GetAllocator());
  DropNulls(copy);
  if (Value* labels = json::FindMutable(copy, {"metadata", "labels"}); labels && labels->IsObject()) {
    json::RemoveMember(*labels, kHashLabel);
    if (labels->MemberCount() == 0) json::RemoveMember(copy["metadata"], "labels");
  }
  return copy;
}

struct OwnedRs {
  ObjectPtr stored;
  Document doc;
  const std::string& name() const { return stored->name; }
  int64_t Replicas() const { return IntAt(doc, {"spec", "replicas"}, 1); }
  int64_t Status(std::string_view field) const {
    const Value* status = json::Member(doc, "status");
    const Value* v = status ? json::Member(*status, field) : nullptr;
    return v && v->IsInt64() ? v->GetInt64() : 0;
  }
  int64_t Revision() const {
    std::string_view text = json::GetString(doc, {"metadata", "annotations", kRevision});
    int64_t r = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return 0;
      r = r * 10 + (c - '0');
    }
    return r;
  }
};

int64_t ScaledOr(const Value* v, int64_t total, bool round_up, int64_t fallback_percent) {
  if (v) {
    if (auto r = disruption::ScaledValueFromIntOrPercent(*v, total, round_up)) return *r;
  }
  int64_t scaled = fallback_percent * total;
  return round_up ? (scaled + 99) / 100 : scaled / 100;
}

// ScaleProportionally is upstream's scale() for several active ReplicaSets during a rollout:
// the change in allowed size (replicas + maxSurge) is spread in proportion to each ReplicaSet's
// share of the size recorded in its max-replicas annotation; the leftover goes to the first
// (largest; newer first when adding, older first when removing).
template <typename ScaleFn>
void ScaleProportionally(std::vector<OwnedRs*> rses, int64_t replicas, int64_t max_surge, int64_t status_replicas,
                         ScaleFn& scale) {
  int64_t current = 0;
  for (const auto* rs : rses) current += rs->Replicas();
  const int64_t allowed = replicas > 0 ? replicas + max_surge : 0;
  const int64_t to_add = allowed - current;
  if (to_add == 0 || rses.empty()) return;
  // rses come oldest first; stable sorts keep that order among equal sizes.
  if (to_add > 0) std::reverse(rses.begin(), rses.end());
  std::stable_sort(rses.begin(), rses.end(), [](const OwnedRs* a, const OwnedRs* b) { return a->Replicas() > b->Replicas(); });
  std::vector<int64_t> sizes;
  int64_t added = 0;
  for (const auto* rs : rses) {
    int64_t proportion = 0;
    if (rs->Replicas() != 0 && to_add != added) {
      int64_t fraction = 0;
      if (replicas == 0) {
        fraction = -rs->Replicas();
      } else {
        int64_t before = 0;
        std::string_view text = json::GetString(rs->doc, {"metadata", "annotations", kMaxReplicas});
        for (char c : text) before = (c >= '0' && c <= '9') ? before * 10 + (c - '0') : 0;
        if (before == 0) before = status_replicas;
        if (before != 0) {
          fraction = std::llround(static_cast<double>(rs->Replicas() * (replicas + max_surge)) / static_cast<double>(before)) -
                     rs->Replicas();
        }
      }
      proportion = to_add > 0 ? std::min(fraction, to_add - added) : std::max(fraction, to_add - added);
    }
    sizes.push_back(rs->Replicas() + proportion);
    added += proportion;
  }
  sizes[0] = std::max<int64_t>(0, sizes[0] + to_add - added);
  for (size_t i = 0; i < rses.size(); ++i) scale(*rses[i], sizes[i]);
}

}  // namespace

std::string PodTemplateHash(const Value& pod_template, int64_t collision_count) {
  Document t = TemplateWithoutHash(&pod_template);
  std::string text;
  CanonicalJson(t, text);
  if (collision_count > 0) text += std::to_string(collision_count);
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  std::string digits = std::to_string(h), out;
  for (char c : digits) out += kSafeAlphabet[static_cast<unsigned char>(c) % (sizeof(kSafeAlphabet) - 1)];
  return out;
}

DeploymentController::DeploymentController(ApiServer& api, RunAfter after) : api_(api), after_(std::move(after)) {}

void DeploymentController::OnEvent(const HistoryEvent& event) {
  const StoredObject& obj = event.object ? *event.object : *event.previous;
  auto mark_owner = [&](const std::string& deployment_uid) {
    if (auto it = deployments_.find(deployment_uid); it != deployments_.end()) dirty_.insert(it->second);
  };
  if (event.resource == kDeployments) {
    if (event.type == WatchEventType::kDeleted) {
      deployments_.erase(obj.uid);
      return;
    }
    deployments_[obj.uid] = {obj.namespace_name, obj.name};
    dirty_.insert({obj.namespace_name, obj.name});
  } else if (event.resource == kReplicaSets) {
    for (const auto& uid : obj.owner_uids) {
      if (deployments_.count(uid)) {
        rs_owner_[obj.uid] = uid;
        mark_owner(uid);
      }
    }
    if (event.type == WatchEventType::kDeleted) rs_owner_.erase(obj.uid);
  } else if (event.resource == kPods && event.type == WatchEventType::kDeleted) {
    // Only Recreate waits on pods, and only for them to be gone.
    for (const auto& uid : obj.owner_uids) {
      if (auto it = rs_owner_.find(uid); it != rs_owner_.end()) mark_owner(it->second);
    }
  }
}

void DeploymentController::SyncDirty() {
  auto dirty = std::move(dirty_);
  dirty_.clear();
  for (const auto& [ns, name] : dirty) Sync(ns, name);
}

void DeploymentController::Sync(const std::string& ns, const std::string& name) {
  ObjectPtr d_obj = api_.store().Get(kDeployments, ns, name);
  if (!d_obj) return;
  const std::string uid = d_obj->uid;
  deployments_[uid] = {ns, name};
  Document d = workload::ParseStored(*d_obj);
  ResourceTypePtr rs_type = api_.TypeOf("apps", "replicasets");
  ResourceTypePtr d_type = api_.TypeOf("apps", "deployments");

  std::vector<OwnedRs> owned;
  {
    auto page = api_.store().List(kReplicaSets, ns, [&](const StoredObject& o) {
      return std::find(o.owner_uids.begin(), o.owner_uids.end(), uid) != o.owner_uids.end();
    }, 0, 0, "");
    for (const auto& rs : page->items) {
      Document doc = workload::ParseStored(*rs);
      if (workload::ControllerUid(doc) != uid) continue;
      rs_owner_[rs->uid] = uid;
      owned.push_back(OwnedRs{rs, std::move(doc)});
    }
  }
  // Oldest first, as controller.ReplicaSetsByCreationTimestamp.
  std::sort(owned.begin(), owned.end(), [](const OwnedRs& a, const OwnedRs& b) {
    std::string_view ta = json::GetString(a.doc, {"metadata", "creationTimestamp"});
    std::string_view tb = json::GetString(b.doc, {"metadata", "creationTimestamp"});
    return ta != tb ? ta < tb : a.name() < b.name();
  });

  const int64_t replicas = IntAt(d, {"spec", "replicas"}, 1);
  const bool rolling = json::GetString(d, {"spec", "strategy", "type"}, "RollingUpdate") != "Recreate";
  int64_t max_surge = 0, max_unavailable = 0;
  if (rolling) {
    max_surge = ScaledOr(json::Find(d, {"spec", "strategy", "rollingUpdate", "maxSurge"}), replicas, true, 25);
    max_unavailable = ScaledOr(json::Find(d, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}), replicas, false, 25);
    if (max_surge == 0 && max_unavailable == 0) max_unavailable = 1;  // ResolveFenceposts
  }
  const int64_t status_max_unavailable = replicas == 0 ? 0 : std::min(max_unavailable, replicas);
  const bool paused = json::Find(d, {"spec", "paused"}) && json::Find(d, {"spec", "paused"})->IsBool() &&
                      json::Find(d, {"spec", "paused"})->GetBool();
  DeploymentStatusBuilder status(d, status_max_unavailable);
  status.CheckPaused(paused);

  // The new ReplicaSet is the oldest one whose template equals the Deployment's (hash ignored).
  Document wanted = TemplateWithoutHash(json::Find(d, {"spec", "template"}));
  OwnedRs* new_rs = nullptr;
  int64_t max_old_revision = 0;
  for (auto& rs : owned) {
    if (!new_rs && TemplateWithoutHash(json::Find(rs.doc, {"spec", "template"})) == wanted) {
      new_rs = &rs;
    } else {
      max_old_revision = std::max(max_old_revision, rs.Revision());
    }
  }
  std::vector<OwnedRs*> old_rses;
  for (auto& rs : owned) {
    if (&rs != new_rs) old_rses.push_back(&rs);
  }
  const std::string new_revision = std::to_string(max_old_revision + 1);
  auto scale_rs = [&](OwnedRs& rs, int64_t to) {
    bool changed = false;
    api_.Mutate(*rs_type, ns, rs.name(), "", [&](Document& doc) {
      if (json::GetString(doc, {"metadata", "uid"}) != rs.stored->uid) return false;
      auto& a = doc.GetAllocator();
      Value& annotations = json::EnsureObject(json::EnsureObject(doc, "metadata", a), "annotations", a);
      std::string desired = std::to_string(replicas), max = std::to_string(replicas + max_surge);
      changed = IntAt(doc, {"spec", "replicas"}, 1) != to || json::GetString(annotations, {kDesiredReplicas}) != desired ||
                json::GetString(annotations, {kMaxReplicas}) != max;
      json::SetMember(json::EnsureObject(doc, "spec", a), "replicas", Value(to), a);
      json::SetString(annotations, kDesiredReplicas, desired, a);
      json::SetString(annotations, kMaxReplicas, max, a);
      return changed;
    });
    if (changed) {
      int64_t from = rs.Replicas();
      if (from != to) {
        RecordEvent(api_, EventSubject{"apps/v1", "Deployment", ns, name, uid}, "deployment-controller", "Normal",
                    "ScalingReplicaSet", std::string("Scaled ") + (to > from ? "up" : "down") + " replica set " +
                                             rs.name() + " from " + std::to_string(from) + " to " + std::to_string(to));
      }
      json::SetMember(json::EnsureObject(rs.doc, "spec", rs.doc.GetAllocator()), "replicas", Value(to), rs.doc.GetAllocator());
    }
    return changed;
  };
  auto set_deployment_revision = [&](const std::string& revision) {
    if (json::GetString(d, {"metadata", "annotations", kRevision}) == revision) return;
    api_.Mutate(*d_type, ns, name, "", [&](Document& doc) {
      if (json::GetString(doc, {"metadata", "uid"}) != uid) return false;
      auto& a = doc.GetAllocator();
      json::SetString(json::EnsureObject(json::EnsureObject(doc, "metadata", a), "annotations", a), kRevision, revision, a);
      return true;
    });
  };
  auto sum = [](const std::vector<OwnedRs*>& rses, auto field) {
    int64_t total = 0;
    for (const auto* rs : rses) total += field(*rs);
    return total;
  };
  auto spec_replicas = [](const OwnedRs& rs) { return rs.Replicas(); };

  // An existing new ReplicaSet: keep its revision the newest and minReadySeconds in step.
  // A Deployment being deleted only has its status synced (upstream syncStatusOnly): its
  // ReplicaSets are going away with it and must not be recreated.
  const bool deleting = d_obj->deleting;
  if (new_rs && !deleting) {
    std::string rs_revision = std::to_string(std::max(new_rs->Revision(), max_old_revision + 1));
    int64_t min_ready = IntAt(d, {"spec", "minReadySeconds"}, 0);
    if (new_rs->Revision() < max_old_revision + 1 || IntAt(new_rs->doc, {"spec", "minReadySeconds"}, 0) != min_ready) {
      api_.Mutate(*rs_type, ns, new_rs->name(), "", [&](Document& doc) {
        auto& a = doc.GetAllocator();
        json::SetString(json::EnsureObject(json::EnsureObject(doc, "metadata", a), "annotations", a), kRevision, rs_revision, a);
        json::SetMember(json::EnsureObject(doc, "spec", a), "minReadySeconds", Value(min_ready), a);
        return true;
      });
    }
    set_deployment_revision(rs_revision);
    status.FoundNewReplicaSet(new_rs->name());
  }

  auto create_new_rs = [&](int64_t initial) -> bool {
    int64_t collisions = IntAt(d, {"status", "collisionCount"}, 0);
    const Value* d_template = json::Find(d, {"spec", "template"});
    std::string hash = PodTemplateHash(d_template ? *d_template : wanted, collisions);
    Document rs(rapidjson::kObjectType);
    auto& a = rs.GetAllocator();
    rs.AddMember("apiVersion", "apps/v1", a);
    rs.AddMember("kind", "ReplicaSet", a);
    Value meta(rapidjson::kObjectType);
    json::SetString(meta, "name", name + "-" + hash, a);
    json::SetString(meta, "namespace", ns, a);
    Value labels(rapidjson::kObjectType);
    if (const Value* l = json::Find(wanted, {"metadata", "labels"}); l && l->IsObject()) labels.CopyFrom(*l, a);
    json::SetString(labels, kHashLabel, hash, a);
    meta.AddMember("labels", Value(labels, a), a);
    Value annotations(rapidjson::kObjectType);
    if (const Value* da = json::Find(d, {"metadata", "annotations"}); da && da->IsObject()) {
      for (const auto& m : da->GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        if (key == "kubectl.kubernetes.io/last-applied-configuration" || key.starts_with("deployment.kubernetes.io/")) continue;
        annotations.AddMember(Value(m.name, a), Value(m.value, a), a);
      }
    }
    json::SetString(annotations, kDesiredReplicas, std::to_string(replicas), a);
    json::SetString(annotations, kMaxReplicas, std::to_string(replicas + max_surge), a);
    json::SetString(annotations, kRevision, new_revision, a);
    meta.AddMember("annotations", annotations, a);
    Value owners(rapidjson::kArrayType);
    owners.PushBack(workload::MakeControllerRef("apps/v1", "Deployment", name, uid, a), a);
    meta.AddMember("ownerReferences", owners, a);
    rs.AddMember("metadata", meta, a);
    Value spec(rapidjson::kObjectType);
    spec.AddMember("replicas", Value(initial), a);
    spec.AddMember("minReadySeconds", Value(IntAt(d, {"spec", "minReadySeconds"}, 0)), a);
    Value selector(rapidjson::kObjectType);
    if (const Value* s = json::Find(d, {"spec", "selector"}); s && s->IsObject()) selector.CopyFrom(*s, a);
    json::SetString(json::EnsureObject(selector, "matchLabels", a), kHashLabel, hash, a);
    spec.AddMember("selector", selector, a);
    Value tmpl(wanted, a);
    json::SetString(json::EnsureObject(json::EnsureObject(tmpl, "metadata", a), "labels", a), kHashLabel, hash, a);
    spec.AddMember("template", tmpl, a);
    rs.AddMember("spec", spec, a);
    WriteOptions opts;
    opts.internal = true;
    opts.field_validation = "Ignore";
    OpResult r = api_.DoCreate(*rs_type, ns, std::move(rs), opts);
    if (!r.ok()) {
      // A ReplicaSet of that name with another template: a hash collision (upstream bumps
      // collisionCount and retries with a new name).
      if (r.error->status == 409) status.BumpCollisionCount();
      after_(std::chrono::milliseconds(r.error->status == 409 ? 0 : 1000), [this, ns, name] { dirty_.insert({ns, name}); });
      return false;
    }
    set_deployment_revision(new_revision);
    status.NewReplicaSetCreated(name + "-" + hash);
    if (initial > 0) {
      RecordEvent(api_, EventSubject{"apps/v1", "Deployment", ns, name, uid}, "deployment-controller", "Normal",
                  "ScalingReplicaSet", "Scaled up replica set " + name + "-" + hash + " from 0 to " + std::to_string(initial));
    }
    return true;
  };

  // Scaling event (upstream isScalingEvent): an active ReplicaSet's desired-replicas annotation
  // names another size. Then, and while paused, upstream's sync() only scales.
  std::vector<OwnedRs*> active;
  for (auto& rs : owned) {
    if (rs.Replicas() > 0) active.push_back(&rs);
  }
  bool scaling_event = false;
  for (const auto* rs : active) {
    const Value* desired = json::Find(rs->doc, {"metadata", "annotations", kDesiredReplicas});
    if (desired && desired->IsString() && std::string_view(desired->GetString()) != std::to_string(replicas)) {
      scaling_event = true;
    }
  }
  bool done = deleting;
  if (!done && (paused || scaling_event)) {
    done = true;
    OwnedRs* target = active.size() == 1 ? active[0] : (active.empty() ? (new_rs ? new_rs : (owned.empty() ? nullptr : &owned.back())) : nullptr);
    auto saturated = [&] {
      return new_rs && new_rs->Replicas() == replicas && new_rs->Status("availableReplicas") == replicas &&
             json::GetString(new_rs->doc, {"metadata", "annotations", kDesiredReplicas}) == std::to_string(replicas);
    };
    if (target) {
      scale_rs(*target, replicas);
    } else if (saturated()) {
      for (auto* rs : old_rses) {
        if (rs->Replicas() > 0) scale_rs(*rs, 0);
      }
    } else if (rolling) {
      ScaleProportionally(active, replicas, max_surge, IntAt(d, {"status", "replicas"}, 0), scale_rs);
    }
  }

  if (!done && rolling) {
    // rolloutRolling: scale the new ReplicaSet up within maxSurge, then old ones down within
    // maxUnavailable.
    int64_t all_pods = sum(old_rses, spec_replicas) + (new_rs ? new_rs->Replicas() : 0);
    int64_t max_total = replicas + max_surge;
    if (!new_rs) {
      int64_t initial = std::max<int64_t>(0, std::min(max_total - all_pods, replicas));
      create_new_rs(initial);
      done = true;
    } else if (new_rs->Replicas() != replicas) {
      int64_t to = replicas;
      if (new_rs->Replicas() < replicas) {
        to = all_pods >= max_total ? new_rs->Replicas()
                                   : new_rs->Replicas() + std::min(max_total - all_pods, replicas - new_rs->Replicas());
      }
      if (to != new_rs->Replicas() && scale_rs(*new_rs, to)) done = true;
    }
    if (!done && new_rs) {
      int64_t old_pods = sum(old_rses, spec_replicas);
      if (old_pods > 0) {
        all_pods = old_pods + new_rs->Replicas();
        int64_t min_available = replicas - max_unavailable;
        int64_t new_unavailable = new_rs->Replicas() - new_rs->Status("availableReplicas");
        int64_t max_scaled_down = all_pods - min_available - new_unavailable;
        if (max_scaled_down > 0) {
          // cleanupUnhealthyReplicas: unavailable old pods go first.
          int64_t cleaned = 0;
          for (auto* rs : old_rses) {
            if (cleaned >= max_scaled_down) break;
            int64_t unhealthy = rs->Replicas() - rs->Status("availableReplicas");
            if (rs->Replicas() == 0 || unhealthy <= 0) continue;
            int64_t n = std::min(max_scaled_down - cleaned, unhealthy);
            if (scale_rs(*rs, rs->Replicas() - n)) cleaned += n;
          }
          // scaleDownOldReplicaSetsForRollingUpdate: then available ones, down to minAvailable.
          int64_t available = 0;
          for (const auto& rs : owned) available += rs.Status("availableReplicas");
          int64_t scaled = 0;
          if (available > min_available) {
            int64_t budget = std::min(available - min_available, max_scaled_down - cleaned);
            for (auto* rs : old_rses) {
              if (scaled >= budget) break;
              if (rs->Replicas() == 0) continue;
              int64_t n = std::min(rs->Replicas(), budget - scaled);
              if (scale_rs(*rs, rs->Replicas() - n)) scaled += n;
            }
          }
          done = cleaned + scaled > 0;
        }
      }
    }
  } else if (!done) {
    // rolloutRecreate: every old pod gone before the new ReplicaSet scales up.
    for (auto* rs : old_rses) {
      if (rs->Replicas() > 0 && scale_rs(*rs, 0)) done = true;
    }
    bool old_running = sum(old_rses, [](const OwnedRs& rs) { return rs.Status("replicas"); }) > 0;
    if (!done && !old_running) {
      for (const auto* rs : old_rses) {
        const std::string rs_uid = rs->stored->uid;
        auto pods = api_.store().List(kPods, ns, [&](const StoredObject& o) {
          return std::find(o.owner_uids.begin(), o.owner_uids.end(), rs_uid) != o.owner_uids.end();
        }, 0, 0, "");
        for (const auto& p : pods->items) {
          auto phase = p->fields.find("status.phase");
          if (phase == p->fields.end() || (phase->second != "Failed" && phase->second != "Succeeded")) old_running = true;
        }
      }
    }
    if (!done && !old_running) {
      if (!new_rs) {
        create_new_rs(replicas);
      } else if (new_rs->Replicas() != replicas) {
        scale_rs(*new_rs, replicas);
      }
    }
  }

  // cleanupDeployment: once complete, old ReplicaSets beyond revisionHistoryLimit are deleted.
  if (!deleting && (paused || status.CurrentlyComplete(replicas))) {
    const Value* limit_v = json::Find(d, {"spec", "revisionHistoryLimit"});
    if (limit_v && limit_v->IsInt64()) {
      std::vector<OwnedRs*> cleanable;
      for (auto* rs : old_rses) {
        if (!rs->stored->deleting) cleanable.push_back(rs);
      }
      int64_t diff = static_cast<int64_t>(cleanable.size()) - limit_v->GetInt64();
      std::stable_sort(cleanable.begin(), cleanable.end(), [](const OwnedRs* a, const OwnedRs* b) { return a->Revision() < b->Revision(); });
      for (int64_t i = 0; i < diff; ++i) {
        OwnedRs* rs = cleanable[i];
        if (rs->Status("replicas") != 0 || rs->Replicas() != 0 ||
            IntAt(rs->doc, {"metadata", "generation"}, 0) > IntAt(rs->doc, {"status", "observedGeneration"}, 0)) {
          continue;
        }
        DeleteOptions opts;
        opts.precondition_uid = rs->stored->uid;
        api_.DoDelete(*rs_type, ns, rs->name(), opts);
      }
    }
  }

  // Status from the ReplicaSets as they are now stored.
  std::vector<DeploymentStatusBuilder::RsCounts> counts;
  std::string new_name = new_rs ? new_rs->name() : status.CreatedName();
  for (const auto& rs : owned) {
    counts.push_back({rs.Replicas(), rs.Status("replicas"), rs.Status("readyReplicas"), rs.Status("availableReplicas"),
                      rs.name() == new_name});
  }
  if (!new_rs && !new_name.empty()) counts.push_back({0, 0, 0, 0, true});
  Document next = status.Build(counts, new_name, paused);
  const Value* current_status = json::Find(d, {"status"});
  if (!current_status || !(next == *current_status)) {
    api_.Mutate(*d_type, ns, name, "status", [&](Document& doc) {
      if (json::GetString(doc, {"metadata", "uid"}) != uid) return false;
      json::SetMember(doc, "status", Value(next, doc.GetAllocator()), doc.GetAllocator());
      return true;
    });
  }
  if (auto recheck = status.RecheckAfter()) {
    after_(*recheck, [this, ns, name] { dirty_.insert({ns, name}); });
  }
}

}  // namespace berth::kubesim
