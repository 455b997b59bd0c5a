// reconcile/placement/schedule.cc
//
// ClusterSnapshot's decisions: one pass over the nodes doing only integer work for the common
// case (no taints, no affinity), and a second pass that collects the per-node reasons only when
// nothing fits. The pod-level part (PreparePod) and the per-node step (VisitNode) are shared with
// EvaluateOnNodes (evaluate_nodes.cc).
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "reconcile/placement/exact_match.h"
#include "reconcile/placement/owners.h"
#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/prefer_avoid_pods.h"
#include "reconcile/placement/schedule_scoring.h"
#include "reconcile/placement/reservation_affinity.h"
#include "reconcile/placement/schedule_internal.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {
namespace internal {

std::expected<PodQuery, FitError> PreparePod(const ClusterSnapshot::State& s, const PodSpecView& pod) {
  if (auto err = RequestErrors(pod, s.present_nodes)) return std::unexpected(std::move(*err));
  PodQuery q;
  q.compiled = Compile(s.resources, pod, /*count_pods=*/true);
  if (!pod.reservation_affinity_error.empty()) {
    FitError err;
    err.num_all_nodes = s.present_nodes;
    err.error = "invalid annotation " + std::string(kAnnotationReservationAffinity) + ": " +
                pod.reservation_affinity_error;
    return std::unexpected(std::move(err));
  }
  if (!pod.exact_match_error.empty()) {
    FitError err;
    err.num_all_nodes = s.present_nodes;
    err.error = "invalid annotation " + std::string(kAnnotationExactMatchReservation) + ": " + pod.exact_match_error;
    return std::unexpected(std::move(err));
  }
  q.required = pod.reservation_affinity != nullptr && !pod.reservation_ignored;

  // ResourcePolicy PreFilter: at most one policy of the namespace may select the pod.
  if (const std::vector<const PolicyEntry*> selecting = s.SelectingPolicies(pod); !selecting.empty()) {
    if (selecting.size() > 1) {
      std::vector<std::string> matched;
      for (const PolicyEntry* policy : selecting) matched.push_back(policy->view.name);
      FitError err;
      err.num_all_nodes = s.present_nodes;
      err.pre_filter_message = ConflictMessage(matched);
      return std::unexpected(std::move(err));
    }
    q.gate.policy = selecting.front();
    const ResourcePolicyView& view = q.gate.policy->view;
    if (HasEveryMatchLabelKey(view, pod.labels)) {
      auto counts = q.gate.policy->counts.find(GroupKey(view, pod.labels));
      if (counts != q.gate.policy->counts.end()) q.gate.counts = counts->second;
    } else {
      // PodTopologySpread leaves a key the pod lacks out of its selector: every group that
      // agrees on the keys the pod has counts (rare: pods of one workload share their keys).
      for (const auto& [group, counts] : q.gate.policy->counts) {
        if (!GroupAgreesWithPod(view, pod.labels, group)) continue;
        if (q.gate.counts.size() < counts.size()) q.gate.counts.resize(counts.size(), 0);
        for (size_t u = 0; u < counts.size(); ++u) q.gate.counts[u] += counts[u];
      }
    }
  }

  // Reservations this pod may allocate, found through the owner index, grouped by node.
  // A pod pinned by spec.nodeName can only use reservations on that node: skip the others
  // before computing their remainders.
  const int pinned = pod.node_name.empty() ? -1 : s.NodeForConst(pod.node_name);
  if (!pod.reservation_ignored && !s.reservations.empty()) {
    const uint64_t stamp = ++s.stamp;
    auto consider = [&](std::string_view key) {
      auto it = s.owner_index.find(key);
      if (it == s.owner_index.end()) return;
      for (const ReservationEntry* r : it->second) {
        if (r->stamp == stamp) continue;
        r->stamp = stamp;
        if (r->node < 0 || !s.nodes[r->node].present) continue;
        if (!pod.node_name.empty() && r->node != pinned) continue;
        if (q.required) q.indexed.push_back(r);
        if (!CanAllocate(pod, r->view, s.HasOwner(*r), s.nodes[r->node].view.labels)) continue;
        q.candidates.push_back({r->node, r, s.Remainder(*r), ReservationOrder(r->view.labels)});
      }
    };
    std::string& key = s.key_buffer;
    auto lookup = [&](std::string_view prefix, std::string_view a, std::string_view sep = {},
                      std::string_view b = {}) {
      key.assign(prefix).append(a).append(sep).append(b);
      consider(key);
    };
    lookup("ou:", pod.uid);
    lookup("on:", pod.namespace_name, "/", pod.name);
    lookup("on:", "", "/", pod.name);
    for (const PodOwnerReference& ref : pod.owner_references) {
      lookup("cu:", ref.uid);
      lookup("cn:", ref.name);
    }
    for (const auto& [k, v] : pod.labels) lookup("l:", k, "=", v);
    if (!pod.consumes_provisioning_request.empty()) lookup("pr:", pod.consumes_provisioning_request);
    consider("*");
    std::sort(q.candidates.begin(), q.candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
  }
  return q;
}

NodeVisit VisitNode(const ClusterSnapshot::State& s, const PodSpecView& pod, const PodQuery& q,
                    const ConstraintFilters& filters, int i, size_t& next) {
  const auto& candidates = q.candidates;
  const CompiledPod& c = q.compiled;
  const NodeEntry& n = s.nodes[i];
  NodeVisit out;
  while (next < candidates.size() && candidates[next].node < i) ++next;
  if (!n.present || !PassesNonResource(pod, c, n)) return out;
  // NodePorts against reservations: ports a reservation's template holds are free only to the
  // pods that may allocate it (its candidates on this node).
  if (!pod.host_ports.empty() && !n.reserved_ports.empty()) {
    HostPortUsage others = n.reserved_ports;
    for (size_t j = next; j < candidates.size() && candidates[j].node == i; ++j) {
      others.Add(candidates[j].reservation->held_ports, -1);
    }
    if (others.Conflicts(pod.host_ports)) return out;
  }
  Pick pick;
  pick.node = i;
  pick.avoided = AvoidsPod(n.view, pod, s.now);
  if (q.gate.Check(i, &pick.policy_score) != PolicyGate::Verdict::kPass) return out;
  // koordinator: once the pod matches reservations on a node it must fit through one of
  // them; it is nominated only when it actually takes something from it (or when its
  // reservation affinity requires one). The lowest non-zero reservation-order wins first.
  bool matched = false;
  bool fits_some = false;
  for (size_t j = next; j < candidates.size() && candidates[j].node == i; ++j) {
    const Candidate& cand = candidates[j];
    matched = true;
    if (!FitsWithReservation(c, n, *cand.reservation, cand.remainder)) continue;
    fits_some = true;
    if (!q.required && !UsesRemainder(c, cand.remainder)) continue;
    int64_t rs = ReservationScore(c, *cand.reservation, cand.remainder);
    bool better = pick.reservation == nullptr;
    if (!better && OrderKey(cand.order) != OrderKey(pick.order)) {
      better = OrderKey(cand.order) < OrderKey(pick.order);
    } else if (!better) {
      better = rs > pick.reservation_score ||
               (rs == pick.reservation_score && cand.reservation->view.name < pick.reservation->view.name);
    }
    if (better) {
      pick.reservation = cand.reservation;
      pick.reservation_score = rs;
      pick.order = cand.order;
      pick.tier = 1;
    }
  }
  if (matched && !fits_some) {
    out.kind = NodeVisit::Kind::kBlocked;
    return out;
  }
  if (q.required && !matched) return out;
  if (!matched && !FitsFree(c, n, pod.reservation_ignored)) return out;
  if (!filters.Check(i).empty()) return out;
  out.fit_score = FitScore(s.options.scoring, c, n);
  pick.score = Score(s.options.scoring, c, n);
  if (!pod.container_images.empty() && !n.view.image_sizes.empty()) {
    pick.score += kWeightImageLocality * ImageLocalityScore(
                                             pod.container_images, n.view,
                                             [&s](std::string_view image) {
                                               auto it = s.image_nodes.find(image);
                                               return it == s.image_nodes.end() ? 0 : it->second;
                                             },
                                             s.present_nodes);
  }
  out.kind = NodeVisit::Kind::kPicked;
  out.pick = pick;
  return out;
}

void AddAffinityDiagnosis(const ClusterSnapshot::State& s, const PodSpecView& pod,
                          const std::vector<int>& candidate_nodes,
                          const std::vector<const ReservationEntry*>& indexed, FitError& err) {
  bool any = false;
  for (int i : candidate_nodes) {
    any = any || PassesNodeAffinity(pod, s.nodes[i].view.name, s.nodes[i].view.labels);
  }
  if (!any) err.pre_filter_message = std::string(kReasonReservationAffinity);
  AffinityDiagnosis diagnosis;
  for (const ReservationEntry* r : indexed) {
    const ReservationView& v = r->view;
    const NodeView& node = s.nodes[r->node].view;
    if (v.phase != Phase::kAvailable || v.node_name.empty()) continue;
    if (v.allocate_once && s.HasOwner(*r)) continue;
    if (!PassesNodeAffinity(pod, node.name, node.labels) || !MatchesReservationOwners(pod, v)) continue;
    std::string taint;
    diagnosis.Add(ClassifyForAffinity(pod.reservation_affinity.get(), pod.tolerations, v, node.labels, &taint),
                  taint);
  }
  err.post_filter_reasons = PostFilterReasons(diagnosis);
}

}  // namespace internal

using internal::At;
using internal::Dense;
using internal::NodeEntry;

PodDecision ClusterSnapshot::SchedulePod(const PodSpecView& pod) const {
  const State& s = *state_;
  auto query = internal::PreparePod(s, pod);
  if (!query) return std::unexpected(std::move(query.error()));
  const internal::PodQuery& q = *query;
  const internal::PolicyGate* gate_ptr = q.gate.policy != nullptr ? &q.gate : nullptr;
  const internal::PodConstraints constraints(s, pod, &q.candidates);
  const internal::Scorer& scorer = constraints.scorer;
  std::vector<internal::Pick> feasible;  // with scorer.collect(): every pick, normalised at the end

  internal::Pick best;
  std::vector<int> blocked;  // nodes where matched reservations all failed
  const int first = pod.node_name.empty() ? 0 : s.NodeForConst(pod.node_name);
  const int last = pod.node_name.empty() ? static_cast<int>(s.nodes.size()) - 1 : first;
  // visit evaluates node i; `next` indexes the first candidate on a node >= i (nodes are visited
  // in increasing order within one pass).
  auto visit = [&](int i, size_t& next) {
    internal::NodeVisit v = internal::VisitNode(s, pod, q, constraints.filters, i, next);
    if (v.kind == internal::NodeVisit::Kind::kBlocked) {
      blocked.push_back(i);
    } else if (v.kind != internal::NodeVisit::Kind::kPicked) {
      return;
    } else if (scorer.collect()) {
      feasible.push_back(v.pick);
    } else if (internal::Better(v.pick, best, s.nodes)) {
      best = v.pick;
    }
  };
  // Only candidate nodes can give a tier-1 pick (through a reservation), and tier 1 beats every
  // other node: visit them first, and scan all nodes only when none of them gives one. Same
  // outcome as the full scan, without scoring thousands of nodes for every owner pod.
  const auto& candidates = q.candidates;
  if (!candidates.empty() && first >= 0) {
    size_t next = 0;
    for (size_t k = 0; k < candidates.size(); ++k) {
      int node = candidates[k].node;
      if ((k > 0 && candidates[k - 1].node == node) || node < first || node > last) continue;
      visit(node, next);
    }
    if (scorer.collect()) best = scorer.Finish(feasible);
  }
  if (best.tier == 0 && !q.required) {
    best = internal::Pick{};
    blocked.clear();
    feasible.clear();
    size_t next = 0;
    for (int i = std::max(first, 0); first >= 0 && i <= last; ++i) visit(i, next);
    if (scorer.collect()) best = scorer.Finish(feasible);
  }
  if (best.node < 0) {
    if (!q.required) {
      return std::unexpected(
          internal::CollectReasons(s.nodes, s.present_nodes, pod, q.compiled, true, blocked,
                                                       nullptr, gate_ptr, &constraints.filters));
    }
    // addAffinityDiagnosis: for a pod with reservation affinity that fits nowhere, counted over
    // the Available reservations it owns on nodes its node affinity allows (only those the owner
    // index returned: any reservation owning the pod is filed under one of the pod's keys).
    std::vector<int> candidate_nodes;
    for (const internal::Candidate& cand : candidates) {
      if (candidate_nodes.empty() || candidate_nodes.back() != cand.node) candidate_nodes.push_back(cand.node);
    }
    FitError err =
        internal::CollectReasons(s.nodes, s.present_nodes, pod, q.compiled, true, blocked, &candidate_nodes,
                                 gate_ptr, &constraints.filters);
    internal::AddAffinityDiagnosis(s, pod, candidate_nodes, q.indexed, err);
    return std::unexpected(std::move(err));
  }

  PodPlacement out;
  out.node_name = s.nodes[best.node].view.name;
  Dense rem;
  if (best.reservation != nullptr) {
    out.reservation = ReservationRef{best.reservation->view.name, best.reservation->view.uid};
    rem = s.Remainder(*best.reservation);
  }
  for (const auto& [name, amount] : pod.requests) {
    if (amount <= 0 || name == kResourcePods) continue;
    int64_t take = std::min(amount, At(rem, s.resources.Find(name)));
    if (take > 0) out.from_reservation[name] = take;
    if (amount - take > 0) out.from_node[name] = amount - take;
  }
  return out;
}

ReservationDecision ClusterSnapshot::PlaceReservation(const PodSpecView& template_pod,
                                                      bool pre_allocation) const {
  const State& s = *state_;
  if (auto err = internal::RequestErrors(template_pod, s.present_nodes)) return std::unexpected(std::move(*err));
  // A reservation takes no pod slot: its owners count as pods when they bind.
  internal::CompiledPod c = internal::Compile(s.resources, template_pod, /*count_pods=*/false);
  // Never placed, not even as Waiting for pre-allocated pods to leave: no node can hold it.
  if (internal::AnyUnbounded(c)) {
    FitError err = internal::CollectReasons(s.nodes, s.present_nodes, template_pod, c, true);
    internal::RenameReason(err, kReasonNodeName, kReasonReservationNodeName);
    return std::unexpected(std::move(err));
  }
  internal::Pick best;
  // The reservation is placed as its reserve pod: the template's pod affinity and spreading hold
  // against the pods and the other reservations.
  const internal::PodConstraints constraints(s, template_pod, nullptr);
  const internal::Scorer& scorer = constraints.scorer;
  std::vector<internal::Pick> feasible;
  const int first = template_pod.node_name.empty() ? 0 : s.NodeForConst(template_pod.node_name);
  const int last = template_pod.node_name.empty() ? static_cast<int>(s.nodes.size()) - 1 : first;
  for (int i = std::max(first, 0); first >= 0 && i <= last; ++i) {
    const NodeEntry& n = s.nodes[i];
    if (!n.present || !internal::PassesNonResource(template_pod, c, n)) continue;
    if (!template_pod.host_ports.empty() && n.reserved_ports.Conflicts(template_pod.host_ports)) continue;
    bool fits = internal::FitsFree(c, n);
    if (!fits && !pre_allocation) continue;
    if (!constraints.filters.Check(i).empty()) continue;
    internal::Pick pick;
    pick.node = i;
    pick.tier = fits ? 1 : 0;
    pick.avoided = AvoidsPod(n.view, template_pod, s.now);
    pick.score = internal::Score(s.options.scoring, c, n);
    if (scorer.collect()) {
      feasible.push_back(pick);
    } else if (internal::Better(pick, best, s.nodes)) {
      best = pick;
    }
  }
  if (scorer.collect()) best = scorer.Finish(feasible);
  if (best.node < 0) {
    FitError err = internal::CollectReasons(s.nodes, s.present_nodes, template_pod, c, !pre_allocation, {}, nullptr,
                                            nullptr, &constraints.filters);
    internal::RenameReason(err, kReasonNodeName, kReasonReservationNodeName);
    return std::unexpected(std::move(err));
  }
  ReservationPlacement out;
  out.node_name = s.nodes[best.node].view.name;
  for (const auto& [name, amount] : template_pod.requests) {
    if (amount > 0 && name != kResourcePods) out.allocatable[name] = amount;
  }
  out.phase = best.tier == 1 ? Phase::kAvailable : Phase::kWaiting;
  return out;
}

}  // namespace berth::reconcile::placement
