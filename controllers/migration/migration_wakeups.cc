// controllers/migration/migration_wakeups.cc
//
// Which jobs an event wakes (split from migration_controller.cc): a pod wakes the job migrating it
// and the job whose reservation it consumed; a reservation its job; a budget the running jobs that
// wait for it; and an evicted job whose own reservation no replacement took is woken by the pods
// and jobs of its workload that may give it one (reconcile/migration/replacement.h), whose facts
// are gathered here from the caches with the jobs' indexes.
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/migration/migration_controller.h"
#include "reconcile/common/annotation_json.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

constexpr const char* kPodIndex = kMigrationPodIndex;
constexpr const char* kReservationIndex = kMigrationReservationIndex;
constexpr const char* kAllocatedAnnotation = kReservationAllocatedAnnotation;

bool PodReady(const shim::CachedObject& pod) {
  auto conds = pod.FindJson({"status", "conditions"});
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray()) {
    if (json::GetString(c, {"type"}) == "Ready") return json::GetString(c, {"status"}) == "True";
  }
  return false;
}

// The reservation a pod was placed through (annotation reservation-allocated), "" for none.
std::string AllocatedReservation(const shim::CachedObject& pod) {
  auto text = pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation});
  if (!text) return "";
  auto doc = reconcile::ParseAnnotationJson(*text);
  if (!doc || !doc->IsObject()) return "";
  return std::string(json::GetString(*doc, {"name"}));
}

// Whether a job other than `except` (only one that has not ended, with `only_unfinished`) has
// `value` in `index`.
bool OtherJobIndexed(shim::SharedInformer& jobs, const char* index, const std::string& value,
                          std::string_view except, bool only_unfinished) {
  auto found = jobs.store().ByIndex(index, value);
  if (!found) return false;
  for (const auto& j : *found) {
    if (j->Name() == except) continue;
    if (!only_unfinished || !mig::IsTerminal(mig::ParseJobPhase(PhaseOf(j)).value_or(mig::JobPhase::kPending))) {
      return true;
    }
  }
  return false;
}

}  // namespace

void MigrationController::AddWakeUpHandlers() {
  MigrationController* self = this;
  // A pod wakes the job that migrates it, and (through its allocation annotation) the job whose
  // reservation it consumed, which waits for it to be Ready.
  auto pod_changed = [self](const shim::ObjectPtr& pod) {
    if (!pod) return;
    self->EnqueueByIndex(kPodIndex, std::string(pod->Namespace()) + "/" + std::string(pod->Name()));
    if (auto text = pod->FindString({"metadata", "annotations", kAllocatedAnnotation})) {
      if (auto doc = reconcile::ParseAnnotationJson(*text); doc && doc->IsObject()) {
        std::string name(json::GetString(*doc, {"name"}));
        if (!name.empty()) self->EnqueueByIndex(kReservationIndex, name);
        self->WakeBindWaitersForPod(*pod);
      }
    }
  };
  // A workload's pod that turns Ready or goes away may free a maxUnavailable/maxMigrating slot: the
  // oldest held jobs try again at once (as a job's end wakes them) instead of at their recheck.
  // A pod of the first list (or a late handler's replay) wakes nothing: every job is queued by its
  // own add, and the workers start once every cache has synced, so they see the pod anyway. (A
  // cold start on 150,000 pods spent ~0.2 s of CPU here, queueing nothing.)
  pods_->AddEventHandler(shim::EventHandler{
      [pod_changed](const shim::ObjectPtr& obj, bool) { pod_changed(obj); },
      [self, pod_changed](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        pod_changed(new_obj);
        if (old_obj && !PodReady(*old_obj) && PodReady(*new_obj)) self->EnqueuePending(kWakeOnChange);
      },
      [self, pod_changed](const shim::DeletedObject& deleted) {
        pod_changed(deleted.object);
        self->EnqueuePending(kWakeOnChange);
      },
      [](const std::vector<shim::ObjectPtr>&) {}});  // the first list: see above
  auto reservation_changed = [self](const shim::ObjectPtr& r) {
    if (r) self->EnqueueByIndex(kReservationIndex, std::string(r->Name()));
  };
  reservations_->AddEventHandler(shim::EventHandler{
      [reservation_changed](const shim::ObjectPtr& obj, bool) { reservation_changed(obj); },
      [reservation_changed](const shim::ObjectPtr&, const shim::ObjectPtr& new_obj) { reservation_changed(new_obj); },
      [reservation_changed](const shim::DeletedObject& deleted) { reservation_changed(deleted.object); }});
  // A budget that changes may now allow the disruption a blocked job waits for: the namespace's
  // Running jobs whose eviction was not accepted retry without waiting out their backoff
  // (DecideMigration checks the budget); no other job (a budget's status changes with every pod
  // that turns Ready: waking the whole namespace each time was most of a large drain's work). Jobs
  // still Pending wait for arbitration, not for the budget: the first of them are woken in turn.
  auto pdb_changed = [self](const shim::ObjectPtr& pdb) {
    if (!pdb) return;
    if (auto jobs = self->jobs_->store().ByIndex(kJobPhaseIndex, "Running")) {
      std::vector<std::string> wake;
      {
        std::lock_guard lock(self->mu_);
        for (const auto& j : *jobs) {
          if (j->FindString({"spec", "podRef", "namespace"}).value_or("") != pdb->Namespace()) continue;
          auto tries = self->tries_.find(std::string(j->Uid()));
          if (tries == self->tries_.end() || !tries->second.accepted) wake.emplace_back(j->Name());
        }
      }
      for (const auto& name : wake) self->EnqueueToEvict(name);
    }
    self->EnqueuePending(kWakeOnChange);
  };
  pdbs_->AddEventHandler(shim::EventHandler{
      [pdb_changed](const shim::ObjectPtr& obj, bool) { pdb_changed(obj); },
      [self, pdb_changed](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        // Still no disruption allowed: no held job can go (during a drain every Ready and every
        // eviction updates the budget, and waking each held job each time was most reconciles).
        if (old_obj && new_obj && !BudgetUpdateMayUnblock(*old_obj, *new_obj)) {
          self->EnqueuePending(kWakeOnChange);
          return;
        }
        pdb_changed(new_obj);
      },
      [pdb_changed](const shim::DeletedObject& deleted) { pdb_changed(deleted.object); }});
}

