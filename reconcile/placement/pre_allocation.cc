// reconcile/placement/pre_allocation.cc
#include "reconcile/placement/pre_allocation.h"

#include <algorithm>
#include <limits>
#include <map>

#include "reconcile/placement/owners.h"

namespace berth::reconcile::placement {

PreAllocationMode ParsePreAllocationMode(std::string_view text) {
  return text == "Cluster" ? PreAllocationMode::kCluster : PreAllocationMode::kDefault;
}

std::optional<int64_t> ParsePreAllocatablePriority(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  // Accumulate as a negative number so that INT64_MIN parses too.
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    int digit = c - '0';
    if (value < (kMin + digit) / 10) return std::nullopt;
    value = value * 10 - digit;
  }
  if (negative) return value;
  if (value == kMin) return std::nullopt;
  return -value;
}

bool IsPreAllocatable(const PreAllocatablePod& pod, const std::vector<ReservationOwner>& owners,
                      const PreAllocationPolicy& policy, const PreAllocationOptions& options) {
  if (pod.pod.node_name.empty() || pod.terminal || pod.deleting || pod.pod.uid.empty()) return false;
  // A pod that consumes a reservation is already counted through it; pre-allocating it would
  // hand the same capacity to two reservations.
  if (!pod.pod.reservation_uid.empty()) return false;
  if (policy.mode == PreAllocationMode::kCluster) {
    if (!options.enable_cluster_mode) return false;
    auto it = pod.pod.labels.find(options.cluster_label_key);
    return it != pod.pod.labels.end() && it->second == "true";
  }
  return MatchesOwners(pod.pod, owners);
}

bool CandidateBefore(const PreAllocationCandidate& a, const PreAllocationCandidate& b) {
  if (a.priority.has_value() != b.priority.has_value()) return a.priority.has_value();
  if (a.priority && *a.priority != *b.priority) return *a.priority > *b.priority;
  if (a.pod->pod.namespace_name != b.pod->pod.namespace_name) {
    return a.pod->pod.namespace_name < b.pod->pod.namespace_name;
  }
  if (a.pod->pod.name != b.pod->pod.name) return a.pod->pod.name < b.pod->pod.name;
  return a.pod->pod.uid < b.pod->pod.uid;
}

std::vector<PreAllocationCandidate> SelectPreAllocatable(
    const std::vector<PreAllocatablePod>& pods, const std::vector<ReservationOwner>& owners,
    const PreAllocationPolicy& policy, const PreAllocationOptions& options,
    const std::set<std::string, std::less<>>& taken) {
  std::vector<PreAllocationCandidate> out;
  for (const PreAllocatablePod& pod : pods) {
    if (!IsPreAllocatable(pod, owners, policy, options)) continue;
    if (taken.contains(pod.pod.uid)) continue;
    PreAllocationCandidate c;
    c.pod = &pod;
    if (pod.priority) c.priority = ParsePreAllocatablePriority(*pod.priority);
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), CandidateBefore);
  return out;
}

bool Covers(const ResourceAmounts& have, const ResourceAmounts& requests) {
  for (const auto& [name, amount] : requests) {
    if (amount <= 0) continue;
    auto it = have.find(name);
    if (it == have.end() || it->second < amount) return false;
  }
  return true;
}

namespace {

bool HasPositive(const ResourceAmounts& requests) {
  return std::any_of(requests.begin(), requests.end(), [](const auto& e) { return e.second > 0; });
}

// AddsMissing: the pod requests some resource that `have` does not cover yet.
bool AddsMissing(const ResourceAmounts& pod, const ResourceAmounts& have,
                 const ResourceAmounts& requests) {
  for (const auto& [name, amount] : requests) {
    if (amount <= 0) continue;
    auto h = have.find(name);
    int64_t got = h == have.end() ? 0 : h->second;
    auto p = pod.find(name);
    if (got < amount && p != pod.end() && p->second > 0) return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<const PreAllocationCandidate*>> CoverOnNode(
    const std::vector<const PreAllocationCandidate*>& ordered, const ResourceAmounts& requests,
    bool enable_multiple) {
  if (!HasPositive(requests)) return std::nullopt;
  if (!enable_multiple) {
    for (const PreAllocationCandidate* c : ordered) {
      if (Covers(c->pod->pod.requests, requests)) return std::vector{c};
    }
    return std::nullopt;
  }
  std::vector<const PreAllocationCandidate*> chosen;
  ResourceAmounts have;
  for (const PreAllocationCandidate* c : ordered) {
    if (!AddsMissing(c->pod->pod.requests, have, requests)) continue;
    chosen.push_back(c);
    AddInto(have, c->pod->pod.requests);
    if (Covers(have, requests)) return chosen;
  }
  return std::nullopt;
}

std::optional<PreAllocationChoice> ChoosePreAllocation(
    const std::vector<PreAllocationCandidate>& ordered, const ResourceAmounts& requests,
    bool enable_multiple, const std::function<bool(std::string_view)>& node_ok) {
  // Group by node, keeping the order inside each group.
  std::map<std::string, std::vector<const PreAllocationCandidate*>, std::less<>> by_node;
  for (const PreAllocationCandidate& c : ordered) by_node[c.pod->pod.node_name].push_back(&c);

  std::optional<std::vector<const PreAllocationCandidate*>> best;
  std::string best_node;
  for (const auto& [node, group] : by_node) {  // node names ascending: ties keep the first
    auto chosen = CoverOnNode(group, requests, enable_multiple);
    if (!chosen || !node_ok(node)) continue;
    if (best) {
      const PreAllocationCandidate& a = *chosen->front();
      const PreAllocationCandidate& b = *best->front();
      bool better = false;
      if (a.priority.has_value() != b.priority.has_value()) {
        better = a.priority.has_value();
      } else if (a.priority && *a.priority != *b.priority) {
        better = *a.priority > *b.priority;
      } else {
        better = chosen->size() < best->size();
      }
      if (!better) continue;
    }
    best = std::move(chosen);
    best_node = node;
  }
  if (!best) return std::nullopt;
  PreAllocationChoice out;
  out.node_name = best_node;
  for (const PreAllocationCandidate* c : *best) {
    const PodSpecView& p = c->pod->pod;
    out.pods.push_back({p.namespace_name, p.name, p.uid});
    AddInto(out.pod_requests, p.requests);
  }
  return out;
}

WaitingDecision DecideWaiting(const std::vector<PreAllocatedPod>& recorded,
                              const std::function<bool(const PreAllocatedPod&)>& running,
                              bool node_has_room) {
  WaitingDecision d;
  for (const PreAllocatedPod& pod : recorded) {
    if (running(pod)) d.running.push_back(pod);
  }
  if (!d.running.empty()) {
    d.state = WaitingState::kPodsRunning;
  } else {
    d.state = node_has_room ? WaitingState::kAvailable : WaitingState::kNoRoom;
  }
  return d;
}

}  // namespace berth::reconcile::placement
