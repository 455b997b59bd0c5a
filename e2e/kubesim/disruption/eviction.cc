#include "e2e/kubesim/disruption/eviction.h"

#include <map>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/disruption/api_status.h"
#include "e2e/kubesim/disruption/pdb_condition.h"
#include "e2e/kubesim/disruption/pod_facts.h"
#include "clientgo-shim/api/label_selector.h"

namespace berth::kubesim::disruption {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr std::string_view kCannotEvict =
    "Cannot evict pod as it would violate the pod's disruption budget.";
constexpr std::string_view kDisruptionBudgetCause = "DisruptionBudget";

EvictionReject Reject(int code, std::string_view reason, std::string_view message,
                      std::optional<StatusDetails> details = std::nullopt) {
  EvictionReject r;
  r.http_code = code;
  if (details && details->retry_after_seconds > 0) {
    r.retry_after_seconds = details->retry_after_seconds;
  }
  r.status = FailureStatus(code, reason, message, details);
  return r;
}

// errors.NewForbidden(policy.Resource("poddisruptionbudget"), name, err).
EvictionReject ForbiddenPdb(std::string_view pdb_name, std::string_view why) {
  StatusDetails d;
  d.name = std::string(pdb_name);
  d.group = "policy";
  d.kind = "poddisruptionbudget";
  return Reject(403, "Forbidden",
                "poddisruptionbudget.policy " + GoQuote(pdb_name) + " is forbidden: " +
                    std::string(why),
                d);
}

std::vector<std::string> StringList(const Value* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->IsArray()) return out;
  for (const auto& item : v->GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

bool ResourceVersionUnset(const Value& delete_options) {
  const Value* rv = json::Find(delete_options, {"preconditions", "resourceVersion"});
  return rv == nullptr || rv->IsNull();
}

void SetResourceVersionPrecondition(Document& options, std::string_view rv) {
  auto& a = options.GetAllocator();
  Value& pre = json::EnsureObject(options, "preconditions", a);
  json::SetString(pre, "resourceVersion", rv, a);
}

EvictionAllow BaseAllow(bool dry_run, const Document& delete_options) {
  EvictionAllow allow;
  allow.dry_run = dry_run;
  allow.add_disruption_target_condition = !dry_run;
  allow.delete_options.CopyFrom(delete_options, allow.delete_options.GetAllocator());
  allow.success_status = SuccessStatus(201);
  allow.http_code = 201;
  return allow;
}

// DecrementedStatus is checkAndDecrement's write: one disruption consumed, the pod recorded in
// disruptedPods (not in dry-run), members kept in policy/v1 wire order.
Document DecrementedStatus(const Value& old_status, std::string_view pod_name, bool dry_run,
                           TimePoint now) {
  Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  const int64_t allowed = IntField(old_status, "disruptionsAllowed") - 1;
  std::map<std::string, std::string> disrupted;
  if (const Value* dp = json::Member(old_status, "disruptedPods"); dp != nullptr && dp->IsObject()) {
    for (const auto& m : dp->GetObject()) {
      if (m.value.IsString()) {
        disrupted[std::string(m.name.GetString(), m.name.GetStringLength())] =
            std::string(m.value.GetString(), m.value.GetStringLength());
      }
    }
  }
  if (!dry_run) disrupted[std::string(pod_name)] = FormatRfc3339(now);
  for (std::string_view key : {"observedGeneration", "disruptedPods", "disruptionsAllowed",
                               "currentHealthy", "desiredHealthy", "expectedPods", "conditions"}) {
    if (key == "disruptedPods") {
      if (disrupted.empty()) continue;
      Value dp(rapidjson::kObjectType);
      for (const auto& [name, when] : disrupted) json::SetString(dp, name, when, a);
      json::SetMember(out, key, std::move(dp), a);
    } else if (key == "disruptionsAllowed") {
      json::SetMember(out, key, Value(static_cast<int64_t>(allowed)), a);
    } else if (const Value* v = json::Member(old_status, key); v != nullptr) {
      Value copy;
      copy.CopyFrom(*v, a);
      json::SetMember(out, key, std::move(copy), a);
    } else if (key != "observedGeneration" && key != "conditions") {
      json::SetMember(out, key, Value(0), a);
    }
  }
  // Members this code does not know about are carried over unchanged.
  for (const auto& m : old_status.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (json::Member(out, key) == nullptr && key != "disruptedPods") {
      Value copy;
      copy.CopyFrom(m.value, a);
      json::SetMember(out, key, std::move(copy), a);
    }
  }
  if (allowed == 0) UpdateDisruptionAllowedCondition(out, now, a);
  return out;
}

}  // namespace

EvictionReject TooManyRequestsWhilePdbProcessing(std::string_view pdb_name) {
  StatusDetails d;
  d.causes.push_back({std::string(kDisruptionBudgetCause),
                      "The disruption budget " + std::string(pdb_name) +
                          " is still being processed by the server."});
  d.retry_after_seconds = 10;
  return Reject(429, "TooManyRequests", kCannotEvict, d);
}

bool PdbSelectsPod(const Value& pdb, const Value& pod) {
  if (json::GetString(pdb, {"metadata", "namespace"}) !=
      json::GetString(pod, {"metadata", "namespace"})) {
    return false;
  }
  auto selector = shim::LabelSelector::FromJson(json::Find(pdb, {"spec", "selector"}));
  return selector && selector->Matches(shim::JsonLabels::OfObject(pod));
}

EvictionDecision DecideEviction(const Value& pod, const std::vector<const Value*>& matching_pdbs,
                                const Value& eviction_body, std::string_view url_name,
                                bool dry_run, TimePoint now) {
  if (!eviction_body.IsObject()) return Reject(400, "BadRequest", "not a Eviction object");
  if (json::GetString(eviction_body, {"metadata", "name"}) != url_name) {
    return Reject(400, "BadRequest", "name in URL does not match name in Eviction object");
  }

  // propagateDryRun: the URL's dryRun fills an empty body list; two non-empty lists must agree.
  Document options(rapidjson::kObjectType);
  if (const Value* body_opts = json::Member(eviction_body, "deleteOptions");
      body_opts != nullptr && body_opts->IsObject()) {
    options.CopyFrom(*body_opts, options.GetAllocator());
  }
  const std::vector<std::string> url_dry_run =
      dry_run ? std::vector<std::string>{"All"} : std::vector<std::string>{};
  const std::vector<std::string> body_dry_run = StringList(json::Member(options, "dryRun"));
  if (!body_dry_run.empty() && !url_dry_run.empty() && body_dry_run != url_dry_run) {
    return Reject(500, "",
                  "Non-matching dry-run options in request and content: " + GoList(url_dry_run) +
                      " and " + GoList(body_dry_run));
  }
  if (body_dry_run.empty()) {
    Value list(rapidjson::kArrayType);
    for (const std::string& s : url_dry_run) {
      list.PushBack(Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()),
                          options.GetAllocator()),
                    options.GetAllocator());
    }
    if (url_dry_run.empty()) {
      json::RemoveMember(options, "dryRun");
    } else {
      json::SetMember(options, "dryRun", std::move(list), options.GetAllocator());
    }
  }
  const bool effective_dry_run = !url_dry_run.empty() || !body_dry_run.empty();
  const bool caller_set_rv = !ResourceVersionUnset(options);
  const std::string_view pod_rv = json::GetString(pod, {"metadata", "resourceVersion"});
  const std::string_view phase = PodPhase(pod);
  const bool deleting = IsPodDeleting(pod);

  // canIgnorePDB: terminal, pending or terminating pods are deleted without consulting PDBs.
  if (phase == "Succeeded" || phase == "Failed" || phase == "Pending" || deleting) {
    EvictionAllow allow = BaseAllow(effective_dry_run, options);
    // shouldEnforceResourceVersion: only a Pending pod could still race into Ready.
    if (phase == "Pending" && !deleting && !caller_set_rv) {
      SetResourceVersionPrecondition(allow.delete_options, pod_rv);
    }
    return allow;
  }

  if (matching_pdbs.size() > 1) {
    return Reject(500, "",
                  "This pod has more than one PodDisruptionBudget, which the eviction "
                  "subresource does not support.");
  }
  if (matching_pdbs.empty() || matching_pdbs.front() == nullptr) {
    return BaseAllow(effective_dry_run, options);
  }

  static const Value kEmptyObject(rapidjson::kObjectType);
  const Value& pdb = *matching_pdbs.front();
  const std::string pdb_name(json::GetString(pdb, {"metadata", "name"}));
  const Value* status_ptr = json::Member(pdb, "status");
  const Value& status = status_ptr != nullptr && status_ptr->IsObject() ? *status_ptr : kEmptyObject;
  const int64_t current_healthy = IntField(status, "currentHealthy");
  const int64_t desired_healthy = IntField(status, "desiredHealthy");

  // An unready pod does not count as healthy: deleting it consumes no budget when the policy
  // allows it (AlwaysAllow) or when the application is not disrupted (IfHealthyBudget).
  if (!IsPodReady(pod)) {
    const bool always_allow =
        json::GetString(pdb, {"spec", "unhealthyPodEvictionPolicy"}) == "AlwaysAllow";
    if (always_allow || (current_healthy >= desired_healthy && desired_healthy > 0)) {
      EvictionAllow allow = BaseAllow(effective_dry_run, options);
      allow.pdb_name = pdb_name;
      SetResourceVersionPrecondition(allow.delete_options, pod_rv);
      allow.conflict_means_too_many_requests = !caller_set_rv;
      return allow;
    }
  }

  // checkAndDecrement.
  const Value* meta = json::Member(pdb, "metadata");
  const int64_t generation = meta != nullptr ? IntField(*meta, "generation") : 0;
  if (IntField(status, "observedGeneration") < generation) {
    return TooManyRequestsWhilePdbProcessing(pdb_name);
  }
  const int64_t allowed = IntField(status, "disruptionsAllowed");
  if (allowed < 0) return ForbiddenPdb(pdb_name, "pdb disruptions allowed is negative");
  const Value* disrupted = json::Member(status, "disruptedPods");
  if (disrupted != nullptr && disrupted->IsObject() &&
      disrupted->MemberCount() > kMaxDisruptedPodSize) {
    return ForbiddenPdb(pdb_name,
                        "DisruptedPods map too big - too many evictions not confirmed by PDB "
                        "controller");
  }
  if (allowed == 0) {
    StatusDetails d;
    d.causes.push_back({std::string(kDisruptionBudgetCause),
                        "The disruption budget " + pdb_name + " needs " +
                            std::to_string(desired_healthy) + " healthy pods and has " +
                            std::to_string(current_healthy) + " currently"});
    return Reject(429, "TooManyRequests", kCannotEvict, d);
  }

  EvictionAllow allow = BaseAllow(effective_dry_run, options);
  allow.pdb_name = pdb_name;
  allow.decrement_pdb = !effective_dry_run;
  allow.updated_pdb_status = DecrementedStatus(status, PodName(pod), effective_dry_run, now);
  return allow;
}

