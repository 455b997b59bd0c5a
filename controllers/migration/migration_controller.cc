// controllers/migration/migration_controller.cc
//
// MigrationController::Reconcile: one PodMigrationJob against the cached pod, PDBs and
// reservation, decided by reconcile/migration and written back. The wiring (informers, indexes,
// handlers, queueing) is in migration_controller_setup.cc.
#include "controllers/migration/migration_controller.h"

#include <algorithm>

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/migration/prefer_avoid_hook.h"
#include "reconcile/migration/replacement.h"
#include "reconcile/migration/reserve_ahead.h"
#include "reconcile/migration/reservation_template.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;
using rapidjson::Value;

constexpr char kLogger[] = "migration";
constexpr char kGroup[] = "scheduling.koordinator.sh";
constexpr char kVersion[] = "v1alpha1";
constexpr const char* kReservationIndex = kMigrationReservationIndex;

shim::ResourceRef JobRef(const std::string& name) { return {kGroup, kVersion, "podmigrationjobs", "", name}; }
shim::ResourceRef ReservationRef(const std::string& name) { return {kGroup, kVersion, "reservations", "", name}; }

Result<rapidjson::Document> ObjectJson(const shim::ObjectPtr& o) { return o->ToJson(); }

// Held jobs woken per admission (the chain that reaches the next in line): bounded, so a change
// costs a few arbitrations, not one per held job.
constexpr size_t kWakeOnAdmission = 2;
// How long a job whose last write the cache has not shown waits before deciding anyway.
constexpr auto kUnseenWriteRecheck = std::chrono::seconds(1);
// How long a reservation we created is awaited in the cache before the API server is asked.
constexpr auto kUnseenCreateWait = std::chrono::seconds(5);

// FormatGoDuration renders a ttl for the reservation's spec.ttl.
std::string GoDuration(reconcile::Duration d) { return shim::FormatDuration(d); }

}  // namespace


