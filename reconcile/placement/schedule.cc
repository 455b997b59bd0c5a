// reconcile/placement/schedule.cc
//
// ClusterSnapshot's decisions: one pass over the nodes doing only integer work for the common
// case (no taints, no affinity), and a second pass that collects the per-node reasons only when
// nothing fits.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "reconcile/placement/owners.h"
#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/prefer_avoid_pods.h"
#include "reconcile/placement/schedule_scoring.h"
#include "reconcile/placement/reservation_affinity.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/exact_match.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

using internal::At;
using internal::Dense;
using internal::NodeEntry;
using internal::ReservationEntry;
using internal::Better;
using internal::ConstraintFilters;
using internal::OrderKey;
using internal::Pick;
using internal::Scorer;

namespace {

struct CompiledPod {
  std::vector<internal::Request> requests;  // non-zero, plus "pods" when counted
  int64_t nonzero_cpu = 0;
  int64_t nonzero_memory = 0;
  int64_t cpu = 0;     // the actual requests (NodeResourcesBalancedAllocation)
  int64_t memory = 0;
  bool needs_affinity = false;
};

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
  if (n.view.unschedulable && !PassesNodeUnschedulable(pod, n.view)) return false;
  if (!pod.node_name.empty() && pod.node_name != n.view.name) return false;
  if (!n.view.taints.empty() && FirstUntoleratedTaint(pod.tolerations, n.view.taints)) {
    return false;
  }
  if (c.needs_affinity && !PassesNodeAffinity(pod, n.view.name, n.view.labels)) return false;
  if (!pod.host_ports.empty() && n.host_ports.Conflicts(pod.host_ports)) return false;
  return true;
}

// Available: what a pod may take from the node outside reservations. A reservation-ignored pod
// also takes what reservations hold unallocated (koordinator: "the pod can allocate ... the
// reserved resources unallocated of all reservations on the node").
__int128 Available(const NodeEntry& n, int index, bool ignore_reservations) {
  return At(n.free, index) + (ignore_reservations ? At(n.held, index) : 0);
}

// Unbounded: a request at the int64 milli bound (cpu "1e30") fits no node, even one whose
// allocatable is just as unbounded.
bool Unbounded(const internal::Request& r) { return r.amount >= kUnboundedAmount; }

bool FitsFree(const CompiledPod& c, const NodeEntry& n, bool ignore_reservations = false) {
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

bool IsRestricted(const ReservationEntry& r, int index) {
  return index >= 0 && index < static_cast<int>(r.restricted.size()) && r.restricted[index];
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
      if (q.amount > from_res + std::min<int64_t>(0, At(n.free, q.index))) return false;
    } else if (q.amount > from_res + At(n.free, q.index)) {
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
  return NodeScore(strategy,
                   internal::ClampAmount(n.nonzero_cpu + At(n.held, internal::kCpu) + c.nonzero_cpu),
                   At(n.allocatable, internal::kCpu),
                   internal::ClampAmount(n.nonzero_memory + At(n.held, internal::kMemory) + c.nonzero_memory),
                   At(n.allocatable, internal::kMemory));
}

// Score: the plugins every node gets without normalisation: NodeResourcesFit and
// NodeResourcesBalancedAllocation (reservations' holds count as requested, like their reserve pods).
int64_t Score(ScoringStrategy strategy, const CompiledPod& c, const NodeEntry& n) {
  const int64_t balanced = BalancedAllocationScore(
      internal::ClampAmount(At(n.requested, internal::kCpu) + At(n.held, internal::kCpu) + c.cpu),
      At(n.allocatable, internal::kCpu),
      internal::ClampAmount(At(n.requested, internal::kMemory) + At(n.held, internal::kMemory) + c.memory),
      At(n.allocatable, internal::kMemory));
  return FitScore(strategy, c, n) * kWeightNodeResourcesFit + balanced * kWeightBalancedAllocation;
}


// PolicyGate: the pod's ResourcePolicy (its PreFilter result) and its group's counts.
struct PolicyGate {
  enum class Verdict { kPass, kNoUnit, kMaxCount };
  const internal::PolicyEntry* policy = nullptr;
  const std::vector<int32_t>* counts = nullptr;  // nullptr: the group has no pods yet

  // Check is the Filter for one node; on kPass, *score is its PriorityScore.
  Verdict Check(int node, int64_t* score) const {
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
      const int32_t count = counts != nullptr && u < static_cast<int>(counts->size()) ? (*counts)[u] : 0;
      if (unit.max_count && count >= *unit.max_count) return Verdict::kMaxCount;
      priority = std::max(priority, unit.priority);
    }
    *score = PriorityScore(priority);
    return Verdict::kPass;
  }
};


