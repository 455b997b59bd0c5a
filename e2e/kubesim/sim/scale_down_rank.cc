#include "e2e/kubesim/sim/scale_down_rank.h"

#include <algorithm>

#include "clientgo-shim/api/deletion_cost.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;

int PhaseRank(std::string_view phase) {
  if (phase == "Pending") return 0;
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 3;
}

int32_t MaxRestarts(const Value& pod) {
  int64_t most = 0;
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    const Value* statuses = json::Find(pod, {"status", field});
    if (!statuses || !statuses->IsArray()) continue;
    for (const auto& s : statuses->GetArray()) most = std::max(most, workload::IntAt(s, {"restartCount"}, 0));
  }
  return static_cast<int32_t>(std::min<int64_t>(most, INT32_MAX));
}

// AfterOrZero is upstream's afterOrZero: a zero time sorts first, then the later time.
bool AfterOrZero(shim::TimePoint a, shim::TimePoint b) {
  const shim::TimePoint zero{};
  if (a == zero || b == zero) return a == zero && b != zero;
  return a > b;
}

}  // namespace

ScaleDownFacts FactsOf(const Value& pod, const std::map<std::string, int64_t>& related_pods_per_node) {
  ScaleDownFacts f;
  f.name = std::string(json::GetString(pod, {"metadata", "name"}));
  std::string node(json::GetString(pod, {"spec", "nodeName"}));
  f.assigned = !node.empty();
  f.phase_rank = PhaseRank(json::GetString(pod, {"status", "phase"}));
  f.ready_since = workload::ReadySince(pod);
  if (const Value* cost = json::Find(pod, {"metadata", "annotations", shim::kPodDeletionCostAnnotation});
      cost && cost->IsString()) {
    f.deletion_cost = shim::ParsePodDeletionCost(std::string_view(cost->GetString(), cost->GetStringLength())).value_or(0);
  }
  if (auto it = related_pods_per_node.find(node); it != related_pods_per_node.end()) f.related_on_node = it->second;
  f.max_restarts = MaxRestarts(pod);
  if (auto created = shim::ParseTimestamp(json::GetString(pod, {"metadata", "creationTimestamp"}))) {
    f.created = *created;
  }
  return f;
}

bool DeletesBefore(const ScaleDownFacts& a, const ScaleDownFacts& b) {
  if (a.assigned != b.assigned) return !a.assigned;
  if (a.phase_rank != b.phase_rank) return a.phase_rank < b.phase_rank;
  if (a.ready_since.has_value() != b.ready_since.has_value()) return !a.ready_since.has_value();
  if (a.deletion_cost != b.deletion_cost) return a.deletion_cost < b.deletion_cost;
  if (a.related_on_node != b.related_on_node) return a.related_on_node > b.related_on_node;
  if (a.ready_since && b.ready_since && *a.ready_since != *b.ready_since) {
    return AfterOrZero(*a.ready_since, *b.ready_since);
  }
  if (a.max_restarts != b.max_restarts) return a.max_restarts > b.max_restarts;
  shim::TimePoint created_a = a.created.value_or(shim::TimePoint{});
  shim::TimePoint created_b = b.created.value_or(shim::TimePoint{});
  if (created_a != created_b) return AfterOrZero(created_a, created_b);
  return a.name < b.name;
}

}  // namespace berth::kubesim
