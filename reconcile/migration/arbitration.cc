#include "reconcile/migration/arbitration.h"

#include <algorithm>
#include <charconv>

namespace berth::reconcile::migration {

std::expected<IntOrPercent, std::string> ParseIntOrPercent(std::string_view text) {
  IntOrPercent v;
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') {
    v.percent = true;
    digits.remove_suffix(1);
  }
  const auto bad = [&] {
    return std::unexpected("invalid value \"" + std::string(text) +
                           "\": want a non-negative integer or percentage (\"2\", \"10%\")");
  };
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad();
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v.value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return bad();
  return v;
}

int64_t ScaledValue(const IntOrPercent& v, int64_t total) {
  if (!v.percent) return v.value;
  // ceil(v × total / 100) without overflow for the sizes a workload has.
  const __int128 product = static_cast<__int128>(v.value) * total;
  return static_cast<int64_t>((product + 99) / 100);
}

int64_t WorkloadLimit(const std::optional<IntOrPercent>& configured, int64_t expected_replicas) {
  IntOrPercent v;
  if (configured) {
    v = *configured;
  } else if (expected_replicas > 10) {
    v = {10, true};
  } else if (expected_replicas >= 4) {
    v = {2, false};
  } else {
    v = {1, false};
  }
  int64_t limit = ScaledValue(v, expected_replicas);
  if (expected_replicas > 0) limit = std::min(limit, expected_replicas);
  return std::max<int64_t>(limit, 1);
}

namespace {

std::string Count(int64_t n, std::string_view what) {
  return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
}

}  // namespace

std::optional<LimitHit> Arbitrate(const ArbitrationInput& in, const ArbitrationLimits& limits) {
  if (in.bypass) return std::nullopt;
  int64_t global = 0, node = 0, ns = 0, workload = 0;
  std::set<std::string> unavailable = in.workload ? in.workload->unavailable_pods : std::set<std::string>{};
  for (const MigratingPod& m : in.migrating) {
    if (m.pod_key == in.pod_key) continue;
    ++global;
    if (m.namespace_name == in.namespace_name) ++ns;
    if (m.pod_gone) continue;
    if (!in.node_name.empty() && m.node_name == in.node_name) ++node;
    if (in.workload && !m.workload_key.empty() && m.workload_key == in.workload->key) {
      ++workload;
      unavailable.insert(m.pod_key);
    }
  }
  // The messages name the limit, not the current count: a held job's condition is rewritten only
  // when the limit holding it changes, not on every migration that starts or ends.
  if (limits.max_migrating_globally && global >= *limits.max_migrating_globally) {
    return LimitHit{std::string(kReasonMaxMigratingGlobally),
                    "maxMigratingGlobally " + std::to_string(*limits.max_migrating_globally) +
                        " reached: that many pods are migrating in the cluster"};
  }
  if (limits.max_migrating_per_node && node >= *limits.max_migrating_per_node) {
    return LimitHit{std::string(kReasonMaxMigratingPerNode),
                    "maxMigratingPerNode " + std::to_string(*limits.max_migrating_per_node) +
                        " reached: that many pods are migrating on node " + in.node_name};
  }
  if (limits.max_migrating_per_namespace && ns >= *limits.max_migrating_per_namespace) {
    return LimitHit{std::string(kReasonMaxMigratingPerNamespace),
                    "maxMigratingPerNamespace " + std::to_string(*limits.max_migrating_per_namespace) +
                        " reached: that many pods are migrating in namespace " + in.namespace_name};
  }
  if (!in.workload) return std::nullopt;
  const WorkloadFacts& w = *in.workload;
  const int64_t max_migrating = WorkloadLimit(limits.max_migrating_per_workload, w.expected_replicas);
  const int64_t max_unavailable = WorkloadLimit(limits.max_unavailable_per_workload, w.expected_replicas);
  if (!limits.skip_check_expected_replicas &&
      (w.expected_replicas <= 1 || w.expected_replicas == max_migrating || w.expected_replicas == max_unavailable)) {
    return LimitHit{std::string(kReasonExpectedReplicas),
                    w.description + " expects " + Count(w.expected_replicas, "replica") +
                        ", which a migration would leave without a running pod (maxMigratingPerWorkload " +
                        std::to_string(max_migrating) + ", maxUnavailablePerWorkload " +
                        std::to_string(max_unavailable) + ")"};
  }
  if (workload >= max_migrating) {
    return LimitHit{std::string(kReasonMaxMigratingPerWorkload),
                    "maxMigratingPerWorkload " + std::to_string(max_migrating) + " (" +
                        Count(w.expected_replicas, "replica") + ") reached: that many pods of " + w.description +
                        " are migrating"};
  }
  unavailable.insert(in.pod_key);
  if (static_cast<int64_t>(unavailable.size()) > max_unavailable) {
    return LimitHit{std::string(kReasonMaxUnavailablePerWorkload),
                    "maxUnavailablePerWorkload " + std::to_string(max_unavailable) + " (" +
                        Count(w.expected_replicas, "replica") + ") reached: that many pods of " + w.description +
                        " are unavailable or migrating"};
  }
  return std::nullopt;
}

std::vector<std::string> HeldJobsToWake(const std::set<HeldJob>& pending, const std::set<std::string>& admitted,
                                        size_t n) {
  std::vector<std::string> out;
  for (auto it = pending.begin(); it != pending.end() && out.size() < n; ++it) {
    if (!admitted.contains(it->uid)) out.push_back(it->name);
  }
  return out;
}

}  // namespace berth::reconcile::migration
