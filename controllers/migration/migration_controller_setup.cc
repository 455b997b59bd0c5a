// controllers/migration/migration_controller_setup.cc
//
// MigrationController's wiring (split from migration_controller.cc): the informers, indexes and
// event handlers Setup registers, and how a job is queued. The reconcile is in
// migration_controller.cc.
#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/migration/migration_controller.h"
#include "controllers/migration/prefer_avoid_hook.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;
using rapidjson::Value;

constexpr char kReservationsPath[] = "/apis/scheduling.koordinator.sh/v1alpha1/reservations";
constexpr char kPdbsPath[] = "/apis/policy/v1/poddisruptionbudgets";
constexpr char kReplicaSetsPath[] = "/apis/apps/v1/replicasets";
constexpr const char* kPodIndex = kMigrationPodIndex;
constexpr const char* kReservationIndex = kMigrationReservationIndex;
// The queue priority of a job that may evict now (EnqueueToEvict); everything else is 0.
constexpr int kToEvictPriority = 1;

std::vector<std::string> JobReservationName(const shim::CachedObject& o) {
  auto ref = o.FindString({"spec", "reservationOptions", "reservationRef", "name"});
  if (ref && !ref->empty()) return {*ref};
  // mig::ReservationName: the template's name before the reference is recorded.
  auto named = o.FindString({"spec", "reservationOptions", "template", "metadata", "name"});
  if (named && !named->empty()) return {*named};
  return {std::string(o.Uid())};
}

}  // namespace

MigrationController::MigrationController(shim::RestClientPtr rest, MigrationControllerOptions options)
    : options_(std::move(options)), client_(std::move(rest)) {}

MigrationController::~MigrationController() {
  if (recorder_) recorder_->Stop();
}

