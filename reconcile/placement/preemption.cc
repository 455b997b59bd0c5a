// reconcile/placement/preemption.cc
#include "reconcile/placement/preemption.h"

#include <algorithm>
#include <limits>

#include "reconcile/placement/filters.h"

namespace berth::reconcile::placement {
namespace {

Time StartOrNow(const VictimPod& pod, Time now) { return pod.priority.start_time.value_or(now); }

// EarliestStartOfHighest is GetEarliestPodStartTime: the earliest start among the victims of the
// highest priority.
Time EarliestStartOfHighest(const std::vector<VictimPod>& victims, Time now) {
  int32_t highest = victims.front().priority.value;
  Time earliest = StartOrNow(victims.front(), now);
  for (const VictimPod& pod : victims) {
    if (pod.priority.value == highest) {
      earliest = std::min(earliest, StartOrNow(pod, now));
    } else if (pod.priority.value > highest) {
      highest = pod.priority.value;
      earliest = StartOrNow(pod, now);
    }
  }
  return earliest;
}

bool Selects(const PdbView& pdb, const VictimPod& pod) {
  if (pdb.namespace_name != pod.namespace_name) return false;
  // An empty selector selects nothing for preemption (upstream: selector.Empty() is skipped).
  if (pdb.selector.IsNothing() || pdb.selector.Empty()) return false;
  return pdb.selector.Matches(pod.labels);
}

}  // namespace

bool MoreImportantPod(const VictimPod& a, const VictimPod& b, Time now) {
  if (a.priority.value != b.priority.value) return a.priority.value > b.priority.value;
  return StartOrNow(a, now) < StartOrNow(b, now);
}

void SplitByPdbViolation(const std::vector<VictimPod>& pods, const std::vector<PdbView>& pdbs,
                         std::vector<VictimPod>& violating, std::vector<VictimPod>& non_violating) {
  std::vector<int64_t> allowed;
  allowed.reserve(pdbs.size());
  for (const PdbView& pdb : pdbs) allowed.push_back(pdb.disruptions_allowed);
  for (const VictimPod& pod : pods) {
    bool violates = false;
    if (!pod.labels.empty()) {  // upstream: a pod without labels matches no PDB
      for (size_t i = 0; i < pdbs.size(); ++i) {
        if (!Selects(pdbs[i], pod)) continue;
        const auto& disrupted = pdbs[i].disrupted_pods;
        // Already counted by the disruption controller as being evicted: no budget taken again.
        if (std::find(disrupted.begin(), disrupted.end(), pod.name) != disrupted.end()) continue;
        if (--allowed[i] < 0) violates = true;
      }
    }
    (violates ? violating : non_violating).push_back(pod);
  }
}

std::expected<NodeVictims, std::vector<std::string>> SelectVictimsOnNode(int32_t preemptor_priority,
                                                                        std::string_view node_name,
                                                                        const std::vector<VictimPod>& pods,
                                                                        const std::vector<PdbView>& pdbs,
                                                                        NodeFitOracle& oracle, Time now) {
  std::vector<VictimPod> potential;
  for (const VictimPod& pod : pods) {
    if (pod.priority.value < preemptor_priority) potential.push_back(pod);
  }
  if (potential.empty()) return std::unexpected(std::vector<std::string>{std::string(kReasonNoPreemptionVictims)});
  for (const VictimPod& pod : potential) oracle.RemovePod(pod);
  std::vector<std::string> reasons = oracle.Fits();
  if (!reasons.empty()) {
    for (const VictimPod& pod : potential) oracle.AddPod(pod);
    return std::unexpected(std::move(reasons));
  }
  // Stable: equally important pods keep the caller's order, so the outcome is deterministic.
  std::stable_sort(potential.begin(), potential.end(),
                   [now](const VictimPod& a, const VictimPod& b) { return MoreImportantPod(a, b, now); });
  std::vector<VictimPod> violating, non_violating;
  SplitByPdbViolation(potential, pdbs, violating, non_violating);
  NodeVictims out;
  out.node_name = std::string(node_name);
  // Reprieve: add the pod back; if the preemptor no longer fits, it stays a victim.
  auto reprieve = [&](const VictimPod& pod) {
    oracle.AddPod(pod);
    if (oracle.Fits().empty()) return true;
    oracle.RemovePod(pod);
    out.victims.push_back(pod);
    return false;
  };
  for (const VictimPod& pod : violating) {
    if (!reprieve(pod)) out.pdb_violations++;
  }
  for (const VictimPod& pod : non_violating) reprieve(pod);
  // Leave the node as found: the victims go back too.
  for (const VictimPod& pod : out.victims) oracle.AddPod(pod);
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(out.victims.begin(), out.victims.end(),
                     [now](const VictimPod& a, const VictimPod& b) { return MoreImportantPod(a, b, now); });
  }
  return out;
}

