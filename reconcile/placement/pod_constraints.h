// reconcile/placement/pod_constraints.h
//
// kube-scheduler's InterPodAffinity and PodTopologySpread plugins over the snapshot's
// AffinityIndex: a PreFilter-like Build computes the per-topology-domain counts once per
// decision, then Check is the per-node Filter (a few map lookups). The Score halves take the
// nodes that passed the filters and return each one's normalised score (0..100).
// Reservations count as the pods their templates describe (koordinator's reserve pods), except
// the ones the pod being decided may allocate: koordinator takes those out of the node for it.
#pragma once

#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/affinity_index.h"
#include "reconcile/placement/snapshot_state.h"
#include "reconcile/placement/topology_index.h"

namespace berth::reconcile::placement {

// Failure reasons, worded exactly like the upstream plugins.
inline constexpr std::string_view kReasonPodAffinity = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kReasonPodAntiAffinity = "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view kReasonExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kReasonTopologySpread = "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kReasonTopologySpreadMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// The topology key of per-node spreading (upstream counts such domains per node).
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";

// SystemDefaultSpreadConstraints: PodTopologySpread's defaultingType System constraints, applied
// (to scoring only) to a pod without constraints of its own: maxSkew 3 over kubernetes.io/hostname
// and maxSkew 5 over topology.kubernetes.io/zone, both ScheduleAnyway, over `selector`.
std::vector<TopologySpreadConstraint> SystemDefaultSpreadConstraints(const shim::LabelSelector& selector);

// TermMatches is framework.AffinityTerm.Matches: the pod's namespace is listed, or its
// namespace's labels (`namespace_labels`, nullptr = none known) match the namespace selector;
// then the selector must match the pod's labels.
bool TermMatches(const PodAffinityTerm& term, std::string_view namespace_name, const LabelMap& labels,
                 const LabelMap* namespace_labels);

namespace internal {

using TopologyCounts = StringMap<StringMap<int64_t>>;

struct ConstraintContext {
  const std::vector<NodeEntry>& nodes;
  const AffinityIndex& index;
  const StringMap<LabelMap>& namespaces;
  const PodSpecView& pod;
  // Every present node's domain per label key (State::topology).
  const TopologyIndex& topology;
  // uids of reservations the pod may allocate: invisible to its affinity and spreading.
  const std::unordered_set<std::string_view>* excluded = nullptr;

  const LabelMap* NamespaceLabels(std::string_view ns) const;
  // Visible: a counted pod or reserve pod on a present node, not the pod itself, not excluded.
  bool Visible(const AffinityMember& m) const;
};

// DomainCounts: counts per domain of one topology key, dense by the key's domain ids
// (TopologyIndex), so that a node's count is two array reads. Sized on the first Add.
class DomainCounts {
 public:
  DomainCounts() = default;
  DomainCounts(std::string_view key_name, const TopologyIndex::Key* key) : name_(key_name), key_(key) {}
  std::string_view name() const { return name_; }
  const TopologyIndex::Key* key() const { return key_; }
  // Add adds `by` to the domain of node index `node`; false (nothing added) when the node lacks
  // the label.
  bool Add(int node, int64_t by);
  // AddDomain adds `by` to domain `id` (>= 0).
  void AddDomain(int32_t id, int64_t by);
  int64_t AtDomain(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < counts_.size() ? counts_[id] : 0;
  }
  // AtNode: the count of node index `node`'s domain (0 when it lacks the label).
  int64_t AtNode(int node) const { return key_ == nullptr ? 0 : AtDomain(key_->DomainOf(node)); }

 private:
  std::string_view name_;
  const TopologyIndex::Key* key_ = nullptr;  // nullptr: no node carries the label
  std::vector<int64_t> counts_;
};

class InterPodAffinityFilter {
 public:
  static InterPodAffinityFilter Build(const ConstraintContext& ctx);
  // active: the pod has required terms, or an existing pod's required anti-affinity matches it.
  bool active() const { return active_; }
  // Check: "" when node index `node` passes, else the reason (affinity, then anti-affinity, then
  // the existing pods' anti-affinity, as upstream's Filter).
  std::string_view Check(int node) const;

 private:
  bool active_ = false;
  bool self_match_ = false;     // the pod matches all its own required affinity terms
  bool any_affinity_ = false;   // some pod matches the required affinity terms somewhere
  // Per required affinity / anti-affinity term (in the pod's order), the counts of its key.
  std::vector<DomainCounts*> affinity_terms_;
  std::vector<DomainCounts*> anti_affinity_terms_;
  // One entry per topology key (terms sharing a key share counts, as upstream's topology pairs).
  std::vector<std::unique_ptr<DomainCounts>> affinity_;
  std::vector<std::unique_ptr<DomainCounts>> anti_affinity_;
  std::vector<std::unique_ptr<DomainCounts>> existing_anti_affinity_;  // only keys with a count
};

class TopologySpreadFilter {
 public:
  // Build over the pod's DoNotSchedule constraints.
  static TopologySpreadFilter Build(const ConstraintContext& ctx);
  bool active() const { return !constraints_.empty(); }
  std::string_view Check(int node) const;

 private:
  struct Constraint {
    const TopologySpreadConstraint* spec;
    DomainCounts counts;  // matching pods per eligible domain (0 elsewhere)
    int64_t min = 0;
    bool self_match = false;
  };
  std::vector<Constraint> constraints_;
};

// InterPodAffinityScores: InterPodAffinity's normalised score for each node of `feasible`
// (indexes into ctx.nodes); empty when no term applies (every node would score 0).
std::vector<int64_t> InterPodAffinityScores(const ConstraintContext& ctx, const std::vector<int>& feasible);

// TopologySpreadScores: PodTopologySpread's normalised score for each feasible node under
// `constraints` (the pod's ScheduleAnyway ones, or the cluster defaults); `require_all`: nodes
// lacking a constraint's topology key are ignored (score 0), as for a pod's own constraints.
// Empty when there are no constraints.
std::vector<int64_t> TopologySpreadScores(const ConstraintContext& ctx, const std::vector<int>& feasible,
                                          const std::vector<TopologySpreadConstraint>& constraints,
                                          bool require_all);

// CountsByDomain: for one constraint, the matching pods (pod's namespace, not terminating,
// selector) per domain value over `eligible` nodes (per node index; every eligible node's domain
// is present, possibly with 0).
StringMap<int64_t> CountsByDomain(const ConstraintContext& ctx, const TopologySpreadConstraint& c,
                                  const std::vector<char>& eligible);

}  // namespace internal
}  // namespace berth::reconcile::placement