Result<std::unique_ptr<MigrationController>> MigrationController::Setup(shim::Manager& manager,
                                                                        shim::RestClientPtr rest,
                                                                        MigrationControllerOptions options) {
  std::unique_ptr<MigrationController> c(new MigrationController(rest, std::move(options)));
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-manager";
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);

  auto& reg = manager.registry();
  auto evicted = reg.AddCounter("berth_pods_evicted_total",
                                "Pods berth evicted (or deleted under the Delete policy), by answer and strategy.",
                                {"result", "strategy"});
  auto phases = reg.AddGauge("berth_migrations", "PodMigrationJobs per phase.", {"phase"});
  auto retry = reg.AddHistogram("berth_eviction_retry_seconds",
                                "Backoff chosen before retrying an eviction the API server refused (429/5xx).", {},
                                {1, 2.5, 5, 7.5, 10, 15, 20, 30, 45, 60, 90});
  if (!evicted || !phases || !retry) return MakeError(ErrorCode::kInternal, "registering migration metrics failed");
  c->evicted_total_ = *evicted;
  c->phases_.Bind(*phases, {"Pending", "Running", "Succeeded", "Failed", "Aborted"});
  c->retry_seconds_ = *retry;

  auto& informers = manager.informers();
  c->jobs_ = informers.InformerFor(shim::InformerKey{kPodMigrationJobsPath, "", ""});
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->reservations_ = informers.InformerFor(shim::InformerKey{kReservationsPath, "", ""});
  c->pdbs_ = informers.InformerFor(shim::InformerKey{kPdbsPath, "", ""});
  c->replicasets_ = informers.InformerFor(shim::InformerKey{kReplicaSetsPath, "", ""});
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});  // the drain's too
  c->arbiter_ = std::make_unique<MigrationArbiter>(c->options_.arbitration, c->jobs_, c->pods_, c->replicasets_);
  auto s3 = c->pods_->AddIndexers({{kPodControllerUidIndex, [](const shim::CachedObject& o) {
    std::vector<std::string> out;
    auto refs = o.FindJson({"metadata", "ownerReferences"});
    if (!refs || !refs->IsArray()) return out;
    for (const auto& r : refs->GetArray()) {
      const Value* controller = json::Member(r, "controller");
      if (controller && controller->IsBool() && controller->GetBool()) out.emplace_back(json::GetString(r, {"uid"}));
    }
    return out;
  }}});
  if (!s3) return MakeError(ErrorCode::kInternal, "adding the pods' controller index failed");
  auto s1 = c->jobs_->AddIndexers(
      {{kPodIndex,
        [](const shim::CachedObject& o) {
          auto ns = o.FindString({"spec", "podRef", "namespace"});
          auto name = o.FindString({"spec", "podRef", "name"});
          if (!ns || !name) return std::vector<std::string>{};
          return std::vector<std::string>{*ns + "/" + *name};
        }},
       {kReservationIndex, [](const shim::CachedObject& o) { return JobReservationName(o); }},
       {kMigrationNewPodIndex,
        [](const shim::CachedObject& o) {
          auto ns = o.FindString({"status", "podRef", "namespace"});
          auto name = o.FindString({"status", "podRef", "name"});
          if (!ns || !name) return std::vector<std::string>{};
          return std::vector<std::string>{*ns + "/" + *name};
        }},
       {kJobPhaseIndex, [](const shim::CachedObject& o) {
          return std::vector<std::string>{o.FindString({"status", "phase"}).value_or("")};
        }}});
  auto s2 = c->pdbs_->AddIndexers({{kMigrationPdbNamespaceIndex, [](const shim::CachedObject& o) {
    return std::vector<std::string>{std::string(o.Namespace())};
  }}});
  if (!s1 || !s2) return MakeError(ErrorCode::kInternal, "adding migration indexers failed");

  mig::DrainOptions drain;
  drain.evictability = c->options_.migration.evictability;
  drain.scheduler_names = c->options_.migration.scheduler_names;
  auto drain_controller = DrainController::Setup(manager, rest, drain, c->jobs_, c->pods_);
  if (!drain_controller) return std::unexpected(drain_controller.error());
  c->drain_ = std::move(*drain_controller);

  MigrationController* self = c.get();
  auto controller = manager.AddController(
      shim::ControllerOptions{"migration", c->options_.workers, nullptr, nullptr, &reg},
      [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;

  c->jobs_->AddEventHandler(shim::EventHandler{
      [self](const shim::ObjectPtr& obj, bool) {
        self->CountPhase(nullptr, obj);
        self->TrackPending(obj, true);
        self->TrackReserveAhead(obj, true);
        self->Enqueue(std::string(obj->Name()));
      },
      [self](const shim::ObjectPtr& old_obj, const shim::ObjectPtr& new_obj) {
        self->CountPhase(old_obj, new_obj);
        self->TrackPending(new_obj, true);
        self->TrackReserveAhead(new_obj, true);
        self->EnqueueJob(*new_obj);
        // A job that ends frees its arbitration slot: the held jobs try again.
        const auto new_phase = mig::ParseJobPhase(PhaseOf(new_obj)).value_or(mig::JobPhase::kPending);
        if (mig::IsTerminal(new_phase) &&
            !mig::IsTerminal(mig::ParseJobPhase(PhaseOf(old_obj)).value_or(mig::JobPhase::kPending))) {
          self->arbiter_->Forget(std::string(new_obj->Uid()));
          self->EnqueuePending(kWakeOnChange);
          // A failed job no longer awaits its reservation: a pod that consumed it is free to credit.
          if (new_phase != mig::JobPhase::kSucceeded) self->WakeBindWaiters();
        }
        // A job that moved to a new reservation leaves the old one's pod to the jobs awaiting one.
        if (JobReservationName(*old_obj) != JobReservationName(*new_obj)) self->WakeBindWaiters();
      },
      [self](const shim::DeletedObject& deleted) {
        self->CountPhase(deleted.object, nullptr);
        if (!deleted.object) return;
        self->TrackPending(deleted.object, false);
        self->TrackReserveAhead(deleted.object, false);
        self->ForgetBindWaiter(std::string(deleted.object->Name()));
        self->arbiter_->Forget(std::string(deleted.object->Uid()));
        {
          std::lock_guard lock(self->mu_);
          self->tries_.erase(std::string(deleted.object->Uid()));
          self->unseen_writes_.erase(std::string(deleted.object->Name()));
        }
        self->EnqueuePending(kWakeOnChange);
      }});
  c->AddWakeUpHandlers();
  return c;
}

void MigrationController::Enqueue(const std::string& name) {
  if (controller_) controller_->queue().Add(name);
}

void MigrationController::EnqueueToEvict(const std::string& name) {
  if (controller_) controller_->queue().AddWithPriority(name, kToEvictPriority);
}

void MigrationController::EnqueueByIndex(const char* index, const std::string& value) {
  auto jobs = jobs_->store().ByIndex(index, value);
  if (!jobs) return;
  for (const auto& j : *jobs) EnqueueJob(*j);
}

void MigrationController::EnqueueJob(const shim::CachedObject& job) {
  const std::string uid(job.Uid());
  bool to_evict = arbiter_->IsAdmitted(uid);
  if (to_evict) {
    std::lock_guard lock(mu_);
    auto tries = tries_.find(uid);
    to_evict = tries == tries_.end() || !tries->second.accepted;
  }
  if (to_evict) {
    EnqueueToEvict(std::string(job.Name()));
  } else {
    Enqueue(std::string(job.Name()));
  }
}

}  // namespace berth::controllers
