// controllers/migration/migration_controller_state.cc
//
// MigrationController's bookkeeping between reconciles (split from migration_controller.cc): the
// Pending jobs in arbitration order and their wake-ups, the claims on cached PDB disruptions, the
// berth_migrations gauge, and the eviction request itself.
#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/migration/migration_controller.h"

namespace berth::controllers {

namespace mig = reconcile::migration;
using rapidjson::Value;

void MigrationController::TrackPending(const shim::ObjectPtr& job, bool present) {
  const std::string name(job->Name());
  std::lock_guard lock(pending_mu_);
  if (auto it = pending_by_name_.find(name); it != pending_by_name_.end()) {
    pending_.erase(it->second);
    pending_by_name_.erase(it);
  }
  if (!present || PhaseOf(job) != "Pending") return;
  // The pod's priority orders the held jobs (lowest first); a pod not in the cache yet counts as 0
  // until the job's next update.
  int64_t priority = 0;
  auto ns = job->FindString({"spec", "podRef", "namespace"});
  auto pod_name = job->FindString({"spec", "podRef", "name"});
  if (ns && pod_name) {
    if (auto pod = pods_->store().Get(*ns + "/" + *pod_name)) {
      auto value = pod->FindJson({"spec", "priority"});
      priority = PodPriorityValue(value ? &*value : nullptr).value_or(0);
    }
  }
  mig::HeldJob held{priority, job->FindString({"metadata", "creationTimestamp"}).value_or(""), name,
                    std::string(job->Uid())};
  pending_by_name_[name] = held;
  pending_.insert(std::move(held));
}

void MigrationController::EnqueuePending(size_t n) {
  std::vector<std::string> wake;
  {
    std::lock_guard lock(pending_mu_);
    if (pending_.empty()) return;
    wake = mig::HeldJobsToWake(pending_, arbiter_->AdmittedJobs(), n);
  }
  for (const auto& name : wake) EnqueueToEvict(name);
}

void MigrationController::AdjustForAcceptedEvictions(std::vector<mig::PdbFacts>& pdbs,
                                                     const std::vector<std::pair<std::string, std::string>>& keys,
                                                     const std::string& job_uid) {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < pdbs.size() && i < keys.size(); ++i) {
    auto it = disruption_claims_.find(keys[i].first);
    if (it == disruption_claims_.end() || it->second.first != keys[i].second) continue;
    const auto& claims = it->second.second;
    pdbs[i].disruptions_allowed -= static_cast<int64_t>(claims.size()) - (claims.contains(job_uid) ? 1 : 0);
  }
}

bool MigrationController::ClaimDisruption(const std::pair<std::string, std::string>& pdb, int64_t cached_allowed,
                                          const std::string& job_uid) {
  std::lock_guard lock(mu_);
  auto& entry = disruption_claims_[pdb.first];
  if (entry.first != pdb.second) entry = {pdb.second, {}};  // a newer budget counts what went before
  if (entry.second.contains(job_uid)) return true;
  if (cached_allowed - static_cast<int64_t>(entry.second.size()) <= 0) return false;
  entry.second.insert(job_uid);
  return true;
}

void MigrationController::ReleaseDisruption(const std::pair<std::string, std::string>& pdb,
                                            const std::string& job_uid) {
  std::lock_guard lock(mu_);
  if (auto it = disruption_claims_.find(pdb.first); it != disruption_claims_.end()) it->second.second.erase(job_uid);
}

void MigrationController::CountPhase(const shim::ObjectPtr& old_object, const shim::ObjectPtr& new_object) {
  phases_.Move(old_object ? std::optional(PhaseOf(old_object)) : std::nullopt,
               new_object ? std::optional(PhaseOf(new_object)) : std::nullopt);
}

std::string MigrationController::Strategy(const shim::CachedObject& job) const {
  // koord-descheduler names the plugin that created a job in koordinator.sh/evict-trigger.
  auto trigger = job.FindString({"metadata", "annotations", "koordinator.sh/evict-trigger"});
  return trigger && !trigger->empty() ? *trigger : "PodMigrationJob";
}

mig::EvictionOutcome MigrationController::Evict(const mig::JobSnapshot& job, mig::EvictionPolicy policy) {
  shim::ResourceRef pod{"", "v1", "pods", job.pod_namespace, job.pod_name};
  if (policy == mig::EvictionPolicy::kDelete) {
    shim::RestRequest request;
    request.method = "DELETE";
    request.path = shim::ResourcePath(pod);
    // The job's spec.deleteOptions.gracePeriodSeconds, as koordinator's evictor passes it.
    if (job.grace_period_seconds) request.query["gracePeriodSeconds"] = std::to_string(*job.grace_period_seconds);
    auto deleted = client_.rest().Do(request);
    if (deleted) return {mig::EvictionResult::kAccepted, deleted->status, ""};
    const Error& e = deleted.error();
    if (e.code == ErrorCode::kFenced) return {mig::EvictionResult::kRetryable, 0, e.message};
    return {mig::ClassifyEviction(e.http_status, e.message), e.http_status, e.message, e.retry_after};
  }
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "policy/v1", a);
  json::SetString(body, "kind", "Eviction", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "name", job.pod_name, a);
  json::SetString(meta, "namespace", job.pod_namespace, a);
  // The uid precondition: never evict a new pod that took the old one's name.
  if (job.pod) {
    Value& options = json::EnsureObject(body, "deleteOptions", a);
    Value& pre = json::EnsureObject(options, "preconditions", a);
    json::SetString(pre, "uid", job.pod->uid, a);
  }
  if (job.grace_period_seconds) {
    // spec.deleteOptions.gracePeriodSeconds (koordinator's "Evicting Pods Gracefully").
    Value& options = json::EnsureObject(body, "deleteOptions", a);
    options.AddMember("gracePeriodSeconds", Value(*job.grace_period_seconds), a);
  }
  shim::RestRequest request;
  request.method = "POST";
  request.path = shim::ResourcePath(pod, "eviction");
  request.body = json::Serialize(body);
  auto answer = client_.rest().Do(request);
  if (answer) return {mig::EvictionResult::kAccepted, answer->status, ""};
  const Error& e = answer.error();
  if (e.code == ErrorCode::kFenced) return {mig::EvictionResult::kRetryable, 0, e.message};
  return {mig::ClassifyEviction(e.http_status, e.message), e.http_status, e.message, e.retry_after};
}

}  // namespace berth::controllers
