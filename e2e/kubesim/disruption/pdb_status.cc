#include "e2e/kubesim/disruption/pdb_status.h"

#include <map>
#include <unordered_set>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/disruption/api_status.h"
#include "e2e/kubesim/disruption/int_or_percent.h"
#include "e2e/kubesim/disruption/pdb_condition.h"
#include "clientgo-shim/api/label_selector.h"
#include "e2e/kubesim/disruption/selector_text.h"

namespace berth::kubesim::disruption {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr std::string_view kPdbKind = "PodDisruptionBudget";

struct Counts {
  int64_t expected = 0;
  int64_t desired_healthy = 0;
  std::vector<std::string> unmanaged;
};

// ExpectedScale sums the scale of the distinct controllers of `pods` (getExpectedScale).
Result<int64_t> ExpectedScale(std::string_view ns, const std::vector<const Value*>& pods,
                              const ScaleLookup& lookup, std::vector<std::string>& unmanaged) {
  std::map<std::string, int64_t> scale_by_uid;
  std::unordered_set<std::string> seen_refs;  // controllerRef uids already resolved
  for (const Value* pod : pods) {
    std::optional<OwnerRef> ref = ControllerOf(*pod);
    if (!ref) {
      unmanaged.emplace_back(PodName(*pod));
      continue;
    }
    if (seen_refs.contains(ref->uid) || scale_by_uid.contains(ref->uid)) continue;
    std::optional<ControllerScale> found = lookup ? lookup(ns, *ref) : std::nullopt;
    if (!found) {
      return MakeError(ErrorCode::kNotFound,
                       "found no controllers for pod " + GoQuote(PodName(*pod)));
    }
    seen_refs.insert(ref->uid);
    scale_by_uid[found->uid] = found->replicas;
  }
  int64_t total = 0;
  for (const auto& [uid, replicas] : scale_by_uid) total += replicas;
  return total;
}

// ExpectedPodCount mirrors getExpectedPodCount: maxUnavailable wins, then minAvailable.
Result<Counts> ExpectedPodCount(std::string_view ns, const Value& spec,
                                const std::vector<const Value*>& pods, const ScaleLookup& lookup) {
  Counts out;
  const Value* max_unavailable = json::Member(spec, "maxUnavailable");
  const Value* min_available = json::Member(spec, "minAvailable");
  if (max_unavailable != nullptr && !max_unavailable->IsNull()) {
    auto expected = ExpectedScale(ns, pods, lookup, out.unmanaged);
    if (!expected) return std::unexpected(expected.error());
    out.expected = *expected;
    auto max = ScaledValueFromIntOrPercent(*max_unavailable, out.expected, true);
    if (!max) return std::unexpected(max.error());
    out.desired_healthy = std::max<int64_t>(0, out.expected - *max);
  } else if (min_available != nullptr && !min_available->IsNull()) {
    if (min_available->IsInt64()) {
      out.desired_healthy = min_available->GetInt64();
      out.expected = static_cast<int64_t>(pods.size());
    } else {
      // Strings (percentages) and anything malformed go through the scaled path, whose
      // parser reports the upstream error text.
      auto expected = ExpectedScale(ns, pods, lookup, out.unmanaged);
      if (!expected) return std::unexpected(expected.error());
      out.expected = *expected;
      auto min = ScaledValueFromIntOrPercent(*min_available, out.expected, true);
      if (!min) return std::unexpected(min.error());
      out.desired_healthy = *min;
    }
  }
  return out;
}

// Fields of a status in policy/v1 wire order.
struct StatusFields {
  int64_t observed_generation = 0;
  std::map<std::string, std::string> disrupted_pods;  // Go maps serialize sorted by key
  int64_t disruptions_allowed = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  int64_t expected_pods = 0;
};

Document BuildStatus(const StatusFields& f, const Value* old_conditions) {
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  if (f.observed_generation != 0) {
    json::SetMember(doc, "observedGeneration", Value(f.observed_generation), a);
  }
  if (!f.disrupted_pods.empty()) {
    Value dp(rapidjson::kObjectType);
    for (const auto& [name, when] : f.disrupted_pods) json::SetString(dp, name, when, a);
    json::SetMember(doc, "disruptedPods", std::move(dp), a);
  }
  json::SetMember(doc, "disruptionsAllowed", Value(f.disruptions_allowed), a);
  json::SetMember(doc, "currentHealthy", Value(f.current_healthy), a);
  json::SetMember(doc, "desiredHealthy", Value(f.desired_healthy), a);
  json::SetMember(doc, "expectedPods", Value(f.expected_pods), a);
  Value conditions(rapidjson::kArrayType);
  if (old_conditions != nullptr && old_conditions->IsArray()) conditions.CopyFrom(*old_conditions, a);
  json::SetMember(doc, "conditions", std::move(conditions), a);
  return doc;
}

// FailSafe keeps the previous status but forces disruptionsAllowed to 0 and records the error.
PdbStatusResult FailSafe(const Value& old_status, std::string_view error, TimePoint now,
                         std::vector<EventNote> events) {
  StatusFields f;
  f.observed_generation = IntField(old_status, "observedGeneration");
  if (const Value* dp = json::Member(old_status, "disruptedPods"); dp != nullptr && dp->IsObject()) {
    for (const auto& m : dp->GetObject()) {
      if (m.value.IsString()) {
        f.disrupted_pods[std::string(m.name.GetString(), m.name.GetStringLength())] =
            std::string(m.value.GetString(), m.value.GetStringLength());
      }
    }
  }
  f.current_healthy = IntField(old_status, "currentHealthy");
  f.desired_healthy = IntField(old_status, "desiredHealthy");
  f.expected_pods = IntField(old_status, "expectedPods");
  PdbStatusResult out;
  out.status = BuildStatus(f, json::Member(old_status, "conditions"));
  SetStatusCondition(out.status["conditions"],
                     ConditionUpdate{kDisruptionAllowedCondition, "False", kSyncFailedReason, error,
                                     f.observed_generation},
                     now, out.status.GetAllocator());
  out.events = std::move(events);
  out.sync_failed = true;
  out.changed = !(out.status == old_status);
  return out;
}

}  // namespace

