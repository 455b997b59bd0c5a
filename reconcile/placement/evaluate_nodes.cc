// reconcile/placement/evaluate_nodes.cc
//
// ClusterSnapshot::EvaluateOnNodes: one pod against a list of nodes, each answered as SchedulePod
// would with the pod pinned there (the kube-scheduler extender's filter and prioritize). The pod
// is prepared once (PreparePod) and each node runs the shared VisitNode; reasons are gathered
// only for the nodes that fail.
#include <algorithm>
#include <optional>

#include "reconcile/placement/schedule_internal.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

std::vector<ClusterSnapshot::NodeEvaluation> ClusterSnapshot::EvaluateOnNodes(
    const PodSpecView& pod_in, const std::vector<std::string_view>& nodes) const {
  const State& s = *state_;
  std::vector<NodeEvaluation> out(nodes.size());
  // Each node pins the pod by itself: the pod's own spec.nodeName plays no part.
  std::optional<PodSpecView> unpinned;
  if (!pod_in.node_name.empty()) {
    unpinned = pod_in;
    unpinned->node_name.clear();
  }
  const PodSpecView& pod = unpinned ? *unpinned : pod_in;

  auto query = internal::PreparePod(s, pod);
  if (!query) {
    // A pod-level error (an annotation or a quantity that does not parse, conflicting
    // ResourcePolicies) is every known node's answer.
    FitError error = std::move(query.error());
    error.num_all_nodes = 1;
    for (size_t k = 0; k < nodes.size(); ++k) {
      const int i = s.NodeForConst(nodes[k]);
      out[k].known = i >= 0 && s.nodes[i].present;
      if (out[k].known) out[k].error = error;
    }
    return out;
  }
  const internal::PodQuery& q = *query;
  const auto& candidates = q.candidates;
  const internal::PolicyGate* gate = q.gate.policy != nullptr ? &q.gate : nullptr;
  // PodTopologySpread / InterPodAffinity built once, as SchedulePod builds them for the unpinned
  // pod (all its candidate reservations excluded), so each node gets the scheduler's verdict.
  const internal::PodConstraints constraints(s, pod, &candidates);
  // For the affinity diagnosis of failing nodes: the indexed reservations by node, sorted once.
  std::optional<std::vector<const internal::ReservationEntry*>> indexed_by_node;
  auto by_node = [](const internal::ReservationEntry* a, const internal::ReservationEntry* b) {
    return a->node < b->node;
  };

  // The lookups are software-pipelined: the slot of the name kAhead * 2 positions on and the
  // node entry of the name kAhead positions on are prefetched, so the cache misses of several
  // names overlap instead of coming one after the other (thousands of nodes per request).
  constexpr size_t kAhead = 8;
  // The fitting nodes' picks, for the combined score (normalised over them, as SchedulePod
  // normalises over its feasible nodes).
  std::vector<internal::Pick> picks;
  std::vector<size_t> picked_at;
  std::vector<uint64_t> hashes(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) hashes[k] = internal::NodeNameIndex::Hash(nodes[k]);
  for (size_t k = 0; k < std::min(nodes.size(), 2 * kAhead); ++k) s.node_index.PrefetchSlot(hashes[k]);
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (k + 2 * kAhead < nodes.size()) s.node_index.PrefetchSlot(hashes[k + 2 * kAhead]);
    if (k + kAhead < nodes.size()) {
      if (const int ahead = s.node_index.Peek(hashes[k + kAhead]); ahead >= 0) {
        // The entry's first cache lines: the hot copies, the flags and the name.
        const char* entry = reinterpret_cast<const char*>(&s.nodes[ahead]);
        for (size_t line = 0; line < 192 && line < sizeof(internal::NodeEntry); line += 64) {
          __builtin_prefetch(entry + line);
        }
      }
    }
    NodeEvaluation& e = out[k];
    const int i = s.node_index.Find(nodes[k], hashes[k], s.nodes);
    if (i < 0 || !s.nodes[i].present) continue;
    e.known = true;
    size_t next = std::lower_bound(candidates.begin(), candidates.end(), i,
                                   [](const internal::Candidate& c, int node) { return c.node < node; }) -
                  candidates.begin();
    const internal::NodeVisit visit = internal::VisitNode(s, pod, q, constraints.filters, i, next);
    if (visit.kind == internal::NodeVisit::Kind::kPicked) {
      e.fits = true;
      e.score = visit.fit_score;
      picks.push_back(visit.pick);
      picked_at.push_back(k);
      if (const internal::ReservationEntry* r = visit.pick.reservation) {
        e.reservation = ReservationRef{r->view.name, r->view.uid};
      }
      continue;
    }
    // This node's reasons alone, as CollectReasons would give them for it.
    const bool has_candidates = next < candidates.size() && candidates[next].node == i;
    e.error.num_all_nodes = 1;
    internal::NodeReasons(s.nodes[i], i, pod, q.compiled, /*check_resources=*/true,
                          visit.kind == internal::NodeVisit::Kind::kBlocked, q.required && !has_candidates, gate,
                          e.error, &constraints.filters);
    if (q.required) {
      if (!indexed_by_node) {
        indexed_by_node = q.indexed;
        std::stable_sort(indexed_by_node->begin(), indexed_by_node->end(), by_node);
      }
      auto lo = std::lower_bound(indexed_by_node->begin(), indexed_by_node->end(), i,
                                 [](const internal::ReservationEntry* r, int node) { return r->node < node; });
      auto hi = std::upper_bound(lo, indexed_by_node->end(), i,
                                 [](int node, const internal::ReservationEntry* r) { return node < r->node; });
      std::vector<int> candidate_nodes;
      if (has_candidates) candidate_nodes.push_back(i);
      internal::AddAffinityDiagnosis(s, pod, candidate_nodes, std::vector<const internal::ReservationEntry*>(lo, hi),
                                     e.error);
    }
  }
  if (constraints.scorer.collect()) constraints.scorer.AddNormalized(picks);
  const int64_t max_score = constraints.scorer.MaxScore();
  for (size_t j = 0; j < picks.size(); ++j) {
    out[picked_at[j]].combined_score = picks[j].score;
    out[picked_at[j]].max_combined_score = max_score;
  }
  return out;
}

}  // namespace berth::reconcile::placement
