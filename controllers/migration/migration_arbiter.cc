#include "controllers/migration/migration_arbiter.h"

#include <cstdlib>

#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_codec.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

bool Unavailable(const shim::CachedObject& pod) {
  if (pod.FindString({"metadata", "deletionTimestamp"}).value_or("") != "") return true;
  if (pod.FindString({"status", "phase"}).value_or("") != "Running") return true;
  auto conds = pod.FindJson({"status", "conditions"});
  if (!conds || !conds->IsArray()) return true;
  for (const auto& c : conds->GetArray()) {
    if (json::GetString(c, {"type"}) == "Ready") return json::GetString(c, {"status"}) != "True";
  }
  return true;
}

bool Finished(const shim::CachedObject& pod) {
  std::string phase = pod.FindString({"status", "phase"}).value_or("");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

MigrationArbiter::MigrationArbiter(ArbitrationOptions options, std::shared_ptr<shim::SharedInformer> jobs,
                                   std::shared_ptr<shim::SharedInformer> pods,
                                   std::shared_ptr<shim::SharedInformer> replicasets)
    : options_(std::move(options)),
      jobs_(std::move(jobs)),
      pods_(std::move(pods)),
      replicasets_(std::move(replicasets)),
      bucket_(options_.evict_qps, options_.evict_burst) {
  auto pod_changed = [this](const shim::ObjectPtr& pod) {
    if (!pod) return;
    auto refs = pod->FindJson({"metadata", "ownerReferences"});
    if (!refs || !refs->IsArray()) return;
    for (const auto& r : refs->GetArray()) {
      const rapidjson::Value* controller = json::Member(r, "controller");
      if (controller && controller->IsBool() && controller->GetBool()) {
        InvalidateWorkload(std::string(json::GetString(r, {"uid"})));
      }
    }
  };
  pods_->AddEventHandler(shim::EventHandler{
      [pod_changed](const shim::ObjectPtr& obj, bool) { pod_changed(obj); },
      [pod_changed](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        pod_changed(old_obj);
        pod_changed(new_obj);
      },
      [pod_changed](const shim::DeletedObject& deleted) { pod_changed(deleted.object); }});
  if (replicasets_) {
    auto rs_changed = [this](const shim::ObjectPtr& rs) {
      if (rs) InvalidateWorkload(std::string(rs->Uid()));
    };
    replicasets_->AddEventHandler(shim::EventHandler{
        [rs_changed](const shim::ObjectPtr& obj, bool) { rs_changed(obj); },
        [rs_changed](const shim::ObjectPtr&, const shim::ObjectPtr& new_obj) { rs_changed(new_obj); },
        [rs_changed](const shim::DeletedObject& deleted) { rs_changed(deleted.object); }});
  }
}

std::optional<mig::WorkloadFacts> MigrationArbiter::Workload(const mig::PodFacts& pod) {
  if (pod.controller_uid.empty()) return std::nullopt;
  uint64_t generation;
  {
    std::lock_guard lock(workloads_mu_);
    if (auto it = workloads_.find(pod.controller_uid); it != workloads_.end()) return it->second;
    generation = workload_generation_[pod.controller_uid];
  }
  mig::WorkloadFacts w = ComputeWorkload(pod);
  std::lock_guard lock(workloads_mu_);
  // A pod event since the read above invalidated what was read: not cached.
  if (workload_generation_[pod.controller_uid] == generation) workloads_[pod.controller_uid] = w;
  return w;
}

void MigrationArbiter::InvalidateWorkload(const std::string& controller_uid) {
  std::lock_guard lock(workloads_mu_);
  workloads_.erase(controller_uid);
  ++workload_generation_[controller_uid];
}

mig::WorkloadFacts MigrationArbiter::ComputeWorkload(const mig::PodFacts& pod) const {
  mig::WorkloadFacts w;
  w.key = pod.controller_uid;
  w.description = pod.controller_kind + " " + pod.namespace_name + "/" + pod.controller_name;
  int64_t active = 0;
  if (auto pods = pods_->store().ByIndex(kPodControllerUidIndex, pod.controller_uid)) {
    for (const auto& p : *pods) {
      if (Finished(*p)) continue;
      ++active;
      if (Unavailable(*p)) w.unavailable_pods.insert(std::string(p->Namespace()) + "/" + std::string(p->Name()));
    }
  }
  w.expected_replicas = active;
  if (pod.controller_kind == "ReplicaSet" && replicasets_) {
    if (auto rs = replicasets_->store().Get(pod.namespace_name + "/" + pod.controller_name);
        rs && rs->Uid() == pod.controller_uid) {
      rapidjson::Value replicas;
      rapidjson::Document scratch;
      if (rs->FindValue({"spec", "replicas"}, replicas, scratch.GetAllocator()) && replicas.IsInt64()) {
        w.expected_replicas = replicas.GetInt64();
      } else {
        w.expected_replicas = 1;  // the API server's default for an absent spec.replicas
      }
    }
  }
  return w;
}

std::optional<mig::LimitHit> MigrationArbiter::Admit(const std::string& job_uid, const mig::PodFacts& pod) {
  mig::ArbitrationInput in;
  in.pod_key = pod.namespace_name + "/" + pod.name;
  in.node_name = pod.node_name;
  in.namespace_name = pod.namespace_name;
  in.bypass = pod.evict_annotation;
  in.workload = Workload(pod);

  std::lock_guard lock(mu_);
  // Running jobs this process did not admit (before a restart, or another leader's) count from
  // the caches.
  auto running = jobs_->store().ByIndex(kJobPhaseIndex, "Running");
  for (const auto& job : running ? *running : std::vector<shim::ObjectPtr>{}) {
    if (admitted_.contains(std::string(job->Uid()))) continue;
    mig::MigratingPod m;
    m.namespace_name = job->FindString({"spec", "podRef", "namespace"}).value_or("");
    m.pod_key = m.namespace_name + "/" + job->FindString({"spec", "podRef", "name"}).value_or("");
    auto p = pods_->store().Get(m.pod_key);
    const std::string pod_uid = job->FindString({"spec", "podRef", "uid"}).value_or("");
    if (p && (pod_uid.empty() || p->Uid() == pod_uid)) {
      if (auto pj = p->ToJson()) {
        mig::PodFacts facts = ReadPodFacts(*pj);
        m.node_name = facts.node_name;
        m.workload_key = facts.controller_uid;
      }
    } else {
      m.pod_gone = true;
    }
    in.migrating.push_back(std::move(m));
  }
  for (const auto& [uid, admitted] : admitted_) {
    if (uid == job_uid) continue;
    mig::MigratingPod copy = admitted.pod;
    // An evicted pod that is gone (or whose name a new pod took) no longer counts on its node or
    // for its workload (mig::MigratingPod::pod_gone).
    auto p = pods_->store().Get(copy.pod_key);
    copy.pod_gone = !p || p->Uid() != admitted.pod_uid;
    in.migrating.push_back(std::move(copy));
  }
  if (auto hit = mig::Arbitrate(in, options_.limits)) return hit;
  admitted_[job_uid] = {mig::MigratingPod{in.pod_key, pod.node_name, pod.namespace_name, pod.controller_uid}, pod.uid};
  return std::nullopt;
}

std::set<std::string> MigrationArbiter::AdmittedJobs() {
  std::lock_guard lock(mu_);
  std::set<std::string> out;
  for (const auto& [uid, admitted] : admitted_) out.insert(uid);
  return out;
}

void MigrationArbiter::Forget(const std::string& job_uid) {
  std::lock_guard lock(mu_);
  admitted_.erase(job_uid);
}

reconcile::Duration MigrationArbiter::TakeEvictionToken(reconcile::Time now) {
  std::lock_guard lock(mu_);
  return bucket_.TryTake(now);
}

}  // namespace berth::controllers
