#include "controllers/migration/workload_tallies.h"

#include <array>
#include <cstddef>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

// TallyFilter: the members TallyOf reads, decoded in one pass over the packed pod (a cold start
// tallies every cached pod; a lookup per member walked the packed bytes once each, and each
// FindJson built a Document with its own 64 KB first chunk).
const shim::PackedFilter& TallyFilter() {
  static const shim::PackedFilter owner{.keep = {"uid", "controller"}};
  static const shim::PackedFilter metadata{.keep = {"ownerReferences", "deletionTimestamp"},
                                           .nested = {{"ownerReferences", &owner}}};
  static const shim::PackedFilter condition{.keep = {"type", "status"}};
  static const shim::PackedFilter status{.keep = {"phase", "conditions"}, .nested = {{"conditions", &condition}}};
  static const shim::PackedFilter pod{.keep = {"metadata", "status"},
                                      .nested = {{"metadata", &metadata}, {"status", &status}}};
  return pod;
}

bool Unavailable(const rapidjson::Value& pod) {
  if (!json::GetString(pod, {"metadata", "deletionTimestamp"}).empty()) return true;
  if (json::GetString(pod, {"status", "phase"}) != "Running") return true;
  const rapidjson::Value* conds = json::Find(pod, {"status", "conditions"});
  if (!conds || !conds->IsArray()) return true;
  for (const auto& c : conds->GetArray()) {
    if (json::GetString(c, {"type"}) == "Ready") return json::GetString(c, {"status"}) != "True";
  }
  return true;
}

}  // namespace

std::optional<WorkloadTallies::PodTally> WorkloadTallies::TallyOf(const shim::CachedObject& pod) {
  // The DOM lives in a per-thread buffer (rapidjson falls back to the heap past it).
  alignas(std::max_align_t) thread_local std::array<char, 4096> buffer;
  rapidjson::MemoryPoolAllocator<> allocator(buffer.data(), buffer.size());
  rapidjson::Document doc(&allocator);
  // Strings point into `pod` (held for the call); the tally copies the one it keeps.
  if (!pod.FindFilteredView(TallyFilter(), doc, allocator) || !doc.IsObject()) return std::nullopt;
  PodTally tally;
  if (const rapidjson::Value* refs = json::Find(doc, {"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& r : refs->GetArray()) {
      const rapidjson::Value* controller = json::Member(r, "controller");
      if (controller && controller->IsBool() && controller->GetBool()) tally.workload = json::GetString(r, {"uid"});
    }
  }
  const std::string_view phase = json::GetString(doc, {"status", "phase"});
  if (tally.workload.empty() || phase == "Succeeded" || phase == "Failed") return std::nullopt;
  tally.unavailable = Unavailable(doc);
  return tally;
}

void WorkloadTallies::OnAdd(const shim::CachedObject& pod) {
  auto tally = TallyOf(pod);
  if (!tally) return;
  std::lock_guard lock(mu_);
  AddLocked(pod.Key(), *tally);
}

void WorkloadTallies::OnUpdate(const shim::CachedObject& old_pod, const shim::CachedObject& new_pod) {
  auto before = TallyOf(old_pod);
  auto after = TallyOf(new_pod);
  if (before == after) return;
  std::lock_guard lock(mu_);
  if (before) RemoveLocked(new_pod.Key(), *before);
  if (after) AddLocked(new_pod.Key(), *after);
}

void WorkloadTallies::OnDelete(const shim::CachedObject& last_state) {
  auto tally = TallyOf(last_state);
  if (!tally) return;
  std::lock_guard lock(mu_);
  RemoveLocked(last_state.Key(), *tally);
}

void WorkloadTallies::AddLocked(std::string_view pod_key, const PodTally& tally) {
  Workload& w = workloads_[tally.workload];
  ++w.active;
  if (tally.unavailable) w.unavailable.emplace(pod_key);
}

void WorkloadTallies::RemoveLocked(std::string_view pod_key, const PodTally& tally) {
  auto it = workloads_.find(tally.workload);
  if (it == workloads_.end()) return;  // never added (cannot happen with the store's events)
  --it->second.active;
  if (tally.unavailable) {
    if (auto key = it->second.unavailable.find(pod_key); key != it->second.unavailable.end()) {
      it->second.unavailable.erase(key);
    }
  }
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