void MigrationController::AddWorkloadReplacements(mig::JobSnapshot& job) {
  {
    std::lock_guard lock(mu_);
    bind_waiters_.insert(job.name);
  }
  const std::string own = job.reservation ? job.reservation->name : "";
  for (const auto& workload : job.reservation ? job.reservation->owner_controller_uids : std::vector<std::string>{}) {
    auto pods = pods_->store().ByIndex(kPodControllerUidIndex, workload);
    if (!pods) continue;
    for (const auto& pod : *pods) {
      // Cheap filters first: most of a workload's pods went through no reservation, or through
      // their own job's, which credits them.
      std::string reservation = AllocatedReservation(*pod);
      if (reservation.empty() || reservation == own) continue;
      auto created = shim::ParseTimestamp(pod->FindString({"metadata", "creationTimestamp"}).value_or(""));
      if (!created || *created < job.creation_time) continue;
      mig::WorkloadReplacement w;
      w.creation_time = *created;
      w.reservation_name = reservation;
      w.reservation_awaited_by_other_job =
          OtherJobIndexed(*jobs_, kMigrationReservationIndex, reservation, job.name, true);
      w.credited_to_other_job =
          OtherJobIndexed(*jobs_, kMigrationNewPodIndex, std::string(pod->Key()), job.name, false);
      if (w.reservation_awaited_by_other_job || w.credited_to_other_job) continue;
      auto pod_json = pod->ToJson();
      if (!pod_json) continue;
      w.pod = ReadPodFacts(*pod_json);
      job.workload_replacements.push_back(std::move(w));
    }
  }
}

void MigrationController::ForgetBindWaiter(const std::string& name) {
  std::lock_guard lock(mu_);
  bind_waiters_.erase(name);
}

void MigrationController::WakeBindWaiters() {
  std::vector<std::string> waiters;
  {
    std::lock_guard lock(mu_);
    waiters.assign(bind_waiters_.begin(), bind_waiters_.end());
  }
  for (const auto& name : waiters) Enqueue(name);
}

void MigrationController::WakeBindWaitersForPod(const shim::CachedObject& pod) {
  {
    std::lock_guard lock(mu_);
    if (bind_waiters_.empty()) return;
  }
  std::string reservation = AllocatedReservation(pod);
  if (reservation.empty() || OtherJobIndexed(*jobs_, kMigrationReservationIndex, reservation, "", true)) return;
  WakeBindWaiters();
}

}  // namespace berth::controllers
