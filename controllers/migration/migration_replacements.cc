// controllers/migration/migration_replacements.cc
//
// The facts reconcile/migration/replacement.h decides from: the pods of an evicted job's workload
// placed through another reservation, read from the caches with the jobs' indexes (which
// reservation a job waits on, which pod a job credits), and the wake-ups of the jobs waiting for
// such a pod.
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/migration/migration_controller.h"
#include "reconcile/common/annotation_json.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

// The reservation a pod was placed through (annotation reservation-allocated), "" for none.
std::string AllocatedReservation(const shim::CachedObject& pod) {
  auto text = pod.FindString({"metadata", "annotations", kReservationAllocatedAnnotation});
  if (!text) return "";
  auto doc = reconcile::ParseAnnotationJson(*text);
  if (!doc || !doc->IsObject()) return "";
  return std::string(json::GetString(*doc, {"name"}));
}

// Whether a job other than `except` that has not ended names `value` in `index`.
bool UnfinishedJobIndexes(shim::SharedInformer& jobs, const char* index, const std::string& value,
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
      w.reservation_awaited_by_other_job = UnfinishedJobIndexes(*jobs_, kMigrationReservationIndex, reservation,
                                                                job.name, true);
      w.credited_to_other_job =
          UnfinishedJobIndexes(*jobs_, kMigrationNewPodIndex, std::string(pod->Key()), job.name, false);
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
  if (reservation.empty() || UnfinishedJobIndexes(*jobs_, kMigrationReservationIndex, reservation, "", true)) return;
  WakeBindWaiters();
}

}  // namespace berth::controllers
