#include "controllers/migration/migration_arbiter.h"

#include <cstdlib>

#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_codec.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

}  // namespace

MigrationArbiter::MigrationArbiter(ArbitrationOptions options, std::shared_ptr<shim::SharedInformer> jobs,
                                   std::shared_ptr<shim::SharedInformer> pods,
                                   std::shared_ptr<shim::SharedInformer> replicasets)
    : options_(std::move(options)),
      jobs_(std::move(jobs)),
      pods_(std::move(pods)),
      replicasets_(std::move(replicasets)),
      bucket_(options_.evict_qps, options_.evict_burst) {
  pods_->AddEventHandler(shim::EventHandler{
      [this](const shim::ObjectPtr& obj, bool) {
        if (obj) tallies_.OnAdd(*obj);
      },
      [this](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        if (old_obj && new_obj) tallies_.OnUpdate(*old_obj, *new_obj);
      },
      [this](const shim::DeletedObject& deleted) {
        if (deleted.object) tallies_.OnDelete(*deleted.object);
      }});
}

std::optional<mig::WorkloadFacts> MigrationArbiter::Workload(const mig::PodFacts& pod) {
  if (pod.controller_uid.empty()) return std::nullopt;
  mig::WorkloadFacts w;
  w.key = pod.controller_uid;
  w.description = pod.controller_kind + " " + pod.namespace_name + "/" + pod.controller_name;
  if (auto tally = tallies_.Of(pod.controller_uid)) {
    w.expected_replicas = tally->active;
    w.unavailable_pods.insert(tally->unavailable.begin(), tally->unavailable.end());
  }
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
  {
    // Admitted before (its reconcile then stopped short of writing Running, e.g. waiting for its
    // reservation in the cache): it keeps its slot. Arbitrated again, it would count itself held
    // while its admission still counted as migrating, and the wake-ups skip admitted jobs: it
    // would wait for its own recheck.
    std::lock_guard lock(mu_);
    if (admitted_.contains(job_uid)) return std::nullopt;
  }
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

bool MigrationArbiter::IsAdmitted(const std::string& job_uid) {
  std::lock_guard lock(mu_);
  return admitted_.contains(job_uid);
}

std::set<std::string> MigrationArbiter::AdmittedJobs() {
  std::lock_guard lock(mu_);
  std::set<std::string> out;
  for (const auto& [uid, admitted] : admitted_) out.insert(uid);
  return out;
}

std::set<std::string> MigrationArbiter::AdmittedOfWorkload(const std::string& workload_uid) {
  std::lock_guard lock(mu_);
  std::set<std::string> out;
  for (const auto& [uid, admitted] : admitted_) {
    if (admitted.pod.workload_key == workload_uid) out.insert(uid);
  }
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