shim::ReconcileResult MigrationController::Reconcile(const std::string& name) {
  shim::ObjectPtr cached = jobs_->store().Get(name);
  if (!cached) return shim::ReconcileResult::Done();
  {
    std::lock_guard lock(mu_);
    if (auto it = unseen_writes_.find(name); it != unseen_writes_.end()) {
      // The cache still shows the version our last write replaced: wait for the update event
      // (the recheck covers an event that never comes, e.g. after a write another client undid).
      if (it->second == cached->ResourceVersion()) return shim::ReconcileResult::RequeueAfter(kUnseenWriteRecheck);
      unseen_writes_.erase(it);
    }
  }
  auto job_json = ObjectJson(cached);
  if (!job_json) return shim::ReconcileResult::Error("decoding job " + name + ": " + job_json.error().message);
  mig::JobSnapshot job = ReadJob(*job_json);
  shim::ObjectPtr pod_obj;
  if (!job.pod_namespace.empty() && !job.pod_name.empty()) {
    pod_obj = pods_->store().Get(job.pod_namespace + "/" + job.pod_name);
  }
  std::optional<rapidjson::Document> pod_json;
  std::vector<std::pair<std::string, std::string>> pdb_versions;  // the matching PDBs' keys and versions
  std::vector<int64_t> pdb_allowed;  // their disruptionsAllowed as cached
  if (pod_obj) {
    auto pj = ObjectJson(pod_obj);
    if (!pj) return shim::ReconcileResult::Error("decoding pod of job " + name + ": " + pj.error().message);
    pod_json = std::move(*pj);
    job.pod = ReadPodFacts(*pod_json);
    if (auto in_ns = pdbs_->store().ByIndex(kMigrationPdbNamespaceIndex, job.pod_namespace)) {
      for (const auto& pdb : *in_ns) {
        auto pdb_json = ObjectJson(pdb);
        if (pdb_json && PdbSelects(*pdb_json, *pod_json)) {
          job.pdbs.push_back(ReadPdbFacts(*pdb_json));
          pdb_versions.emplace_back(std::string(pdb->Key()), std::string(pdb->ResourceVersion()));
          pdb_allowed.push_back(job.pdbs.back().disruptions_allowed);
        }
      }
    }
    AdjustForAcceptedEvictions(job.pdbs, pdb_versions, job.uid);
    // Arbitration: a Pending job whose pod could start migrating takes a slot or is held back.
    if (job.status.phase == mig::JobPhase::kPending && !job.paused && !job.pod->deleting &&
        !job.pod->node_name.empty() && (job.pod_uid.empty() || job.pod_uid == job.pod->uid)) {
      const bool admitted_before = arbiter_->IsAdmitted(job.uid);
      job.held_by_limit = arbiter_->Admit(job.uid, *job.pod);
      if (!job.held_by_limit && !admitted_before && job.reservation_ref_name.empty() && !job.pod->evict_annotation) {
        // Its turn came, but jobs of its workload ahead in line reserved ahead: they take the slot
        // and evict at once (reconcile/migration/reserve_ahead.h); it goes back in line. (One
        // admitted before keeps its slot: it may have acted on it.)
        if (auto first = ReservedAheadGoingFirst(job.name, job.pod->controller_uid, job.pod->node_name);
            !first.empty()) {
          arbiter_->Forget(job.uid);
          for (const auto& ahead : first) EnqueueToEvict(ahead);
          job.held_by_limit = mig::LimitHit{std::string(mig::kReasonReservedAheadFirst),
                                            "jobs ahead in line of the same workload and node reserved ahead and "
                                            "go first"};
        }
      }
      if (!job.held_by_limit) {
        // Admitted: the next held job in line may fit too (a freed slot wakes only the oldest few),
        // and the wave grew, so the next of its workload may reserve ahead.
        if (!admitted_before) {
          EnqueuePending(kWakeOnAdmission);
          WakeReserveAhead(job.pod->controller_uid);
        }
      } else if (job.reservation_ref_name.empty()) {
        const auto candidates = ReserveAheadCandidates(job.pod->controller_uid);
        job.reserve_ahead = std::find(candidates.begin(), candidates.end(), job.name) != candidates.end();
      }
    }
  }
  const std::string reservation_name = mig::ReservationName(job);
  shim::ObjectPtr r_obj = reservations_->store().Get(reservation_name);
  if (r_obj) {
    std::lock_guard lock(mu_);
    created_reservations_.erase(reservation_name);
  }
  std::optional<rapidjson::Document> r_json;
  if (r_obj) {
    auto rj = ObjectJson(r_obj);
    if (rj) r_json = std::move(*rj);
  } else if (!job.reservation_ref_name.empty() && !mig::IsTerminal(job.status.phase)) {
    {
      // Created by us a moment ago: its add event wakes the job (kReservationIndex); reading it
      // from the API server now would be a GET per job per reconcile until the cache catches up.
      std::lock_guard lock(mu_);
      if (auto it = created_reservations_.find(reservation_name);
          it != created_reservations_.end() && std::chrono::steady_clock::now() - it->second < kUnseenCreateWait) {
        return shim::ReconcileResult::RequeueAfter(kUnseenWriteRecheck);
      }
    }
    // The cache may not have a reservation created a moment ago: only the API server's 404 says
    // it is missing.
    auto live = client_.Get(ReservationRef(reservation_name));
    if (live) {
      r_json = std::move(*live);
    } else if (!IsGone(live.error())) {
      return shim::ReconcileResult::Error("reading reservation " + reservation_name + ": " + live.error().message);
    }
  }
  if (r_json) {
    job.reservation = ReadReservationFacts(*r_json, job.uid);
    if (!job.reservation->current_owners.empty()) {
      const auto& owner = job.reservation->current_owners.front();
      // By uid too: a StatefulSet's replacement has its predecessor's name, and a stale owner or a
      // cache behind must not lend another pod's node or readiness.
      if (auto bound = pods_->store().Get(owner.namespace_name + "/" + owner.name); bound && bound->Uid() == owner.uid) {
        if (auto bj = ObjectJson(bound)) job.bound_pod = ReadPodFacts(*bj);
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    if (auto it = tries_.find(job.uid); it != tries_.end()) job.eviction = it->second;
  }
  // Evicted a while ago, and its own reservation unconsumed: another reservation of the workload
  // may have placed its replacement (reconcile/migration/replacement.h).
  const auto now = std::chrono::system_clock::now();
  if (auto search = mig::SiblingSearchAt(job, options_.migration); search && *search <= now) {
    AddWorkloadReplacements(job);
  } else {
    ForgetBindWaiter(name);
  }

  mig::MigrationDecision decision = mig::DecideMigration(job, now, options_.migration);
  mig::JobStatus status = decision.status.value_or(job.status);
  std::optional<mig::PhaseChange> transition = decision.transition;
  std::optional<reconcile::Duration> requeue = decision.requeue_after;
  std::vector<reconcile::EventNote> events = decision.events;
  // Events of an eviction that went out: sent even when the status write after it fails, since the
  // eviction happened (tries_ keeps the retry from repeating it, so its Event is not repeated either).
  std::vector<reconcile::EventNote> eviction_events;
  if (decision.eviction_held_by_pdb) evicted_total_->WithLabelValues({"blocked_by_pdb", Strategy(*cached)}).Inc();

  // The spec patch (podRef.uid, reservationRef) is collected and sent once.
  rapidjson::Document spec_patch(rapidjson::kObjectType);
  auto& pa = spec_patch.GetAllocator();
  bool patch_spec = false;
  std::string resource_version(cached->ResourceVersion());
  std::vector<std::string> deferred_deletes;  // reservations freed once the status is written
  for (const mig::Action& action : decision.actions) {
    switch (action.kind) {
      case mig::ActionKind::kRecordPodUid: {
        Value& spec = json::EnsureObject(spec_patch, "spec", pa);
        Value& ref = json::EnsureObject(spec, "podRef", pa);
        json::SetString(ref, "namespace", job.pod_namespace, pa);
        json::SetString(ref, "name", job.pod_name, pa);
        json::SetString(ref, "uid", job.pod ? job.pod->uid : "", pa);
        patch_spec = true;
        break;
      }
      case mig::ActionKind::kRecordReservationRef: {
        Value& spec = json::EnsureObject(spec_patch, "spec", pa);
        Value& opts = json::EnsureObject(spec, "reservationOptions", pa);
        Value& ref = json::EnsureObject(opts, "reservationRef", pa);
        json::SetString(ref, "apiVersion", "scheduling.koordinator.sh/v1alpha1", pa);
        json::SetString(ref, "kind", "Reservation", pa);
        json::SetString(ref, "name", action.reservation_name, pa);
        patch_spec = true;
        break;
      }
      case mig::ActionKind::kCreateReservation: {
        if (!pod_json) return shim::ReconcileResult::Error("job " + name + ": its pod left the cache");
        auto user_template = cached->FindJson({"spec", "reservationOptions", "template"});
        mig::ReservationRequest request{job.name, job.uid, action.reservation_name,
                                        GoDuration(mig::EffectiveTtl(job, options_.migration)), now,
                                        /*ahead=*/job.held_by_limit.has_value()};
        auto reservation = mig::BuildMigrationReservation(request, *pod_json,
                                                          user_template ? &*user_template : nullptr);
        Error failure;
        bool failed = false;
        if (!reservation) {
          failure = reservation.error();
          failed = true;
        } else if (auto created = client_.Create(ReservationRef(""), *reservation); created) {
          std::lock_guard lock(mu_);
          const auto steady_now = std::chrono::steady_clock::now();
          // Entries of reservations the cache never showed (the job went first) do not pile up.
          std::erase_if(created_reservations_, [&](const auto& e) { return steady_now - e.second >= kUnseenCreateWait; });
          if (!reservations_->store().Get(action.reservation_name)) {
            created_reservations_[action.reservation_name] = steady_now;
          }
        } else if (created.error().code != ErrorCode::kAlreadyExists) {
          const Error& e = created.error();
          if (e.code == ErrorCode::kInvalid || e.code == ErrorCode::kBadRequest || e.code == ErrorCode::kForbidden) {
            failure = e;
            failed = true;
          } else {
            LogWriteRetry(kLogger, "creating the reservation of job", name, e);
            return shim::ReconcileResult::Error("creating reservation for job " + name + ": " + e.message);
          }
        }
        if (failed) {
          status = job.status;
          if (status.phase == mig::JobPhase::kPending) status.phase = mig::JobPhase::kRunning;
          events = {mig::FailJob(status, mig::kCondReservationCreated, mig::kReasonFailedCreateReservation,
                                 "Failed to create Reservation " + action.reservation_name + ": " + failure.message,
                                 now)};
          transition = mig::PhaseChange{job.status.phase, status.phase, status.reason};
          patch_spec = false;
          requeue = std::nullopt;
          goto write_status;
        }
        break;
      }
      case mig::ActionKind::kDeleteReservation: {
        // A failing job's reservation goes only after its Failed status is written: that write is
        // conditional on the version the decision read, and a decision from a stale cache (a job
        // already evicting, seen Pending) must not have deleted the reservation its pod's
        // replacement is about to use when the API server refuses it.
        if (mig::IsTerminal(status.phase) && !mig::IsTerminal(job.status.phase)) {
          deferred_deletes.push_back(action.reservation_name);
          break;
        }
        auto deleted = client_.Delete(ReservationRef(action.reservation_name));
        if (!deleted && !IsGone(deleted.error())) {
          LogWriteRetry(kLogger, "deleting the reservation of job", name, deleted.error());
          return shim::ReconcileResult::Error("deleting reservation of job " + name + ": " + deleted.error().message);
        }
        break;
      }
      case mig::ActionKind::kEvict: {
        const std::string strategy = Strategy(*cached);
        const bool budgeted = action.policy == mig::EvictionPolicy::kEviction && pdb_versions.size() == 1 &&
                              job.pod && job.pod->ready && !job.pod->deleting && job.pod->phase == "Running";
        const bool label_reservation = job.reservation && job.reservation->created_by_job &&
                                       action.policy == mig::EvictionPolicy::kEviction;
        // The reservation carries its creation time as reservation-order (koordinator's); "1" marks it
        // as the one for a pod being evicted.
        const bool labelled =
            r_obj && r_obj->FindString({"metadata", "labels", kReservationOrderLabel}).value_or("") ==
                               mig::kEvictingReservationOrder;
        auto set_order_label = [&](bool on) -> Status {
          rapidjson::Document patch(rapidjson::kObjectType);
          auto& pa2 = patch.GetAllocator();
          Value& labels = json::EnsureObject(json::EnsureObject(patch, "metadata", pa2), "labels", pa2);
          Value value;
          if (on) {
            value.SetString(mig::kEvictingReservationOrder.data(),
                            static_cast<rapidjson::SizeType>(mig::kEvictingReservationOrder.size()), pa2);
          }
          labels.AddMember(Value(kReservationOrderLabel, pa2), value, pa2);
          auto patched = client_.MergePatch(ReservationRef(job.reservation->name), patch);
          if (!patched) return std::unexpected(patched.error());
          return {};
        };
        // The budget is claimed in this process before anything is sent: of the jobs the cached
        // PDB lets through at once, only as many as it allows go on (the rest wait for its update),
        // so only the reservations of pods about to go carry the label below.
        if (budgeted && !ClaimDisruption(pdb_versions.front(), pdb_allowed.front(), job.uid)) {
          evicted_total_->WithLabelValues({"blocked_by_pdb", strategy}).Inc();
          if (label_reservation && labelled) {
            if (auto s2 = set_order_label(false); !s2) {
              LogWriteRetry(kLogger, "removing the reservation-order label of job", name, s2.error());
            }
          }
          requeue = requeue ? std::min(*requeue, options_.migration.pdb_precheck_recheck)
                            : options_.migration.pdb_precheck_recheck;
          break;
        }
        if (auto wait = arbiter_->TakeEvictionToken(now); wait > reconcile::Duration::zero()) {
          // The global eviction rate (koordinator's EvictQPS/EvictBurst): try again when a token is due.
          // Before the label: a labelled reservation waiting for its eviction draws replacements.
          if (budgeted) ReleaseDisruption(pdb_versions.front(), job.uid);
          evicted_total_->WithLabelValues({"limited", strategy}).Inc();
          requeue = requeue ? std::min(*requeue, wait) : wait;
          break;
        }
        if (label_reservation && !labelled) {
          // The replacement should take this reservation, not one of a job whose pod still runs (the
          // owners are the whole controller's pods, so any replacement may bind any of them, which
          // would leave the other job without its place). The scheduler prefers the lowest non-zero
          // reservation-order, and reservations waiting for their eviction carry their creation time
          // (or none after a refused eviction). The label is
          // written before the eviction, so its event precedes the replacement's.
          if (auto s2 = set_order_label(true); !s2) {
            if (budgeted) ReleaseDisruption(pdb_versions.front(), job.uid);
            LogWriteRetry(kLogger, "reservation-order label of the reservation of job", name, s2.error());
            return shim::ReconcileResult::Error("labelling reservation of job " + name + ": " + s2.error().message);
          }
        }
        mig::EvictionOutcome outcome = Evict(job, action.policy);
        if (outcome.result != mig::EvictionResult::kAccepted && outcome.result != mig::EvictionResult::kPodGone) {
          if (budgeted) ReleaseDisruption(pdb_versions.front(), job.uid);
          if (label_reservation) {
            // The pod stays: its reservation must not draw other replacements meanwhile.
            if (auto s2 = set_order_label(false); !s2) {
              LogWriteRetry(kLogger, "removing the reservation-order label of job", name, s2.error());
            }
          }
        }
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        double jitter;
        {
          std::lock_guard lock(mu_);
          jitter = unit(random_);
        }
        mig::EvictionDecision after = mig::DecideAfterEviction(job, status, outcome, now, options_.migration, jitter);
        const char* result = outcome.result == mig::EvictionResult::kAccepted ||
                                     outcome.result == mig::EvictionResult::kPodGone
                                 ? "success"
                                 : outcome.result == mig::EvictionResult::kBlockedByPdb ? "blocked_by_pdb" : "error";
        evicted_total_->WithLabelValues({result, strategy}).Inc();
        if (outcome.result == mig::EvictionResult::kAccepted && pod_json) {
          RecordPreferAvoidPods(client_, nodes_.get(), *pod_json, name, now, options_.prefer_avoid);
        }
        if (after.retry_delay) {
          retry_seconds_->WithLabelValues({}).Observe(std::chrono::duration<double>(*after.retry_delay).count());
        }
        log::Info(kLogger, "eviction answered",
                  {{"job", name}, {"pod", job.pod_namespace + "/" + job.pod_name},
                   {"code", std::to_string(outcome.http_status)}, {"result", result}, {"message", outcome.message}});
        {
          std::lock_guard lock(mu_);
          tries_[job.uid] = after.tries;
        }
        status = after.status;
        eviction_events = std::move(after.events);
        if (after.transition) transition = mig::PhaseChange{job.status.phase, after.status.phase, after.status.reason};
        requeue = after.requeue_after;
        for (const auto& extra : after.actions) deferred_deletes.push_back(extra.reservation_name);
        break;
      }
      case mig::ActionKind::kDeleteJob: {
        auto deleted = client_.Delete(JobRef(name));
        if (!deleted && !IsGone(deleted.error())) {
          LogWriteRetry(kLogger, "GC delete of job", name, deleted.error());
          return shim::ReconcileResult::Error("GC delete of job " + name + ": " + deleted.error().message);
        }
        log::Info(kLogger, "garbage-collected PodMigrationJob", {{"job", name}});
        return shim::ReconcileResult::Done();
      }
    }
  }
  if (patch_spec) {
    auto patched = client_.MergePatch(JobRef(name), spec_patch);
    if (!patched) {
      RecordEvents(job.uid, name, eviction_events);
      if (IsGone(patched.error())) return shim::ReconcileResult::Done();
      LogWriteRetry(kLogger, "spec patch of job", name, patched.error());
      return shim::ReconcileResult::Error("spec patch of job " + name + ": " + patched.error().message);
    }
    resource_version = json::GetString(*patched, {"metadata", "resourceVersion"});
  }
write_status:
  if (status != job.status) {
    // A merge patch of the status subresource, conditional on the resourceVersion the decision
    // was made from (or our spec patch's): a decision from a cache behind our last write is
    // refused (409) and made again, never written over a newer status. What was done meanwhile
    // (an accepted eviction) is remembered in tries_.
    auto body = JobStatusBody(*cached, status);
    rapidjson::Document patch(rapidjson::kObjectType);
    auto& sa = patch.GetAllocator();
    Value& meta = json::EnsureObject(patch, "metadata", sa);
    json::SetString(meta, "resourceVersion", resource_version, sa);
    patch.AddMember("status", body["status"], sa);
    // A merge patch keeps what it omits: an emptied reason (Succeeded clears it, as koordinator's
    // job.Status.Reason = "") is sent as null.
    if (status.reason.empty()) patch["status"].AddMember("reason", Value(), sa);
    auto written = client_.MergePatch(JobRef(name), patch, "status");
    if (!written) {
      RecordEvents(job.uid, name, eviction_events);
      if (IsGone(written.error())) return shim::ReconcileResult::Done();
      LogWriteRetry(kLogger, "status update of job", name, written.error());
      return shim::ReconcileResult::Error("status update of job " + name + ": " + written.error().message);
    }
    resource_version = json::GetString(*written, {"metadata", "resourceVersion"});
    if (transition && transition->from != transition->to) {
      log::Info(kLogger, "PodMigrationJob phase changed",
                {{"job", name}, {"from", std::string(mig::JobPhaseName(transition->from))},
                 {"to", std::string(mig::JobPhaseName(transition->to))}, {"reason", transition->reason},
                 {"message", status.message}});
    }
  }
  if (resource_version != cached->ResourceVersion()) {
    // Our write is not in the cache yet: until the job's update event brings it, a reconcile would
    // decide from the version before it and its conditional status write would be refused (409).
    std::lock_guard lock(mu_);
    unseen_writes_[name] = std::string(cached->ResourceVersion());
  }
  for (const auto& reservation : deferred_deletes) {
    auto deleted = client_.Delete(ReservationRef(reservation));
    if (!deleted && !IsGone(deleted.error())) {
      // The job is terminal now: its next reconcile frees the reservation (DecideMigration).
      LogWriteRetry(kLogger, "deleting the reservation of failed job", name, deleted.error());
      requeue = std::chrono::seconds(1);
    }
  }
  RecordEvents(job.uid, name, events);
  RecordEvents(job.uid, name, eviction_events);
  if (requeue) {
    return shim::ReconcileResult::RequeueAfter(std::max<reconcile::Duration>(*requeue, std::chrono::milliseconds(1)));
  }
  return shim::ReconcileResult::Done();
}

void MigrationController::RecordEvents(const std::string& job_uid, const std::string& job_name,
                                       const std::vector<reconcile::EventNote>& events) {
  if (events.empty()) return;
  shim::ObjectReference ref{std::string(kGroup) + "/" + kVersion, "PodMigrationJob", "", job_name, job_uid, "", ""};
  for (const auto& e : events) {
    recorder_->Event(ref, e.type == "Warning" ? shim::EventType::kWarning : shim::EventType::kNormal, e.reason,
                     e.message);
  }
}

}  // namespace berth::controllers
