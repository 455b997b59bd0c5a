// e2e/kubesim/api/priority_admission.cc
#include "e2e/kubesim/api/priority_admission.h"

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;

HttpResponse Forbidden(const std::string& pod_name, const std::string& why) {
  return StatusError(403, "Forbidden", "pods \"" + pod_name + "\" is forbidden: " + why, pod_name, "", "pods");
}

struct ClassFacts {
  std::string name;
  int64_t value = 0;
  std::string preemption_policy;  // "" when the class sets none
};

std::optional<ClassFacts> Facts(const StoredObject& stored) {
  auto doc = json::Parse(stored.json);
  if (!doc) return std::nullopt;
  const Value* value = json::Find(*doc, {"value"});
  if (!value || !value->IsInt64()) return std::nullopt;
  return ClassFacts{stored.name, value->GetInt64(), std::string(json::GetString(*doc, {"preemptionPolicy"}))};
}

std::optional<ClassFacts> GlobalDefault(const ObjectStore& store) {
  auto list = store.List(kPriorityClassesKey, "", [](const StoredObject&) { return true; }, 0, 0, "");
  if (!list) return std::nullopt;
  std::optional<ClassFacts> best;
  for (const ObjectPtr& item : list->items) {
    auto doc = json::Parse(item->json);
    if (!doc || !json::Find(*doc, {"globalDefault"}) || !json::Find(*doc, {"globalDefault"})->IsTrue()) continue;
    // Several defaults can exist for a moment: upstream takes the lowest value.
    auto facts = Facts(*item);
    if (facts && (!best || facts->value < best->value)) best = std::move(facts);
  }
  return best;
}

}  // namespace

std::optional<HttpResponse> AdmitPodPriority(const ObjectStore& store, const std::string& pod_name,
                                             rapidjson::Document& pod) {
  Value* spec = json::FindMutable(pod, {"spec"});
  if (!spec || !spec->IsObject()) return std::nullopt;  // validation reports it
  auto& a = pod.GetAllocator();
  std::string class_name(json::GetString(*spec, {"priorityClassName"}));
  std::optional<ClassFacts> facts;
  if (class_name.empty()) {
    facts = GlobalDefault(store);
    if (facts) json::SetString(*spec, "priorityClassName", facts->name, a);
  } else {
    ObjectPtr stored = store.Get(kPriorityClassesKey, "", class_name);
    if (stored) facts = Facts(*stored);
    if (!facts) return Forbidden(pod_name, "no PriorityClass with name " + class_name + " was found");
  }
  const int64_t priority = facts ? facts->value : 0;
  if (const Value* given = json::Find(*spec, {"priority"}); given && !given->IsNull()) {
    if (!given->IsInt64() || given->GetInt64() != priority) {
      return Forbidden(pod_name, "the integer value of priority (" + json::Serialize(*given) +
                                     ") must not be provided in pod spec; priority admission controller computed " +
                                     std::to_string(priority) + " from the given PriorityClass name");
    }
  }
  json::SetMember(*spec, "priority", Value(priority), a);
  if (facts && !facts->preemption_policy.empty()) {
    std::string_view given = json::GetString(*spec, {"preemptionPolicy"});
    if (!given.empty() && given != facts->preemption_policy) {
      return Forbidden(pod_name, "the string value of PreemptionPolicy (" + std::string(given) +
                                     ") must not be provided in pod spec; priority admission controller computed " +
                                     facts->preemption_policy + " from the given PriorityClass name");
    }
    json::SetString(*spec, "preemptionPolicy", facts->preemption_policy, a);
  }
  return std::nullopt;
}

const char* const* BuiltinPriorityClasses() {
  static const char* const kClasses[] = {
      R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"system-cluster-critical"},)"
      R"("value":2000000000,"description":"Used for system critical pods that must run in the cluster, but can be )"
      R"(moved to another node if necessary.","preemptionPolicy":"PreemptLowerPriority"})",
      R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"system-node-critical"},)"
      R"("value":2000001000,"description":"Used for system critical pods that must not be moved from their current )"
      R"(node.","preemptionPolicy":"PreemptLowerPriority"})",
      nullptr};
  return kClasses;
}

}  // namespace berth::kubesim