Document DisruptionTargetCondition(TimePoint now) {
  Document c(rapidjson::kObjectType);
  auto& a = c.GetAllocator();
  json::SetString(c, "type", "DisruptionTarget", a);
  json::SetString(c, "status", "True", a);
  json::SetMember(c, "lastProbeTime", Value(rapidjson::kNullType), a);
  json::SetString(c, "lastTransitionTime", FormatRfc3339(now), a);
  json::SetString(c, "reason", "EvictionByEvictionAPI", a);
  json::SetString(c, "message", "Eviction API: evicting", a);
  return c;
}

void ApplyDisruptionTargetCondition(Value& pod, TimePoint now,
                                    rapidjson::Document::AllocatorType& alloc) {
  if (!pod.IsObject()) return;
  Value& status = json::EnsureObject(pod, "status", alloc);
  auto it = status.FindMember("conditions");
  if (it == status.MemberEnd() || !it->value.IsArray()) {
    json::SetMember(status, "conditions", Value(rapidjson::kArrayType), alloc);
    it = status.FindMember("conditions");
  }
  Value condition;
  condition.CopyFrom(DisruptionTargetCondition(now), alloc);
  for (auto& existing : it->value.GetArray()) {
    if (json::GetString(existing, {"type"}) != "DisruptionTarget") continue;
    const Value* old_ltt = json::Member(existing, "lastTransitionTime");
    if (json::GetString(existing, {"status"}) == "True" && old_ltt != nullptr) {
      condition["lastTransitionTime"].CopyFrom(*old_ltt, alloc);
    }
    existing = std::move(condition);
    return;
  }
  it->value.PushBack(std::move(condition), alloc);
}

}  // namespace berth::kubesim::disruption