void AddResourceReasons(const CompiledPod& c, const NodeEntry& n, bool ignore_reservations,
                        FitError& err) {
  for (const internal::Request& r : c.requests) {
    if (r.index < 0 || Unbounded(r) || r.amount > Available(n, r.index, ignore_reservations)) {
      err.reasons[InsufficientReason(r.name)]++;
    }
  }
}

// CollectReasons: each node's reasons. `blocked` (sorted node indexes) are the nodes where the
// pod matched reservations but fit none of them; with `required` (sorted node indexes with a
// matching reservation, for a pod with reservation affinity) every other node fails on affinity.

FitError CollectReasons(const std::vector<NodeEntry>& nodes, int present, const PodSpecView& pod,
                        const CompiledPod& c, bool check_resources,
                        const std::vector<int>& blocked = {},
                        const std::vector<int>* required = nullptr,
                        const PolicyGate* gate = nullptr,
                        const ConstraintFilters* constraints = nullptr) {
  FitError err;
  err.num_all_nodes = present;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeEntry& n = nodes[i];
    if (!n.present) continue;
    std::vector<std::string> reasons = NonResourceFilterReasons(pod, n.view);
    if (!reasons.empty()) {
      for (auto& reason : reasons) err.reasons[std::move(reason)]++;
    } else if (!pod.host_ports.empty() &&
               (n.host_ports.Conflicts(pod.host_ports) || n.reserved_ports.Conflicts(pod.host_ports))) {
      err.reasons[std::string(kReasonNodePorts)]++;  // NodePorts runs before NodeResourcesFit
    } else if (required && !std::binary_search(required->begin(), required->end(), static_cast<int>(i))) {
      err.reasons[std::string(kReasonReservationAffinity)]++;
    } else if (std::binary_search(blocked.begin(), blocked.end(), static_cast<int>(i))) {
      err.reasons[std::string(kReasonReservationInsufficient)]++;
    } else if (check_resources && !FitsFree(c, n, pod.reservation_ignored)) {
      AddResourceReasons(c, n, pod.reservation_ignored, err);
    } else if (std::string_view reason = constraints != nullptr ? constraints->Check(n.view.labels) : std::string_view();
               !reason.empty()) {
      err.reasons[std::string(reason)]++;
    } else if (gate != nullptr) {
      // ResourcePolicy runs after the default filters, as an out-of-tree plugin would.
      int64_t score = 0;
      switch (gate->Check(static_cast<int>(i), &score)) {
        case PolicyGate::Verdict::kNoUnit: err.reasons[std::string(kReasonResourcePolicyUnits)]++; break;
        case PolicyGate::Verdict::kMaxCount: err.reasons[std::string(kReasonResourcePolicyMaxCount)]++; break;
        case PolicyGate::Verdict::kPass: break;
      }
    }
  }
  return err;
}

// RenameReason moves the count of reason `from` to `to` (a reservation's own wording).
void RenameReason(FitError& err, std::string_view from, std::string_view to) {
  auto it = err.reasons.find(std::string(from));
  if (it == err.reasons.end()) return;
  int count = it->second;
  err.reasons.erase(it);
  err.reasons[std::string(to)] += count;
}


}  // namespace

