// reconcile/placement/schedule_scoring.h
//
// Internal to ClusterSnapshot's decisions (schedule.cc): how candidate nodes are compared (Pick,
// Better), the PodTopologySpread + InterPodAffinity filters of one decision, and the Scorer that
// adds kube-scheduler's normalised score plugins (plugin_scores.h, pod_constraints.h) with their
// default weights.
#pragma once

#include <climits>
#include <cstdint>
#include <string_view>
#include <vector>

#include "reconcile/placement/pod_constraints.h"

namespace berth::reconcile::placement::internal {

// OrderKey: the reservation-order label's preference (lower first; 0 means none, ranked last).
inline int64_t OrderKey(int64_t order) { return order == 0 ? INT64_MAX : order; }

struct Pick {
  int node = -1;
  int tier = 0;
  // PreferAvoidPods: the node asks pods of this one's controller to stay away. It outweighs
  // every score below (the seed: "takes precedence over all other priority criteria"); only a
  // reservation the pod is nominated into (tier) ranks above it.
  bool avoided = false;
  int64_t order = 0;  // reservation-order of the nominated reservation
  int64_t reservation_score = 0;
  int64_t policy_score = 0;  // ResourcePolicy: the node's unit priority × 20 (-1: no unit)
  int64_t score = 0;         // Σ plugin score × weight
  const ReservationEntry* reservation = nullptr;
};

// Better: tier (through a reservation), not avoided (PreferAvoidPods), reservation-order, the
// reservation's most-allocated score, the ResourcePolicy unit priority, then the node score; ties
// go to the smaller name.
bool Better(const Pick& a, const Pick& b, const std::vector<NodeEntry>& nodes);

// ConstraintFilters: PodTopologySpread and InterPodAffinity for one decision (they run after
// NodeResourcesFit in kube-scheduler's default order).
struct ConstraintFilters {
  TopologySpreadFilter spread;
  InterPodAffinityFilter affinity;
  // Check: "" when node index `node` passes both, else the first reason.
  std::string_view Check(int node) const {
    if (spread.active()) {
      if (std::string_view reason = spread.Check(node); !reason.empty()) return reason;
    }
    if (affinity.active()) return affinity.Check(node);
    return {};
  }
};

// Scorer: the score plugins that need every feasible node before a node's score is known
// (NodeAffinity, TaintToleration, InterPodAffinity, PodTopologySpread normalise over them). When
// none applies to a decision the nodes are compared as they are visited (Pick::score holds the
// unnormalised NodeResourcesFit + BalancedAllocation); otherwise the feasible picks are kept and
// Finish adds the weighted normalised scores, then returns the best.
// A pod without topologySpreadConstraints whose workload selector is known
// (PodSpecView::default_spread_selector) is scored with the system default constraints, which,
// as upstream, do not require every topology key on a node.
class Scorer {
 public:
  Scorer(const std::vector<NodeEntry>& nodes, bool any_prefer_no_schedule, const PodSpecView& pod,
         const ConstraintContext& ctx);
  bool collect() const { return node_affinity_ || taints_ || inter_pod_ || !spread_.empty(); }
  Pick Finish(std::vector<Pick>& picks) const;
  // AddNormalized adds the weighted normalised scores of the plugins in play to each pick's
  // score (Finish without the choice; the extender's prioritize reports these totals).
  void AddNormalized(std::vector<Pick>& picks) const;
  // MaxScore: the highest total a node can reach for this pod: kMaxNodeScore × the weights of
  // NodeResourcesFit, BalancedAllocation, ImageLocality (a pod with images) and every plugin in
  // play.
  int64_t MaxScore() const;

 private:
  const std::vector<NodeEntry>& nodes_;
  const PodSpecView& pod_;
  const ConstraintContext& ctx_;
  bool node_affinity_ = false;
  bool taints_ = false;
  bool inter_pod_ = false;
  std::vector<TopologySpreadConstraint> spread_;  // ScheduleAnyway, or the system defaults
  bool spread_require_all_ = true;                // false for the system defaults
};

}  // namespace berth::reconcile::placement::internal
