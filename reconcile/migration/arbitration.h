// reconcile/migration/arbitration.h
//
// koordinator's arbitration limits as one pure check: may this job's pod start migrating now,
// given the migrations already under way? Limits (upstream-facts/koordinator-reservation.md §3.3):
// maxMigratingGlobally (unset = off), maxMigratingPerNode (default 2), maxMigratingPerNamespace
// (unset = off), maxMigratingPerWorkload and maxUnavailablePerWorkload (int or percent; unset =
// koordinator's default by expected replicas: > 10 → 10%, 4–10 → 2, < 4 → 1; capped at replicas,
// at least 1), and the ExpectedReplicas check (a workload of 1 replica, or whose replicas equal
// either workload limit, is not migrated unless skipped). The pod annotation
// descheduler.alpha.kubernetes.io/evict bypasses them all. A job a limit holds back stays Pending;
// it is retried, never failed, for these.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace berth::reconcile::migration {

// IntOrPercent: Kubernetes' intstr as "3" or "30%".
struct IntOrPercent {
  int64_t value = 0;
  bool percent = false;
  bool operator==(const IntOrPercent&) const = default;
};
// ParseIntOrPercent: a non-negative integer, or one followed by '%'. Anything else is an error
// naming the text (never read as 0).
std::expected<IntOrPercent, std::string> ParseIntOrPercent(std::string_view text);
// ScaledValue: the value, or ceil(percent × total / 100) (intstr's roundUp).
int64_t ScaledValue(const IntOrPercent& v, int64_t total);

struct ArbitrationLimits {
  std::optional<int64_t> max_migrating_globally;
  std::optional<int64_t> max_migrating_per_node = 2;
  std::optional<int64_t> max_migrating_per_namespace;
  std::optional<IntOrPercent> max_migrating_per_workload;   // nullopt: the default by replicas
  std::optional<IntOrPercent> max_unavailable_per_workload; // nullopt: the default by replicas
  bool skip_check_expected_replicas = false;
};

// WorkloadLimit: a workload limit for `expected_replicas`: the configured value scaled (capped at
// replicas, at least 1) or koordinator's default.
int64_t WorkloadLimit(const std::optional<IntOrPercent>& configured, int64_t expected_replicas);

// A pod whose job is migrating (Running, or admitted and not yet written Running).
struct MigratingPod {
  std::string pod_key;  // namespace/name
  std::string node_name;
  std::string namespace_name;
  std::string workload_key;  // its controller's uid; "" for none
  // The evicted pod is gone (or replaced by another of its name). As koordinator's
  // filterMaxMigratingOrUnavailablePerWorkload (it counts a job for the workload only while Get of
  // its pod finds a pod of that controller), the job then no longer counts on its node or for its
  // workload's migrating pods; the replacement, until Ready, counts among the workload's
  // unavailable pods. It still counts globally and for its namespace until the job ends.
  bool pod_gone = false;
};

struct WorkloadFacts {
  std::string key;  // the controller's uid
  std::string description;  // "ReplicaSet default/web-5d8f" for messages
  int64_t expected_replicas = 0;
  std::set<std::string> unavailable_pods;  // pod keys: not Running, not Ready, or terminating
};

struct ArbitrationInput {
  std::string pod_key;
  std::string node_name;
  std::string namespace_name;
  bool bypass = false;  // descheduler.alpha.kubernetes.io/evict
  std::optional<WorkloadFacts> workload;
  std::vector<MigratingPod> migrating;  // other jobs' pods (this pod is skipped if listed)
};

// Reasons on the job's Arbitration condition (berth's condition type; koordinator keeps held jobs
// in its arbitration queue without a status).
inline constexpr std::string_view kCondArbitration = "Arbitration";
inline constexpr std::string_view kReasonMaxMigratingGlobally = "MaxMigratingGlobally";
inline constexpr std::string_view kReasonMaxMigratingPerNode = "MaxMigratingPerNode";
inline constexpr std::string_view kReasonMaxMigratingPerNamespace = "MaxMigratingPerNamespace";
inline constexpr std::string_view kReasonMaxMigratingPerWorkload = "MaxMigratingPerWorkload";
inline constexpr std::string_view kReasonMaxUnavailablePerWorkload = "MaxUnavailablePerWorkload";
inline constexpr std::string_view kReasonExpectedReplicas = "ExpectedReplicas";
inline constexpr std::string_view kReasonPassedArbitration = "PassedArbitration";

struct LimitHit {
  std::string reason;   // one of the reasons above
  std::string message;  // which limit, its value and the count that reached it
  bool operator==(const LimitHit&) const = default;
};

// A Pending job an arbitration limit may hold, in the order held jobs get their turn: the pod's
// priority, lowest first (the seed: lower priority is evicted first; kube-scheduler's default 0
// for a pod without one), then the oldest (koordinator's arbitrator sorts by creation time), then
// the name.
struct HeldJob {
  int64_t pod_priority = 0;
  std::string creation_timestamp;  // RFC 3339, sorts as text
  std::string name;
  std::string uid;
  auto operator<=>(const HeldJob&) const = default;
};

// HeldJobsToWake: which held jobs to reconcile when a slot may have freed (a job ended, a budget
// or a workload's pod changed, a job was admitted): the `n` first in HeldJob's order not yet
// admitted, so every held job is reached in its turn without reconciling all of them (each
// arbitration reads its workload's pods) on every change. `admitted`: the uids of jobs that passed.
std::vector<std::string> HeldJobsToWake(const std::set<HeldJob>& pending, const std::set<std::string>& admitted,
                                        size_t n);

// Arbitrate: nullopt when the pod may start migrating; else the first limit (in the order above)
// that holds it back.
std::optional<LimitHit> Arbitrate(const ArbitrationInput& input, const ArbitrationLimits& limits);

}  // namespace berth::reconcile::migration
