#include "controllers/migration/migration_codec.h"

#include "clientgo-shim/api/label_selector.h"
#include "clientgo-shim/base/json.h"
#include "controllers/common/api_time.h"
#include "controllers/common/spec_fields.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
using reconcile::Time;
namespace mig = reconcile::migration;

int64_t IntOr0(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* v = json::Find(root, path);
  return v && v->IsInt64() ? v->GetInt64() : 0;
}

std::optional<mig::EvictionPolicy> ReadPolicy(const Value& object, std::string& error) {
  const Value* v = json::Find(object, {"metadata", "labels", mig::kEvictPolicyLabel});
  if (!v || !v->IsString()) return std::nullopt;
  std::string_view text(v->GetString(), v->GetStringLength());
  if (text == "Eviction") return mig::EvictionPolicy::kEviction;
  if (text == "Delete") return mig::EvictionPolicy::kDelete;
  error = "label koordinator.sh/evict-policy: unsupported value \"" + std::string(text) +
          "\" (berth supports Eviction and Delete)";
  return std::nullopt;
}

}  // namespace

mig::JobSnapshot ReadJob(const Value& job) {
  mig::JobSnapshot j;
  j.name = json::GetString(job, {"metadata", "name"});
  j.uid = json::GetString(job, {"metadata", "uid"});
  j.creation_time = ReadCreationTime(job, j.spec_errors);
  const Value* paused = json::Find(job, {"spec", "paused"});
  j.paused = paused && paused->IsBool() && paused->GetBool();
  ReadTtl(json::Find(job, {"spec", "ttl"}), "spec.ttl", j.ttl_text, j.ttl, j.spec_errors);
  j.mode_text = json::GetString(job, {"spec", "mode"});
  std::string policy_error;
  j.job_evict_policy = ReadPolicy(job, policy_error);
  if (!policy_error.empty()) j.spec_errors.push_back(policy_error);
  j.pod_namespace = json::GetString(job, {"spec", "podRef", "namespace"});
  j.pod_name = json::GetString(job, {"spec", "podRef", "name"});
  j.pod_uid = json::GetString(job, {"spec", "podRef", "uid"});
  j.reservation_ref_name = json::GetString(job, {"spec", "reservationOptions", "reservationRef", "name"});
  j.template_reservation_name = json::GetString(job, {"spec", "reservationOptions", "template", "metadata", "name"});
  j.evict_reason = json::GetString(job, {"metadata", "annotations", "koordinator.sh/evict-reason"});
  if (const Value* grace = json::Find(job, {"spec", "deleteOptions", "gracePeriodSeconds"});
      grace != nullptr && !grace->IsNull()) {
    // metav1.DeleteOptions: an int64 the API server requires to be non-negative.
    if (grace->IsInt64() && grace->GetInt64() >= 0) {
      j.grace_period_seconds = grace->GetInt64();
    } else {
      j.spec_errors.push_back("spec.deleteOptions.gracePeriodSeconds: " + json::Serialize(*grace) +
                              " is not a non-negative whole number of seconds");
    }
  }

  const Value* status = json::Member(job, "status");
  if (status && status->IsObject()) {
    std::string_view phase = json::GetString(*status, {"phase"});
    if (auto p = mig::ParseJobPhase(phase)) {
      j.status.phase = *p;
    } else {
      j.spec_errors.push_back("status.phase: unknown value \"" + std::string(phase) + "\"");
    }
    j.status.status = json::GetString(*status, {"status"});
    j.status.reason = json::GetString(*status, {"reason"});
    j.status.message = json::GetString(*status, {"message"});
    j.status.node_name = json::GetString(*status, {"nodeName"});
    if (const Value* ref = json::Member(*status, "podRef"); ref && ref->IsObject()) {
      j.status.new_pod = reconcile::OwnerRef{std::string(json::GetString(*ref, {"namespace"})),
                                             std::string(json::GetString(*ref, {"name"})),
                                             std::string(json::GetString(*ref, {"uid"}))};
    }
    if (const Value* conds = json::Member(*status, "conditions"); conds && conds->IsArray()) {
      for (const auto& c : conds->GetArray()) {
        if (!c.IsObject()) continue;
        j.status.conditions.push_back(reconcile::Condition{
            std::string(json::GetString(c, {"type"})), std::string(json::GetString(c, {"status"})),
            std::string(json::GetString(c, {"reason"})), std::string(json::GetString(c, {"message"})),
            ReadTime(c, {"lastTransitionTime"}), ReadTime(c, {"lastProbeTime"})});
      }
    }
  }
  return j;
}