PdbStatusResult ComputePdbStatus(const Value& pdb, const std::vector<const Value*>& pods_in_namespace,
                                 const ScaleLookup& scale, TimePoint now) {
  static const Value kEmptyObject(rapidjson::kObjectType);
  const std::string ns(json::GetString(pdb, {"metadata", "namespace"}));
  const std::string pdb_name(json::GetString(pdb, {"metadata", "name"}));
  const Value* meta = json::Member(pdb, "metadata");
  const int64_t generation = meta != nullptr ? IntField(*meta, "generation") : 0;
  const Value* old_status_ptr = json::Member(pdb, "status");
  const Value& old_status =
      old_status_ptr != nullptr && old_status_ptr->IsObject() ? *old_status_ptr : kEmptyObject;
  const Value* spec_ptr = json::Member(pdb, "spec");
  const Value& spec = spec_ptr != nullptr && spec_ptr->IsObject() ? *spec_ptr : kEmptyObject;
  std::vector<EventNote> events;
  auto pdb_event = [&](std::string_view type, std::string_view reason, std::string message) {
    events.push_back(EventNote{std::string(type), std::string(reason), std::move(message),
                               std::string(kPdbKind), pdb_name});
  };

  // 1. Pods selected by the PDB (getPodsForPdb).
  const Value* selector_json = json::Member(spec, "selector");
  auto selector = shim::LabelSelector::FromJson(selector_json);
  if (!selector) {
    pdb_event("Warning", "NoPods", "Failed to get pods: " + selector.error().message);
    return FailSafe(old_status, selector.error().message, now, std::move(events));
  }
  std::vector<const Value*> pods;
  for (const Value* pod : pods_in_namespace) {
    if (pod == nullptr || !pod->IsObject()) continue;
    std::string_view pod_ns = json::GetString(*pod, {"metadata", "namespace"});
    if (!pod_ns.empty() && !ns.empty() && pod_ns != ns) continue;
    if (selector->Matches(shim::JsonLabels::OfObject(*pod))) pods.push_back(pod);
  }
  if (pods.empty()) pdb_event("Normal", "NoPods", "No matching pods found");

  // 2. Expected and desired counts.
  auto counts = ExpectedPodCount(ns, spec, pods, scale);
  if (!counts) {
    pdb_event("Warning", "CalculateExpectedPodCountFailed",
              "Failed to calculate the number of expected pods: " + counts.error().message);
    return FailSafe(old_status, counts.error().message, now, std::move(events));
  }
  if (!counts->unmanaged.empty()) {
    pdb_event("Warning", "UnmanagedPods",
              "Pods selected by this PodDisruptionBudget (selector: " +
                  DescribeLabelSelector(selector_json) +
                  ") were found to be unmanaged. As a result, the status of the PDB cannot be "
                  "calculated correctly, which may result in undefined behavior. To account for "
                  "these pods please set \".spec.minAvailable\" field of the PDB to an integer "
                  "value.");
  }

  // 3. Prune disruptedPods (buildDisruptedPodMap): only live, non-deleting selected pods whose
  //    entry is younger than kDeletionTimeout survive.
  StatusFields f;
  std::map<std::string, TimePoint> disrupted;
  std::optional<TimePoint> recheck;
  const Value* old_disrupted = json::Member(old_status, "disruptedPods");
  if (old_disrupted != nullptr && old_disrupted->IsObject()) {
    for (const Value* pod : pods) {
      if (IsPodDeleting(*pod)) continue;
      std::string name(PodName(*pod));
      const Value* when = json::Member(*old_disrupted, name);
      if (when == nullptr || !when->IsString()) continue;
      // An unparseable time cannot be honoured; the entry is dropped like a vanished pod.
      std::optional<TimePoint> at =
          ParseRfc3339(std::string_view(when->GetString(), when->GetStringLength()));
      if (!at) continue;
      const TimePoint expected_deletion = *at + kDeletionTimeout;
      if (expected_deletion < now) {
        // Upstream prints the PDB namespace twice here (pdb.Namespace, pdb.Namespace); kept.
        events.push_back(EventNote{"Warning", "NotDeleted",
                                   "Pod was expected by PDB " + ns + "/" + ns +
                                       " to be deleted but it wasn't",
                                   "Pod", name});
      } else {
        if (!recheck || expected_deletion < *recheck) recheck = expected_deletion;
        disrupted[name] = *at;
        f.disrupted_pods[name] = FormatRfc3339(*at);
      }
    }
  }

  // 4. currentHealthy (countHealthyPods).
  for (const Value* pod : pods) {
    if (IsPodDeleting(*pod)) continue;
    auto it = disrupted.find(std::string(PodName(*pod)));
    if (it != disrupted.end() && it->second + kDeletionTimeout > now) continue;
    if (IsPodReady(*pod)) ++f.current_healthy;
  }

  // 5. Status (updatePdbStatus).
  f.desired_healthy = counts->desired_healthy;
  f.expected_pods = counts->expected;
  f.disruptions_allowed = f.current_healthy - f.desired_healthy;
  if (f.expected_pods <= 0 || f.disruptions_allowed <= 0) f.disruptions_allowed = 0;
  f.observed_generation = generation;

  PdbStatusResult out;
  out.status = BuildStatus(f, json::Member(old_status, "conditions"));
  UpdateDisruptionAllowedCondition(out.status, now, out.status.GetAllocator());
  out.events = std::move(events);
  out.recheck_at = recheck;
  out.changed = !(out.status == old_status);
  return out;
}

}  // namespace berth::kubesim::disruption
