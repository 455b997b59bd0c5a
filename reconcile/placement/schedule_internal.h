// reconcile/placement/schedule_internal.h
//
// Internal to ClusterSnapshot's pod decisions (not a public API): the pod compiled once against
// the snapshot (PodQuery: requests as dense indexes, its ResourcePolicy, the reservations it may
// allocate grouped by node) and the per-node step (VisitNode) shared by SchedulePod, which picks
// the best node, and EvaluateOnNodes, which answers for each of a given list of nodes (the
// kube-scheduler extender). Both therefore apply exactly the same rules.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/schedule_scoring.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement::internal {

struct CompiledPod {
  std::vector<Request> requests;  // non-zero, plus "pods" when counted
  int64_t nonzero_cpu = 0;
  int64_t nonzero_memory = 0;
  int64_t cpu = 0;  // the actual requests (NodeResourcesBalancedAllocation)
  int64_t memory = 0;
  bool needs_affinity = false;
};

CompiledPod Compile(const ResourceTable& table, const PodSpecView& pod, bool count_pods);
bool PassesNonResource(const PodSpecView& pod, const CompiledPod& c, const NodeEntry& n);
bool FitsFree(const CompiledPod& c, const NodeEntry& n, bool ignore_reservations = false);
bool AnyUnbounded(const CompiledPod& c);
// RequestErrors: requests or limits that do not parse make the pod unschedulable, naming the
// fields, rather than counting as zero.
std::optional<FitError> RequestErrors(const PodSpecView& pod, int present_nodes);
bool FitsWithReservation(const CompiledPod& c, const NodeEntry& n, const ReservationEntry& r, const Dense& rem);
int64_t ReservationScore(const CompiledPod& c, const ReservationEntry& r, const Dense& rem);
bool UsesRemainder(const CompiledPod& c, const Dense& rem);
// FitScore: the NodeResourcesFit score (0..kMaxNodeScore) of `strategy` with the pod added,
// reservations' holds counted as used.
int64_t FitScore(ScoringStrategy strategy, const CompiledPod& c, const NodeEntry& n);
// Score: the plugins every node gets without normalisation: NodeResourcesFit and
// NodeResourcesBalancedAllocation (reservations' holds count as requested, like their reserve pods).
int64_t Score(ScoringStrategy strategy, const CompiledPod& c, const NodeEntry& n);

// PolicyGate: the pod's ResourcePolicy (its PreFilter result) and the pods it counts per unit
// (CountsForPod: its own matchLabelKeys group, or every agreeing group when it lacks a key).
struct PolicyGate {
  enum class Verdict { kPass, kNoUnit, kMaxCount };
  const PolicyEntry* policy = nullptr;
  std::vector<int32_t> counts;  // per unit; shorter (or empty): no pods counted there yet

  // Check is the Filter for one node; on kPass, *score is its PriorityScore.
  Verdict Check(int node, int64_t* score) const;
};

// NodeReasons adds node i's reasons to `err` (kube-scheduler's plugin order, the first failing
// plugin only). `blocked`: the pod matched reservations on the node but fits none of them;
// `affinity_unmatched`: a pod with reservation affinity has no selected reservation there;
// `constraints`: PodTopologySpread / InterPodAffinity, after the resource fit.
void NodeReasons(const NodeEntry& n, int i, const PodSpecView& pod, const CompiledPod& c, bool check_resources,
                 bool blocked, bool affinity_unmatched, const PolicyGate* gate, FitError& err,
                 const ConstraintFilters* constraints = nullptr);
// CollectReasons: each node's reasons. `blocked` (sorted node indexes) are the nodes where the
// pod matched reservations but fit none of them; with `required` (sorted node indexes with a
// matching reservation, for a pod with reservation affinity) every other node fails on affinity.
FitError CollectReasons(const std::vector<NodeEntry>& nodes, int present, const PodSpecView& pod,
                        const CompiledPod& c, bool check_resources, const std::vector<int>& blocked = {},
                        const std::vector<int>* required = nullptr, const PolicyGate* gate = nullptr,
                        const ConstraintFilters* constraints = nullptr);
// RenameReason moves the count of reason `from` to `to` (a reservation's own wording).
void RenameReason(FitError& err, std::string_view from, std::string_view to);

// Candidate: a reservation the pod may allocate, with what is left of it.
struct Candidate {
  int node;
  const ReservationEntry* reservation;
  Dense remainder;
  int64_t order;  // reservation-order label
};

// PodQuery: everything about the pod that does not depend on the node, computed once.
struct PodQuery {
  CompiledPod compiled;
  // koordinator: a pod with reservation affinity must allocate a reservation the affinity selects.
  bool required = false;
  PolicyGate gate;
  // Reservations the pod may allocate, sorted by node. With spec.nodeName only those on it.
  std::vector<Candidate> candidates;
  // With `required`: every reservation the owner index returned (on the pinned node, if any),
  // for the unschedulable diagnosis, so that it never walks all reservations.
  std::vector<const ReservationEntry*> indexed;
};

// PreparePod: the pod-level part of a decision. Errors: a FitError for the pod as a whole
// (requests or annotations that do not parse, several ResourcePolicies selecting it).
std::expected<PodQuery, FitError> PreparePod(const ClusterSnapshot::State& s, const PodSpecView& pod);

// PodConstraints: the pod's PodTopologySpread / InterPodAffinity filters and its Scorer, built
// once per decision. koordinator takes the reservations a pod may allocate (`candidates`) out of
// its node for the pod's filters, so their reserve pods never repel (or attract) their own owners.
// Not movable: the context refers to `excluded`, the scorer to the context.
struct PodConstraints {
  PodConstraints(const ClusterSnapshot::State& s, const PodSpecView& pod, const std::vector<Candidate>* candidates);
  PodConstraints(const PodConstraints&) = delete;
  PodConstraints& operator=(const PodConstraints&) = delete;

  std::unordered_set<std::string_view> excluded;
  ConstraintContext ctx;
  ConstraintFilters filters;
  Scorer scorer;
};

// NodeVisit: the outcome of the filters and the score for one node.
struct NodeVisit {
  enum class Kind { kFiltered, kBlocked, kPicked };
  Kind kind = Kind::kFiltered;  // kBlocked: matched reservations there, fits none of them
  Pick pick;                    // kPicked: score is NodeResourcesFit + BalancedAllocation
  int64_t fit_score = 0;        // kPicked: NodeResourcesFit alone (0..kMaxNodeScore)
};
// VisitNode runs the filters for node i and scores it. `next` is the index of the first
// candidate on a node >= i, or any smaller index (it is advanced).
// `filters`: the pod's PodTopologySpread / InterPodAffinity (PodConstraints::filters).
NodeVisit VisitNode(const ClusterSnapshot::State& s, const PodSpecView& pod, const PodQuery& q,
                    const ConstraintFilters& filters, int i, size_t& next);

// AffinityDiagnosis for a pod with reservation affinity that fits nowhere: the Reservation
// plugin's PreFilter rejection (no node in `candidate_nodes` passes its node affinity) and its
// PostFilter reasons counted over `indexed` (the Available reservations it owns).
void AddAffinityDiagnosis(const ClusterSnapshot::State& s, const PodSpecView& pod,
                          const std::vector<int>& candidate_nodes,
                          const std::vector<const ReservationEntry*>& indexed, FitError& err);

}  // namespace berth::reconcile::placement::internal