std::optional<size_t> PickNodeForPreemption(const std::vector<NodeVictims>& candidates, Time now) {
  if (candidates.empty()) return std::nullopt;
  std::vector<size_t> remaining;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].victims.empty()) remaining.push_back(i);
  }
  if (remaining.empty()) return 0;
  // Each score: higher is better; a step keeps only the candidates with the best score.
  using Score = std::function<__int128(const NodeVictims&)>;
  const Score scores[] = {
      [](const NodeVictims& v) { return -__int128{v.pdb_violations}; },
      [](const NodeVictims& v) { return -__int128{v.victims.front().priority.value}; },
      [](const NodeVictims& v) {
        __int128 sum = 0;
        for (const VictimPod& pod : v.victims) {
          sum += __int128{pod.priority.value} + __int128{std::numeric_limits<int32_t>::max()} + 1;
        }
        return -sum;
      },
      [](const NodeVictims& v) { return -__int128(v.victims.size()); },
      [now](const NodeVictims& v) {
        return __int128{EarliestStartOfHighest(v.victims, now).time_since_epoch().count()};
      },
  };
  for (const Score& score : scores) {
    if (remaining.size() == 1) break;
    __int128 best = 0;
    std::vector<size_t> kept;
    for (size_t i : remaining) {
      __int128 s = score(candidates[i]);
      if (kept.empty() || s > best) {
        best = s;
        kept.clear();
      }
      if (s == best) kept.push_back(i);
    }
    remaining = std::move(kept);
  }
  return remaining.front();
}

int NumCandidates(int potential_nodes) {
  int n = potential_nodes * kMinCandidateNodesPercentage / 100;
  n = std::max(n, kMinCandidateNodesAbsolute);
  return std::min(n, potential_nodes);
}

std::optional<std::string> IneligibleToPreempt(const PodPriority& preemptor,
                                               const std::vector<VictimPod>* nominated_node_pods) {
  if (preemptor.preempt_never) return std::string(kPreemptNeverMessage);
  if (preemptor.nominated_node_name.empty() || nominated_node_pods == nullptr) return std::nullopt;
  for (const VictimPod& pod : *nominated_node_pods) {
    if (pod.priority.value < preemptor.value && pod.priority.terminating_by_preemption) {
      return std::string(kTerminatingVictimMessage);
    }
  }
  return std::nullopt;
}

PreemptionOutcome Preempt(const PodPriority& preemptor, const std::vector<PreemptionNode>& nodes,
                          const std::vector<PdbView>& pdbs, const std::vector<VictimPod>* nominated_node_pods,
                          int num_all_nodes, const OracleFor& oracle_for, Time now) {
  PreemptionOutcome out;
  if (auto why = IneligibleToPreempt(preemptor, nominated_node_pods)) {
    out.message = "preemption: " + *why;
    return out;
  }
  int potential = 0;
  for (const PreemptionNode& node : nodes) potential += node.resolvable ? 1 : 0;
  const int wanted = NumCandidates(potential);
  std::vector<NodeVictims> non_violating, violating;
  FitError diagnosis;
  diagnosis.num_all_nodes = num_all_nodes;
  int evaluated = 0;
  for (const PreemptionNode& node : nodes) {
    if (!node.resolvable) continue;
    if (!non_violating.empty() && static_cast<int>(non_violating.size() + violating.size()) >= wanted) break;
    ++evaluated;
    auto victims = SelectVictimsOnNode(preemptor.value, node.name, node.pods, pdbs, oracle_for(node.name), now);
    if (!victims) {
      for (std::string& reason : victims.error()) diagnosis.reasons[std::move(reason)]++;
      continue;
    }
    if (victims->victims.empty()) {
      // The pod fits without preemption (upstream treats this as an error status of the node).
      diagnosis.reasons["expected at least one victim pod on node " + node.name]++;
      continue;
    }
    (victims->pdb_violations == 0 ? non_violating : violating).push_back(std::move(*victims));
  }
  std::vector<NodeVictims> candidates = std::move(non_violating);
  for (NodeVictims& v : violating) candidates.push_back(std::move(v));
  if (auto picked = PickNodeForPreemption(candidates, now)) {
    out.chosen = std::move(candidates[*picked]);
    return out;
  }
  // Nodes not evaluated (unresolvable ones) are "not helpful".
  const int not_helpful = num_all_nodes - evaluated;
  if (not_helpful > 0) diagnosis.reasons[std::string(kReasonPreemptionNotHelpful)] += not_helpful;
  out.message = "preemption: " + diagnosis.Message();
  out.clear_nomination = true;
  return out;
}

std::string WithPostFilterMessage(std::string fit_message, std::string_view post_filter_message) {
  if (post_filter_message.empty()) return fit_message;
  fit_message += ' ';
  fit_message += post_filter_message;
  return fit_message;
}

}  // namespace berth::reconcile::placement
