// controllers/migration/migration_reserve_ahead.cc
//
// Reserving a wave ahead (reconcile/migration/reserve_ahead.h), split from
// migration_controller.cc: each workload's held jobs in turn order, kept from the job events, and
// which of them the pure rule lets create their reservation while the wave under way (the
// workload's admitted jobs) runs.
#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_controller.h"
#include "reconcile/migration/reserve_ahead.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

// The uid of the pod's controller (ownerReferences[controller=true]), "" for none.
std::string ControllerUid(const shim::CachedObject& pod) {
  auto refs = pod.FindJson({"metadata", "ownerReferences"});
  if (!refs || !refs->IsArray()) return "";
  for (const auto& r : refs->GetArray()) {
    const rapidjson::Value* controller = json::Member(r, "controller");
    if (controller && controller->IsBool() && controller->GetBool()) return std::string(json::GetString(r, {"uid"}));
  }
  return "";
}

}  // namespace

void MigrationController::TrackReserveAhead(const shim::ObjectPtr& job, bool present) {
  if (!options_.arbitration.reserve_ahead) return;
  const std::string name(job->Name());
  std::lock_guard lock(pending_mu_);
  if (auto it = held_workload_.find(name); it != held_workload_.end()) {
    const HeldOfWorkload& old = it->second;
    if (auto w = held_by_workload_.find(old.workload); w != held_by_workload_.end()) {
      w->second.erase(old.order);
      if (w->second.empty()) held_by_workload_.erase(w);
    }
    if (old.has_reservation && --reserved_while_held_[old.workload] <= 0) reserved_while_held_.erase(old.workload);
    held_uid_to_name_.erase(old.order.uid);
    held_workload_.erase(it);
  }
  if (!present) return;
  // Held jobs only: TrackPending ran first and keeps the Pending ones, with their turn order.
  auto pending = pending_by_name_.find(name);
  if (pending == pending_by_name_.end()) return;
  auto ns = job->FindString({"spec", "podRef", "namespace"});
  auto pod_name = job->FindString({"spec", "podRef", "name"});
  if (!ns || !pod_name) return;
  auto pod = pods_->store().Get(*ns + "/" + *pod_name);
  if (!pod) return;  // the job's next update (or its reconcile's wake-up) tracks it
  const std::string pod_uid = job->FindString({"spec", "podRef", "uid"}).value_or("");
  if (!pod_uid.empty() && pod_uid != pod->Uid()) return;
  HeldOfWorkload entry{ControllerUid(*pod), pending->second,
                       !job->FindString({"spec", "reservationOptions", "reservationRef", "name"}).value_or("").empty(),
                       pod->FindString({"spec", "nodeName"}).value_or(""), false};
  if (auto paused = job->FindJson({"spec", "paused"}); paused && paused->IsBool()) entry.paused = paused->GetBool();
  if (entry.workload.empty()) return;
  held_by_workload_[entry.workload].insert(entry.order);
  if (entry.has_reservation) ++reserved_while_held_[entry.workload];
  held_uid_to_name_[entry.order.uid] = name;
  held_workload_.emplace(name, std::move(entry));
}

std::vector<std::string> MigrationController::ReserveAheadCandidates(const std::string& workload_uid) {
  if (!options_.arbitration.reserve_ahead || workload_uid.empty()) return {};
  const std::set<std::string> admitted = arbiter_->AdmittedOfWorkload(workload_uid);
  if (admitted.empty()) return {};
  mig::ReserveAheadInput in;
  in.in_flight = static_cast<int64_t>(admitted.size());
  std::lock_guard lock(pending_mu_);
  auto w = held_by_workload_.find(workload_uid);
  if (w == held_by_workload_.end()) return {};
  if (auto r = reserved_while_held_.find(workload_uid); r != reserved_while_held_.end()) {
    in.reserved_while_held = r->second;
  }
  // Admitted jobs whose Running status the cache has not shown are still tracked as held; they
  // are the wave under way (in_flight), not jobs reserving ahead.
  for (const auto& uid : admitted) {
    auto name = held_uid_to_name_.find(uid);
    if (name == held_uid_to_name_.end()) continue;
    if (auto e = held_workload_.find(name->second); e != held_workload_.end() && e->second.has_reservation) {
      --in.reserved_while_held;
    }
  }
  for (const auto& held : w->second) {
    if (static_cast<int64_t>(in.first_in_line.size()) >= in.in_flight) break;
    if (admitted.contains(held.uid)) continue;
    auto e = held_workload_.find(held.name);
    in.first_in_line.push_back({held.name, e != held_workload_.end() && e->second.has_reservation});
  }
  return mig::JobsToReserveAhead(in);
}

std::vector<std::string> MigrationController::ReservedAheadGoingFirst(const std::string& job_name,
                                                                      const std::string& workload_uid,
                                                                      const std::string& node_name) {
  if (!options_.arbitration.reserve_ahead || workload_uid.empty()) return {};
  const std::set<std::string> admitted = arbiter_->AdmittedOfWorkload(workload_uid);
  std::vector<mig::AheadInLine> ahead;
  {
    std::lock_guard lock(pending_mu_);
    auto self = held_workload_.find(job_name);
    auto w = held_by_workload_.find(workload_uid);
    if (self == held_workload_.end() || w == held_by_workload_.end()) return {};
    for (const auto& held : w->second) {
      if (!(held < self->second.order)) break;
      auto e = held_workload_.find(held.name);
      if (e == held_workload_.end() || !e->second.has_reservation) continue;
      ahead.push_back({held.name, e->second.node_name, true, admitted.contains(held.uid), e->second.paused});
    }
  }
  return mig::ReservedAheadGoFirst(ahead, node_name, kWakeOnChange);
}

void MigrationController::WakeReserveAhead(const std::string& workload_uid) {
  for (const auto& name : ReserveAheadCandidates(workload_uid)) Enqueue(name);
}

}  // namespace berth::controllers