PodDecision ClusterSnapshot::SchedulePod(const PodSpecView& pod) const {
  const State& s = *state_;
  if (auto err = RequestErrors(pod, s.present_nodes)) return std::unexpected(std::move(*err));
  CompiledPod c = Compile(s.resources, pod, /*count_pods=*/true);
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
  // koordinator: a pod with reservation affinity must allocate a reservation the affinity selects.
  const bool required = pod.reservation_affinity != nullptr && !pod.reservation_ignored;

  // ResourcePolicy PreFilter: at most one policy of the namespace may select the pod.
  PolicyGate gate;
  if (auto ns = s.policies_by_namespace.find(pod.namespace_name); ns != s.policies_by_namespace.end()) {
    std::vector<std::string> matched;
    for (const internal::PolicyEntry* policy : ns->second) {
      if (!PolicySelectsPod(policy->view, pod.namespace_name, pod.labels)) continue;
      matched.push_back(policy->view.name);
      gate.policy = policy;
    }
    if (matched.size() > 1) {
      FitError err;
      err.num_all_nodes = s.present_nodes;
      err.pre_filter_message = ConflictMessage(matched);
      return std::unexpected(std::move(err));
    }
    if (gate.policy != nullptr) {
      auto counts = gate.policy->counts.find(GroupKey(gate.policy->view, pod.labels));
      if (counts != gate.policy->counts.end()) gate.counts = &counts->second;
    }
  }
  const PolicyGate* gate_ptr = gate.policy != nullptr ? &gate : nullptr;

  // Reservations this pod may allocate, found through the owner index, grouped by node.
  struct Candidate {
    int node;
    const ReservationEntry* reservation;
    Dense remainder;
    int64_t order;  // reservation-order label
  };
  std::vector<Candidate> candidates;
  // With `required`: every reservation the owner index returned, for the unschedulable
  // diagnosis (so that it never walks all reservations).
  std::vector<const ReservationEntry*> indexed;
  // A pod pinned by spec.nodeName (also the extender's per-node decisions) can only use
  // reservations on that node: skip the others before computing their remainders.
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
        if (required) indexed.push_back(r);
        if (!CanAllocate(pod, r->view, s.HasOwner(*r), s.nodes[r->node].view.labels)) continue;
        candidates.push_back({r->node, r, s.Remainder(*r), ReservationOrder(r->view.labels)});
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
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
  }
  // koordinator takes the reservations a pod may allocate out of its node for the pod's
  // filters, so their reserve pods never repel (or attract) their own owners.
  std::unordered_set<std::string_view> excluded;
  for (const Candidate& cand : candidates) excluded.insert(cand.reservation->view.uid);
  const internal::ConstraintContext ctx{s.nodes, s.affinity_index, s.namespaces, pod, &excluded, &s.domains};
  const ConstraintFilters filters{internal::TopologySpreadFilter::Build(ctx),
                                  internal::InterPodAffinityFilter::Build(ctx)};
  const Scorer scorer(s.nodes, s.prefer_no_schedule_nodes > 0, pod, ctx);
  std::vector<Pick> feasible;

  Pick best;
  std::vector<int> blocked;  // nodes where matched reservations all failed
  const int first = pod.node_name.empty() ? 0 : s.NodeForConst(pod.node_name);
  const int last = pod.node_name.empty() ? static_cast<int>(s.nodes.size()) - 1 : first;
  // NodePorts against reservations: ports a reservation's template holds are free only to the
  // pods that may allocate it (its candidates on this node).
  auto reserved_ports_free = [&](const NodeEntry& n, size_t next, int i) {
    if (pod.host_ports.empty() || n.reserved_ports.empty()) return true;
    HostPortUsage others = n.reserved_ports;
    for (size_t j = next; j < candidates.size() && candidates[j].node == i; ++j) {
      others.Add(candidates[j].reservation->held_ports, -1);
    }
    return !others.Conflicts(pod.host_ports);
  };
  // visit evaluates node i; `next` indexes the first candidate on a node >= i (nodes are visited
  // in increasing order within one pass).
  auto visit = [&](int i, size_t& next) {
    const NodeEntry& n = s.nodes[i];
    while (next < candidates.size() && candidates[next].node < i) ++next;
    if (!n.present || !PassesNonResource(pod, c, n)) return;
    if (!reserved_ports_free(n, next, i)) return;
    Pick pick;
    pick.node = i;
    pick.avoided = AvoidsPod(n.view, pod, s.now);
    if (gate.Check(i, &pick.policy_score) != PolicyGate::Verdict::kPass) return;
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
      if (!required && !UsesRemainder(c, cand.remainder)) continue;
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
      blocked.push_back(i);
      return;
    }
    if (required && !matched) return;
    if (!matched && !FitsFree(c, n, pod.reservation_ignored)) return;
    if (!filters.Check(n.view.labels).empty()) return;
    pick.score = Score(s.options.scoring, c, n);
    if (scorer.collect()) {
      feasible.push_back(pick);
    } else if (Better(pick, best, s.nodes)) {
      best = pick;
    }
  };
  // Only candidate nodes can give a tier-1 pick (through a reservation), and tier 1 beats every
  // other node: visit them first, and scan all nodes only when none of them gives one. Same
  // outcome as the full scan, without scoring thousands of nodes for every owner pod.
  if (!candidates.empty() && first >= 0) {
    size_t next = 0;
    for (size_t k = 0; k < candidates.size(); ++k) {
      int node = candidates[k].node;
      if ((k > 0 && candidates[k - 1].node == node) || node < first || node > last) continue;
      visit(node, next);
    }
    if (scorer.collect()) best = scorer.Finish(feasible);
  }
  if (best.tier == 0 && !required) {
    best = Pick{};
    blocked.clear();
    feasible.clear();
    size_t next = 0;
    for (int i = std::max(first, 0); first >= 0 && i <= last; ++i) visit(i, next);
    if (scorer.collect()) best = scorer.Finish(feasible);
  }
  // addAffinityDiagnosis: for a pod with reservation affinity that fits nowhere, the Reservation
  // plugin's PreFilter rejection (no node it may use has a matching reservation) and its
  // PostFilter reasons, counted over the Available reservations it owns on nodes its node
  // affinity allows (only those the owner index returned: any reservation owning the pod is
  // filed under one of the pod's keys).
  auto add_affinity_diagnosis = [&](const std::vector<int>& candidate_nodes, FitError& err) {
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
  };
  if (best.node < 0) {
    if (!required) {
      return std::unexpected(CollectReasons(s.nodes, s.present_nodes, pod, c, true, blocked, nullptr, gate_ptr, &filters));
    }
    std::vector<int> candidate_nodes;
    for (const Candidate& cand : candidates) {
      if (candidate_nodes.empty() || candidate_nodes.back() != cand.node) candidate_nodes.push_back(cand.node);
    }
    FitError err = CollectReasons(s.nodes, s.present_nodes, pod, c, true, blocked, &candidate_nodes, gate_ptr, &filters);
    add_affinity_diagnosis(candidate_nodes, err);
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
  if (auto err = RequestErrors(template_pod, s.present_nodes)) return std::unexpected(std::move(*err));
  // A reservation takes no pod slot: its owners count as pods when they bind.
  CompiledPod c = Compile(s.resources, template_pod, /*count_pods=*/false);
  // Never placed, not even as Waiting for pre-allocated pods to leave: no node can hold it.
  if (AnyUnbounded(c)) {
    FitError err = CollectReasons(s.nodes, s.present_nodes, template_pod, c, true);
    RenameReason(err, kReasonNodeName, kReasonReservationNodeName);
    return std::unexpected(std::move(err));
  }
  Pick best;
  // The reservation is placed as its reserve pod: the template's pod affinity and spreading hold
  // against the pods and the other reservations.
  const internal::ConstraintContext ctx{s.nodes, s.affinity_index, s.namespaces, template_pod, nullptr, &s.domains};
  const ConstraintFilters filters{internal::TopologySpreadFilter::Build(ctx),
                                  internal::InterPodAffinityFilter::Build(ctx)};
  const Scorer scorer(s.nodes, s.prefer_no_schedule_nodes > 0, template_pod, ctx);
  std::vector<Pick> feasible;
  const int first = template_pod.node_name.empty() ? 0 : s.NodeForConst(template_pod.node_name);
  const int last = template_pod.node_name.empty() ? static_cast<int>(s.nodes.size()) - 1 : first;
  for (int i = std::max(first, 0); first >= 0 && i <= last; ++i) {
    const NodeEntry& n = s.nodes[i];
    if (!n.present || !PassesNonResource(template_pod, c, n)) continue;
    if (!template_pod.host_ports.empty() && n.reserved_ports.Conflicts(template_pod.host_ports)) continue;
    bool fits = FitsFree(c, n);
    if (!fits && !pre_allocation) continue;
    if (!filters.Check(n.view.labels).empty()) continue;
    Pick pick;
    pick.node = i;
    pick.tier = fits ? 1 : 0;
    pick.avoided = AvoidsPod(n.view, template_pod, s.now);
    pick.score = Score(s.options.scoring, c, n);
    if (scorer.collect()) {
      feasible.push_back(pick);
    } else if (Better(pick, best, s.nodes)) {
      best = pick;
    }
  }
  if (scorer.collect()) best = scorer.Finish(feasible);
  if (best.node < 0) {
    FitError err = CollectReasons(s.nodes, s.present_nodes, template_pod, c, !pre_allocation, {}, nullptr, nullptr,
                                  &filters);
    RenameReason(err, kReasonNodeName, kReasonReservationNodeName);
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
