// reconcile/placement/schedule_support.cc
//
// The per-node predicates, scores and reasons of ClusterSnapshot's decisions
// (schedule_internal.h).
#include <algorithm>
#include <optional>

#include "reconcile/placement/node_ports.h"
#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/reservation_affinity.h"
#include "reconcile/placement/resource_policy.h"
#include "reconcile/placement/schedule_internal.h"
#include "reconcile/placement/scoring.h"

namespace berth::reconcile::placement::internal {
namespace {

// Available: what a pod may take from the node outside reservations. A reservation-ignored pod
// also takes what reservations hold unallocated (koordinator: "the pod can allocate ... the
// reserved resources unallocated of all reservations on the node").
__int128 Available(const NodeEntry& n, int index, bool ignore_reservations) {
  return FreeAt(n, index) + (ignore_reservations ? At(n.held, index) : 0);
}

// Unbounded: a request at the int64 milli bound (cpu "1e30") fits no node, even one whose
// allocatable is just as unbounded.
bool Unbounded(const internal::Request& r) { return r.amount >= kUnboundedAmount; }

bool IsRestricted(const ReservationEntry& r, int index) {
  return index >= 0 && index < static_cast<int>(r.restricted.size()) && r.restricted[index];
}

void AddResourceReasons(const CompiledPod& c, const NodeEntry& n, bool ignore_reservations,
                        FitError& err) {
  for (const internal::Request& r : c.requests) {
    if (r.index < 0 || Unbounded(r) || r.amount > Available(n, r.index, ignore_reservations)) {
      err.reasons[InsufficientReason(r.name)]++;
    }
  }
}

}  // namespace

CompiledPod Compile(const internal::ResourceTable& table, const PodSpecView& pod,
                    bool count_pods) {
  CompiledPod c;
  c.requests.reserve(pod.requests.size() + 1);
  if (count_pods) c.requests.push_back({internal::kPods, internal::kOnePod, kResourcePods});
  for (const auto& [name, amount] : pod.requests) {
    if (amount <= 0 || name == kResourcePods) continue;
    c.requests.push_back({table.Find(name), amount, name});
  }
  auto cpu = pod.requests.find(std::string(kResourceCpu));
  auto mem = pod.requests.find(std::string(kResourceMemory));
  c.nonzero_cpu = cpu != pod.requests.end() && cpu->second != 0 ? cpu->second
                                                                 : kDefaultMilliCpuRequest;
  c.nonzero_memory = mem != pod.requests.end() && mem->second != 0 ? mem->second
                                                                    : kDefaultMemoryRequestMilli;
  c.cpu = cpu != pod.requests.end() ? cpu->second : 0;
  c.memory = mem != pod.requests.end() ? mem->second : 0;
  c.needs_affinity = !pod.node_selector.empty() || pod.required_node_affinity.has_value();
  return c;
}

bool PassesNonResource(const PodSpecView& pod, const CompiledPod& c, const NodeEntry& n) {
  if (n.hot_unschedulable && !PassesNodeUnschedulable(pod, n.view)) return false;
  if (!pod.node_name.empty() && pod.node_name != n.view.name) return false;
  if (n.hot_has_taints && FirstUntoleratedTaint(pod.tolerations, n.view.taints)) {
    return false;
  }
  if (c.needs_affinity && !PassesNodeAffinity(pod, n.view.name, n.view.labels)) return false;
  if (!pod.host_ports.empty() && n.host_ports.Conflicts(pod.host_ports)) return false;
  return true;
}

bool FitsFree(const CompiledPod& c, const NodeEntry& n, bool ignore_reservations) {
  for (const internal::Request& r : c.requests) {
    if (r.index < 0 || Unbounded(r) || r.amount > Available(n, r.index, ignore_reservations)) return false;
  }
  return true;
}

bool AnyUnbounded(const CompiledPod& c) { return std::any_of(c.requests.begin(), c.requests.end(), Unbounded); }

// RequestErrors: requests or limits that do not parse make the pod unschedulable, naming the
// fields, rather than counting as zero.
std::optional<FitError> RequestErrors(const PodSpecView& pod, int present_nodes) {
  if (pod.request_errors.empty()) return std::nullopt;
  FitError err;
  err.num_all_nodes = present_nodes;
  for (size_t i = 0; i < pod.request_errors.size(); ++i) {
    err.error += (i == 0 ? "" : "; ") + pod.request_errors[i];
  }
  return err;
}

// FitsWithReservation: Restricted resources only from the remainder, the rest from the
// remainder plus the node's free capacity (free already excludes this remainder). A negative
// free (an ignored pod or another scheduler took held capacity) shrinks what the remainder can
// still back, for Restricted resources too, so the node is never overcommitted.
bool FitsWithReservation(const CompiledPod& c, const NodeEntry& n, const ReservationEntry& r,
                         const Dense& rem) {
  for (const internal::Request& q : c.requests) {
    if (q.index < 0 || Unbounded(q)) return false;
    const __int128 from_res = At(rem, q.index);
    if (IsRestricted(r, q.index)) {
      if (q.amount > from_res + std::min<int64_t>(0, FreeAt(n, q.index))) return false;
    } else if (q.amount > from_res + FreeAt(n, q.index)) {
      return false;
    }
  }
  return true;
}

// ReservationScore: how allocated the reservation ends up (MostAllocated over cpu and memory
// it reserves).
int64_t ReservationScore(const CompiledPod& c, const ReservationEntry& r, const Dense& rem) {
  int64_t total = 0;
  int count = 0;
  for (int k : {internal::kCpu, internal::kMemory}) {
    int64_t cap = At(r.allocatable, k);
    if (cap <= 0) continue;
    int64_t want = 0;
    for (const auto& q : c.requests) {
      if (q.index == k) want = q.amount;
    }
    int64_t left = At(rem, k);
    total += MostRequestedScore(cap - left + std::min(want, left), cap);
    ++count;
  }
  return count == 0 ? 0 : total / count;
}

bool UsesRemainder(const CompiledPod& c, const Dense& rem) {
  for (const auto& q : c.requests) {
    if (q.index >= 0 && q.index != internal::kPods && At(rem, q.index) > 0) return true;
  }
  return false;
}

int64_t FitScore(ScoringStrategy strategy, const CompiledPod& c, const NodeEntry& n) {
  // The hot copies: held clamped to the int64 bound changes nothing, the sum is clamped anyway.
  return NodeScore(strategy, internal::ClampAmount(n.nonzero_cpu + n.hot_held_cpu + c.nonzero_cpu),
                   n.hot_allocatable_cpu,
                   internal::ClampAmount(n.nonzero_memory + n.hot_held_memory + c.nonzero_memory),
                   n.hot_allocatable_memory);
}

int64_t Score(ScoringStrategy strategy, const CompiledPod& c, const NodeEntry& n) {
  // The hot copies again: requested and held are clamped, the sums are clamped once more.
  const int64_t balanced = BalancedAllocationScore(
      internal::ClampAmount(static_cast<__int128>(n.hot_requested_cpu) + n.hot_held_cpu + c.cpu),
      n.hot_allocatable_cpu,
      internal::ClampAmount(static_cast<__int128>(n.hot_requested_memory) + n.hot_held_memory + c.memory),
      n.hot_allocatable_memory);
  return FitScore(strategy, c, n) * kWeightNodeResourcesFit + balanced * kWeightBalancedAllocation;
}

PolicyGate::Verdict PolicyGate::Check(int node, int64_t* score) const {
  *score = 0;
  if (policy == nullptr) return Verdict::kPass;
  static const std::vector<int> kNone;
  const std::vector<int>& row =
      node < static_cast<int>(policy->node_units.size()) ? policy->node_units[node] : kNone;
  if (row.empty()) {
    if (policy->view.required) return Verdict::kNoUnit;
    *score = PriorityScore(std::nullopt);
    return Verdict::kPass;
  }
  int32_t priority = 0;
  for (int u : row) {
    const ResourcePolicyUnit& unit = policy->view.units[u];
    const int32_t count = u < static_cast<int>(counts.size()) ? counts[u] : 0;
    if (unit.max_count && count >= *unit.max_count) return Verdict::kMaxCount;
    priority = std::max(priority, unit.priority);
  }
  *score = PriorityScore(priority);
  return Verdict::kPass;
}

void NodeReasons(const NodeEntry& n, int i, const PodSpecView& pod, const CompiledPod& c, bool check_resources,
                 bool blocked, bool affinity_unmatched, const PolicyGate* gate, FitError& err,
                 const ConstraintFilters* constraints) {
  std::vector<std::string> reasons = NonResourceFilterReasons(pod, n.view);
  if (!reasons.empty()) {
    for (auto& reason : reasons) err.reasons[std::move(reason)]++;
  } else if (!pod.host_ports.empty() &&
             (n.host_ports.Conflicts(pod.host_ports) || n.reserved_ports.Conflicts(pod.host_ports))) {
    err.reasons[std::string(kReasonNodePorts)]++;  // NodePorts runs before NodeResourcesFit
  } else if (affinity_unmatched) {
    err.reasons[std::string(kReasonReservationAffinity)]++;
  } else if (blocked) {
    err.reasons[std::string(kReasonReservationInsufficient)]++;
  } else if (check_resources && !FitsFree(c, n, pod.reservation_ignored)) {
    AddResourceReasons(c, n, pod.reservation_ignored, err);
  } else if (std::string_view reason = constraints != nullptr ? constraints->Check(i) : std::string_view();
             !reason.empty()) {
    err.reasons[std::string(reason)]++;
  } else if (gate != nullptr) {
    // ResourcePolicy runs after the default filters, as an out-of-tree plugin would.
    int64_t score = 0;
    switch (gate->Check(i, &score)) {
      case PolicyGate::Verdict::kNoUnit: err.reasons[std::string(kReasonResourcePolicyUnits)]++; break;
      case PolicyGate::Verdict::kMaxCount: err.reasons[std::string(kReasonResourcePolicyMaxCount)]++; break;
      case PolicyGate::Verdict::kPass: break;
    }
  }
}

FitError CollectReasons(const std::vector<NodeEntry>& nodes, int present, const PodSpecView& pod,
                        const CompiledPod& c, bool check_resources, const std::vector<int>& blocked,
                        const std::vector<int>* required, const PolicyGate* gate,
                        const ConstraintFilters* constraints) {
  FitError err;
  err.num_all_nodes = present;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].present) continue;
    const int index = static_cast<int>(i);
    const bool unmatched = required && !std::binary_search(required->begin(), required->end(), index);
    NodeReasons(nodes[i], index, pod, c, check_resources, std::binary_search(blocked.begin(), blocked.end(), index),
                unmatched, gate, err, constraints);
  }
  return err;
}

PodConstraints::PodConstraints(const ClusterSnapshot::State& s, const PodSpecView& pod,
                               const std::vector<Candidate>* candidates)
    : excluded([candidates] {
        std::unordered_set<std::string_view> uids;
        if (candidates != nullptr) {
          for (const Candidate& cand : *candidates) uids.insert(cand.reservation->view.uid);
        }
        return uids;
      }()),
      ctx{s.nodes, s.affinity_index, s.namespaces, pod, s.topology, candidates != nullptr ? &excluded : nullptr},
      filters{TopologySpreadFilter::Build(ctx), InterPodAffinityFilter::Build(ctx)},
      scorer(s.nodes, s.prefer_no_schedule_nodes > 0, pod, ctx) {}

// RenameReason moves the count of reason `from` to `to` (a reservation's own wording).
void RenameReason(FitError& err, std::string_view from, std::string_view to) {
  auto it = err.reasons.find(std::string(from));
  if (it == err.reasons.end()) return;
  int count = it->second;
  err.reasons.erase(it);
  err.reasons[std::string(to)] += count;
}

}  // namespace berth::reconcile::placement::internal
