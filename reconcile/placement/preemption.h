// reconcile/placement/preemption.h
//
// kube-scheduler's DefaultPreemption (PostFilter) as pure functions: when a pod fits nowhere,
// find nodes where removing pods of lower priority lets it fit, choose the fewest and least
// important victims per node (reprieving as many as possible, PDB-violating ones first), and pick
// one node by upstream's order. Whether the pod fits a node is asked of a NodeFitOracle, which the
// scheduler backs with its ClusterSnapshot (controllers/scheduler/scheduler_cache_preemption.cc),
// so every filter and the Reservation rules apply unchanged: capacity a Reservation holds stays
// held when its owner pods are removed, hence only the reservation's owners gain from preempting
// them; Reservations are not pods and are never victims.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/api/label_selector.h"
#include "reconcile/placement/priority.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// Upstream wording (pkg/scheduler/framework/plugins/defaultpreemption and framework/preemption).
inline constexpr std::string_view kReasonNoPreemptionVictims = "No preemption victims found for incoming pod";
inline constexpr std::string_view kReasonPreemptionNotHelpful = "Preemption is not helpful for scheduling";
inline constexpr std::string_view kPreemptNeverMessage = "not eligible due to preemptionPolicy=Never.";
inline constexpr std::string_view kTerminatingVictimMessage =
    "not eligible due to a terminating pod on the nominated node.";
// The DisruptionTarget condition reason kube-scheduler puts on a victim before deleting it.
inline constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";
// kube-scheduler's defaults for how many candidate nodes a dry run looks for
// (minCandidateNodesPercentage, minCandidateNodesAbsolute).
inline constexpr int kMinCandidateNodesPercentage = 10;
inline constexpr int kMinCandidateNodesAbsolute = 100;

// VictimPod: a pod counted on a node, as preemption sees it.
struct VictimPod {
  std::string uid;
  std::string namespace_name;
  std::string name;
  LabelMap labels;
  PodPriority priority;
  bool terminating = false;  // metadata.deletionTimestamp set: a victim needs no delete call
};

// PdbView: a policy/v1 PodDisruptionBudget as preemption counts it.
struct PdbView {
  std::string namespace_name;
  std::string name;
  // spec.selector; absent or empty selects nothing here (kube-scheduler's rule for preemption,
  // unlike the Eviction API).
  shim::LabelSelector selector = shim::LabelSelector::Nothing();
  int64_t disruptions_allowed = 0;  // status.disruptionsAllowed
  // status.disruptedPods names: evictions already counted against the budget.
  std::vector<std::string> disrupted_pods;
};

// NodeFitOracle: the filters run on one node while pods are removed and added back (upstream's
// RunFilterPluginsWithNominatedPods on a NodeInfo copy). Implementations restore the node when
// the dry run of that node ends.
class NodeFitOracle {
 public:
  virtual ~NodeFitOracle() = default;
  virtual void RemovePod(const VictimPod& pod) = 0;
  virtual void AddPod(const VictimPod& pod) = 0;
  // Fits: empty when the preemptor fits the node as it now is; otherwise the filters' reasons.
  virtual std::vector<std::string> Fits() = 0;
};

// NodeVictims: what preempting on one node takes.
struct NodeVictims {
  std::string node_name;
  std::vector<VictimPod> victims;  // most important first (MoreImportantPod)
  int pdb_violations = 0;          // victims whose removal a PDB does not allow
};

// MoreImportantPod: higher priority first; equal priorities: the earlier start (an unstarted pod
// counts as started `now`).
bool MoreImportantPod(const VictimPod& a, const VictimPod& b, Time now);

// SplitByPdbViolation is filterPodsWithPDBViolation: walking `pods` in order, each PDB of the
// pod's namespace that selects it (and does not list it in disruptedPods) gives up one allowed
// disruption; a pod that takes any PDB below zero is violating. Order is kept in both outputs.
void SplitByPdbViolation(const std::vector<VictimPod>& pods, const std::vector<PdbView>& pdbs,
                         std::vector<VictimPod>& violating, std::vector<VictimPod>& non_violating);

// SelectVictimsOnNode: remove every pod of lower priority than `preemptor_priority`; if the
// preemptor then fits, add them back one by one, most important first, PDB-violating ones
// before the others, keeping out only those without which it no longer fits. Errors: the
// reasons the node cannot help (no lower-priority pod, or the filters' reasons with all of them
// removed). The oracle's node is left as it was found.
std::expected<NodeVictims, std::vector<std::string>> SelectVictimsOnNode(int32_t preemptor_priority,
                                                                        std::string_view node_name,
                                                                        const std::vector<VictimPod>& pods,
                                                                        const std::vector<PdbView>& pdbs,
                                                                        NodeFitOracle& oracle, Time now);

// PickNodeForPreemption is pickOneNodeForPreemption: the index of the candidate with the fewest
// PDB violations, then the lowest highest-victim priority, then the smallest sum of priorities
// (each shifted by 2^31 so negative priorities count as small, not as savings), then the fewest
// victims, then the latest start among its highest-priority victims; remaining ties go to the
// first candidate. nullopt for an empty list.
std::optional<size_t> PickNodeForPreemption(const std::vector<NodeVictims>& candidates, Time now);

// NumCandidates: how many candidates a dry run over `potential_nodes` nodes looks for.
int NumCandidates(int potential_nodes);

// IneligibleToPreempt is PodEligibleToPreemptOthers: nullopt when the pod may preempt, otherwise
// the reason. `nominated_node_pods` are the pods on its nominated node (nullptr: the pod has no
// nominated node, the node is unknown, or it failed there for a reason removing pods cannot fix,
// which allows preempting again).
std::optional<std::string> IneligibleToPreempt(const PodPriority& preemptor,
                                               const std::vector<VictimPod>* nominated_node_pods);

// PreemptionNode: one node as the dry run sees it.
struct PreemptionNode {
  std::string name;
  // The node failed only filters that removing pods may fix (NodeResourcesFit, NodePorts,
  // reservations); otherwise preemption skips it ("Preemption is not helpful for scheduling").
  bool resolvable = false;
  std::vector<VictimPod> pods;  // pods counted on it that preemption may remove
};

// PreemptionOutcome: a chosen node and its victims, or why there is none.
struct PreemptionOutcome {
  std::optional<NodeVictims> chosen;
  // With no node: the PostFilter message, "preemption: 0/3 nodes are available: ..." or
  // "preemption: not eligible due to preemptionPolicy=Never.".
  std::string message;
  // kube-scheduler clears status.nominatedNodeName when the dry run found no candidate (and
  // keeps it when the pod was not eligible, e.g. waiting for its victims to terminate).
  bool clear_nomination = false;
};

// OracleFor gives the oracle of one node (valid until the next call).
using OracleFor = std::function<NodeFitOracle&(const std::string& node_name)>;

// Preempt runs DefaultPreemption for one pod over `nodes` (in the order a tie should favour):
// eligibility, the dry run on resolvable nodes until NumCandidates are found (at least one of
// them without PDB violations), and the pick. `num_all_nodes` counts every node for the message.
PreemptionOutcome Preempt(const PodPriority& preemptor, const std::vector<PreemptionNode>& nodes,
                          const std::vector<PdbView>& pdbs, const std::vector<VictimPod>* nominated_node_pods,
                          int num_all_nodes, const OracleFor& oracle_for, Time now);

// WithPostFilterMessage appends a PostFilter message to a FitError message (FitError.Error():
// " " + the message).
std::string WithPostFilterMessage(std::string fit_message, std::string_view post_filter_message);

}  // namespace berth::reconcile::placement