mig::PodFacts ReadPodFacts(const Value& pod) {
  mig::PodFacts p;
  p.namespace_name = json::GetString(pod, {"metadata", "namespace"});
  p.name = json::GetString(pod, {"metadata", "name"});
  p.uid = json::GetString(pod, {"metadata", "uid"});
  p.node_name = json::GetString(pod, {"spec", "nodeName"});
  p.scheduler_name = json::GetString(pod, {"spec", "schedulerName"});
  p.phase = json::GetString(pod, {"status", "phase"});
  p.deleting = !json::GetString(pod, {"metadata", "deletionTimestamp"}).empty();
  if (const Value* conds = json::Find(pod, {"status", "conditions"}); conds && conds->IsArray()) {
    for (const auto& c : conds->GetArray()) {
      std::string_view type = json::GetString(c, {"type"});
      if (type == "Ready") p.ready = json::GetString(c, {"status"}) == "True";
      if (type == "PodScheduled" && json::GetString(c, {"status"}) == "False" && p.phase == "Pending") {
        p.unschedulable = true;
        p.unschedulable_message = json::GetString(c, {"message"});
      }
    }
  }
  p.priority = PodPriorityValue(json::Find(pod, {"spec", "priority"}));
  p.mirror = json::Find(pod, {"metadata", "annotations", "kubernetes.io/config.mirror"}) != nullptr;
  std::string_view source = json::GetString(pod, {"metadata", "annotations", "kubernetes.io/config.source"});
  p.static_pod = !source.empty() && source != "api";
  if (const Value* refs = json::Find(pod, {"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& r : refs->GetArray()) {
      const Value* c = json::Member(r, "controller");
      if (c && c->IsBool() && c->GetBool()) {
        p.has_controller = true;
        p.controller_kind = json::GetString(r, {"kind"});
        p.controller_name = json::GetString(r, {"name"});
        p.controller_uid = json::GetString(r, {"uid"});
      }
    }
  }
  if (const Value* vols = json::Find(pod, {"spec", "volumes"}); vols && vols->IsArray()) {
    for (const auto& v : vols->GetArray()) {
      if (json::Member(v, "emptyDir") || json::Member(v, "hostPath")) p.local_storage = true;
    }
  }
  p.evict_annotation = json::Find(pod, {"metadata", "annotations", "descheduler.alpha.kubernetes.io/evict"}) != nullptr;
  p.evict_policy = ReadPolicy(pod, p.evict_policy_error);
  return p;
}

std::optional<int64_t> PodPriorityValue(const Value* priority) {
  if (priority == nullptr || !priority->IsInt64()) return std::nullopt;
  return priority->GetInt64();
}

mig::ReservationFacts ReadReservationFacts(const Value& r, const std::string& job_uid) {
  mig::ReservationFacts f;
  f.name = json::GetString(r, {"metadata", "name"});
  f.uid = json::GetString(r, {"metadata", "uid"});
  f.phase = reconcile::ParsePhase(json::GetString(r, {"status", "phase"})).value_or(reconcile::Phase::kPending);
  f.node_name = json::GetString(r, {"status", "nodeName"});
  if (const Value* refs = json::Find(r, {"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& ref : refs->GetArray()) {
      const Value* c = json::Member(ref, "controller");
      if (c && c->IsBool() && c->GetBool() && json::GetString(ref, {"uid"}) == job_uid) f.created_by_job = true;
    }
  }
  if (const Value* conds = json::Find(r, {"status", "conditions"}); conds && conds->IsArray()) {
    for (const auto& c : conds->GetArray()) {
      std::string_view type = json::GetString(c, {"type"});
      if (type == "Scheduled" && json::GetString(c, {"status"}) == "False") {
        f.scheduled_false = true;
        f.unschedulable_message = json::GetString(c, {"message"});
      }
      if (type == "Ready" && f.phase == reconcile::Phase::kFailed) f.failed_reason = json::GetString(c, {"reason"});
    }
  }
  f.expired = f.phase == reconcile::Phase::kFailed;
  f.marked_for_eviction =
      json::GetString(r, {"metadata", "labels", kReservationOrderLabel}) == mig::kEvictingReservationOrder;
  if (const Value* owners = json::Find(r, {"spec", "owners"}); owners && owners->IsArray()) {
    for (const auto& o : owners->GetArray()) {
      std::string_view uid = json::GetString(o, {"controller", "uid"});
      if (!uid.empty()) f.owner_controller_uids.emplace_back(uid);
      if (json::Member(o, "object") && !json::Member(o, "controller") && !json::Member(o, "labelSelector")) {
        if (std::string_view object_uid = json::GetString(o, {"object", "uid"}); !object_uid.empty()) {
          f.object_owner_uids.emplace_back(object_uid);
        }
      }
    }
  }
  if (const Value* owners = json::Find(r, {"status", "currentOwners"}); owners && owners->IsArray()) {
    for (const auto& o : owners->GetArray()) {
      f.current_owners.push_back({std::string(json::GetString(o, {"namespace"})),
                                  std::string(json::GetString(o, {"name"})), std::string(json::GetString(o, {"uid"}))});
    }
  }
  return f;
}

mig::PdbFacts ReadPdbFacts(const Value& pdb) {
  return mig::PdbFacts{std::string(json::GetString(pdb, {"metadata", "name"})),
                       IntOr0(pdb, {"status", "disruptionsAllowed"}), IntOr0(pdb, {"status", "currentHealthy"}),
                       IntOr0(pdb, {"status", "desiredHealthy"})};
}

bool PdbSelects(const Value& pdb, const Value& pod) {
  auto selector = shim::LabelSelector::FromJson(json::Find(pdb, {"spec", "selector"}));
  if (!selector) return false;
  return selector->Matches(shim::JsonLabels::OfObject(pod));
}

rapidjson::Document JobStatusBody(const shim::CachedObject& cached, const mig::JobStatus& status) {
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  json::SetString(body, "kind", "PodMigrationJob", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "name", cached.Name(), a);
  if (!cached.Uid().empty()) json::SetString(meta, "uid", cached.Uid(), a);
  if (!cached.ResourceVersion().empty()) json::SetString(meta, "resourceVersion", cached.ResourceVersion(), a);
  Value s(rapidjson::kObjectType);
  json::SetString(s, "phase", mig::JobPhaseName(status.phase), a);
  if (!status.status.empty()) json::SetString(s, "status", status.status, a);
  if (!status.reason.empty()) json::SetString(s, "reason", status.reason, a);
  if (!status.message.empty()) json::SetString(s, "message", status.message, a);
  if (!status.node_name.empty()) json::SetString(s, "nodeName", status.node_name, a);
  if (status.new_pod) {
    Value ref(rapidjson::kObjectType);
    json::SetString(ref, "namespace", status.new_pod->namespace_name, a);
    json::SetString(ref, "name", status.new_pod->name, a);
    if (!status.new_pod->uid.empty()) json::SetString(ref, "uid", status.new_pod->uid, a);
    s.AddMember("podRef", ref, a);
  }
  if (!status.conditions.empty()) s.AddMember("conditions", ConditionsJson(status.conditions, a), a);
  body.AddMember("status", s, a);
  return body;
}

bool BudgetUpdateMayUnblock(const shim::CachedObject& old_pdb, const shim::CachedObject& new_pdb) {
  auto allowed = new_pdb.FindJson({"status", "disruptionsAllowed"});
  if (!allowed || !allowed->IsInt64() || allowed->GetInt64() > 0) return true;
  auto old_spec = old_pdb.FindJson({"spec"});
  auto new_spec = new_pdb.FindJson({"spec"});
  return !old_spec || !new_spec || static_cast<const rapidjson::Value&>(*old_spec) != *new_spec;
}

std::string PhaseOf(const shim::ObjectPtr& obj) {
  auto phase = obj ? obj->FindString({"status", "phase"}) : std::nullopt;
  return phase && !phase->empty() ? *phase : "Pending";
}

}  // namespace berth::controllers
