#include "controllers/migration/workload_tallies.h"

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

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

std::optional<WorkloadTallies::PodTally> WorkloadTallies::TallyOf(const shim::CachedObject& pod) {
  PodTally tally;
  if (auto refs = pod.FindJson({"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& r : refs->GetArray()) {
      const rapidjson::Value* controller = json::Member(r, "controller");
      if (controller && controller->IsBool() && controller->GetBool()) tally.workload = json::GetString(r, {"uid"});
    }
  }
  if (tally.workload.empty() || Finished(pod)) return std::nullopt;
  tally.unavailable = Unavailable(pod);
  return tally;
}

void WorkloadTallies::OnAdd(const shim::CachedObject& pod) {
  auto tally = TallyOf(pod);
  if (!tally) return;
  std::lock_guard lock(mu_);
  AddLocked(std::string(pod.Key()), *tally);
}

void WorkloadTallies::OnUpdate(const shim::CachedObject& old_pod, const shim::CachedObject& new_pod) {
  auto before = TallyOf(old_pod);
  auto after = TallyOf(new_pod);
  if (before == after) return;
  const std::string key(new_pod.Key());
  std::lock_guard lock(mu_);
  if (before) RemoveLocked(key, *before);
  if (after) AddLocked(key, *after);
}

void WorkloadTallies::OnDelete(const shim::CachedObject& last_state) {
  auto tally = TallyOf(last_state);
  if (!tally) return;
  std::lock_guard lock(mu_);
  RemoveLocked(std::string(last_state.Key()), *tally);
}

void WorkloadTallies::AddLocked(const std::string& pod_key, const PodTally& tally) {
  Workload& w = workloads_[tally.workload];
  ++w.active;
  if (tally.unavailable) w.unavailable.insert(pod_key);
}

void WorkloadTallies::RemoveLocked(const std::string& pod_key, const PodTally& tally) {
  auto it = workloads_.find(tally.workload);
  if (it == workloads_.end()) return;  // never added (cannot happen with the store's events)
  --it->second.active;
  if (tally.unavailable) it->second.unavailable.erase(pod_key);
  if (it->second.active <= 0 && it->second.unavailable.empty()) workloads_.erase(it);
}

std::optional<WorkloadTallies::Workload> WorkloadTallies::Of(const std::string& workload_uid) const {
  std::lock_guard lock(mu_);
  auto it = workloads_.find(workload_uid);
  if (it == workloads_.end()) return std::nullopt;
  return it->second;
}

size_t WorkloadTallies::WorkloadCount() const {
  std::lock_guard lock(mu_);
  return workloads_.size();
}

}  // namespace berth::controllers
