// reconcile/placement/schedule_scoring.cc — see schedule_scoring.h.
#include "reconcile/placement/schedule_scoring.h"

#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/scoring.h"

namespace berth::reconcile::placement::internal {

bool Better(const Pick& a, const Pick& b, const std::vector<NodeEntry>& nodes) {
  if (b.node < 0) return true;
  if (a.tier != b.tier) return a.tier > b.tier;
  if (a.avoided != b.avoided) return !a.avoided;
  if (OrderKey(a.order) != OrderKey(b.order)) return OrderKey(a.order) < OrderKey(b.order);
  if (a.reservation_score != b.reservation_score) {
    return a.reservation_score > b.reservation_score;
  }
  // A higher-priority unit wins over any resource score while it has room (its nodes pass).
  if (a.policy_score != b.policy_score) return a.policy_score > b.policy_score;
  if (a.score != b.score) return a.score > b.score;
  return nodes[a.node].view.name < nodes[b.node].view.name;
}

Scorer::Scorer(const std::vector<NodeEntry>& nodes, bool any_prefer_no_schedule, const PodSpecView& pod,
               const ConstraintContext& ctx)
    : nodes_(nodes), pod_(pod), ctx_(ctx) {
  node_affinity_ = !pod.preferred_node_affinity.empty();
  taints_ = any_prefer_no_schedule;
  // Required anti-affinity only filters: scoring looks at preferred terms (the pod's or existing
  // pods') and existing pods' required affinity.
  inter_pod_ = (pod.pod_affinity != nullptr &&
                (!pod.pod_affinity->preferred_affinity.empty() || !pod.pod_affinity->preferred_anti_affinity.empty())) ||
               ctx.index.HasScoringTerms();
  for (const TopologySpreadConstraint& c : pod.topology_spread) {
    if (!c.do_not_schedule) spread_.push_back(c);
  }
  if (pod.topology_spread.empty() && pod.default_spread_selector != nullptr) {
    spread_ = SystemDefaultSpreadConstraints(*pod.default_spread_selector);
    spread_require_all_ = false;
  }
}

int64_t Scorer::MaxScore() const {
  int64_t weights = kWeightNodeResourcesFit + kWeightBalancedAllocation;
  if (!pod_.container_images.empty()) weights += kWeightImageLocality;
  if (node_affinity_) weights += kWeightNodeAffinity;
  if (taints_) weights += kWeightTaintToleration;
  if (inter_pod_) weights += kWeightInterPodAffinity;
  if (!spread_.empty()) weights += kWeightPodTopologySpread;
  return kMaxNodeScore * weights;
}

Pick Scorer::Finish(std::vector<Pick>& picks) const {
  AddNormalized(picks);
  Pick best;
  for (const Pick& p : picks) {
    if (Better(p, best, nodes_)) best = p;
  }
  return best;
}

void Scorer::AddNormalized(std::vector<Pick>& picks) const {
  std::vector<int> feasible;
  feasible.reserve(picks.size());
  for (const Pick& p : picks) feasible.push_back(p.node);
  auto add = [&](const std::vector<int64_t>& scores, int64_t weight) {
    for (size_t k = 0; k < scores.size(); ++k) picks[k].score += scores[k] * weight;
  };
  if (node_affinity_ || taints_) {
    std::vector<int64_t> affinity(picks.size()), taints(picks.size());
    for (size_t k = 0; k < picks.size(); ++k) {
      const NodeView& v = nodes_[picks[k].node].view;
      if (node_affinity_) affinity[k] = NodeAffinityRawScore(pod_.preferred_node_affinity, v.name, v.labels);
      if (taints_) taints[k] = IntolerablePreferNoScheduleTaints(pod_.tolerations, v.taints);
    }
    if (node_affinity_) {
      DefaultNormalizeScore(affinity, /*reverse=*/false);
      add(affinity, kWeightNodeAffinity);
    }
    if (taints_) {
      DefaultNormalizeScore(taints, /*reverse=*/true);
      add(taints, kWeightTaintToleration);
    }
  }
  if (inter_pod_) add(InterPodAffinityScores(ctx_, feasible), kWeightInterPodAffinity);
  if (!spread_.empty()) {
    add(TopologySpreadScores(ctx_, feasible, spread_, spread_require_all_), kWeightPodTopologySpread);
  }
}

}  // namespace berth::reconcile::placement::internal
