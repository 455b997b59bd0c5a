// controllers/scheduler/scheduler_cache_preemption.cc
//
// SchedulerCache's DefaultPreemption: victims are the snapshot's bound pods (VictimsOn), and the
// dry run runs on the ClusterSnapshot itself (pods detached and reattached under the lock).
#include <algorithm>

#include "controllers/scheduler/preemption_codec.h"
#include "controllers/scheduler/scheduler_cache.h"
#include "reconcile/placement/filters.h"
#include "reconcile/placement/pod_constraints.h"

namespace berth::controllers {

namespace placement = reconcile::placement;

// SnapshotFitOracle: the preemptor pinned to one node, decided by the snapshot as pods come and
// go. Only pods of that node are detached and reattached, so the node ends as it began.
class SchedulerCache::SnapshotFitOracle final : public placement::NodeFitOracle {
 public:
  SnapshotFitOracle(placement::ClusterSnapshot& snapshot, const placement::PodSpecView& pinned)
      : snapshot_(snapshot), pinned_(pinned) {}

  void RemovePod(const placement::VictimPod& pod) override { snapshot_.DetachPod(pod.uid); }
  void AddPod(const placement::VictimPod& pod) override { snapshot_.ReattachPod(pod.uid); }
  std::vector<std::string> Fits() override {
    placement::PodDecision decision = snapshot_.SchedulePod(pinned_);
    if (decision) return {};
    // A pinned decision counts every other node as "didn't match the requested node name".
    std::vector<std::string> reasons;
    for (const auto& [reason, count] : decision.error().reasons) {
      if (reason != placement::kReasonNodeName) reasons.push_back(reason);
    }
    if (reasons.empty()) reasons.push_back(decision.error().Message());
    return reasons;
  }

 private:
  placement::ClusterSnapshot& snapshot_;
  const placement::PodSpecView& pinned_;
};

void SchedulerCache::SetNomination(const placement::PodSpecView& pod, std::string_view node) {
  std::lock_guard lock(mu_);
  if (node.empty() || IsBoundLocked(pod.uid)) {
    nominated_.erase(pod.uid);
    return;
  }
  placement::PodSpecView on_node = pod;
  on_node.node_name = std::string(node);
  on_node.reservation_uid.clear();  // a nominated pod allocates nothing yet
  nominated_.insert_or_assign(pod.uid, std::move(on_node));
}

bool SchedulerCache::IsNominated(std::string_view uid) const {
  std::lock_guard lock(mu_);
  return nominated_.contains(std::string(uid));
}

std::vector<std::string> SchedulerCache::AddNominatedLocked(const placement::PodSpecView& pod) {
  std::vector<std::string> added;
  for (const auto& [uid, nominated] : nominated_) {
    if (uid == pod.uid || nominated.priority.value < pod.priority.value) continue;
    if (snapshot_.IsCounted(uid) || !nodes_.contains(nominated.node_name)) continue;
    snapshot_.UpsertPod(nominated);
    added.push_back(uid);
  }
  return added;
}

void SchedulerCache::RemoveNominatedLocked(const std::vector<std::string>& uids) {
  for (const std::string& uid : uids) snapshot_.RemovePod(uid);
}

void SchedulerCache::SetPodStartTime(std::string_view uid, std::optional<std::string_view> start_time) {
  placement::PodPriority parsed;
  ReadStartTime(start_time, parsed);
  std::lock_guard lock(mu_);
  if (IsBoundLocked(uid)) snapshot_.SetPodStartTime(uid, parsed.start_time, parsed.error.empty());
}

placement::PreemptionOutcome SchedulerCache::Preempt(const placement::PodSpecView& pod, const placement::FitError& error,
                                                     const std::vector<placement::PdbView>& pdbs) {
  if (!pod.priority.error.empty()) return {std::nullopt, "preemption: " + pod.priority.error, false};
  // A pod-level failure (a field that does not parse, a PreFilter rejection) no removal fixes.
  const bool pod_resolvable = error.error.empty() && error.pre_filter_message.empty();
  std::lock_guard lock(mu_);
  AdvanceLocked();
  std::vector<std::string> names;
  names.reserve(nodes_.size());
  for (const auto& [name, view] : nodes_) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<placement::PreemptionNode> nodes;
  nodes.reserve(names.size());
  const std::vector<placement::VictimPod>* nominated = nullptr;
  // InterPodAffinity's unmatched required affinity and PodTopologySpread's missing topology label
  // are UnschedulableAndUnresolvable too (anti-affinity and skew are not: removing pods can fix
  // them). They depend on the pods in the node's domains, so only the pod's own decision pinned to
  // the node tells; it is asked only when the pod has such constraints.
  const bool has_unresolvable_constraints =
      (pod.pod_affinity && !pod.pod_affinity->required_affinity.empty()) ||
      std::any_of(pod.topology_spread.begin(), pod.topology_spread.end(),
                  [](const placement::TopologySpreadConstraint& c) { return c.do_not_schedule; });
  placement::PodSpecView pinned_here = pod;
  auto unresolvable_by_constraints = [&](const std::string& name) {
    if (!has_unresolvable_constraints) return false;
    pinned_here.node_name = name;
    placement::PodDecision decision = snapshot_.SchedulePod(pinned_here);
    return !decision && (decision.error().reasons.contains(placement::kReasonPodAffinity) ||
                         decision.error().reasons.contains(placement::kReasonTopologySpreadMissingLabel));
  };
  for (const std::string& name : names) {
    placement::PreemptionNode node;
    node.name = name;
    // NodeUnschedulable, NodeName, TaintToleration, NodeAffinity are UnschedulableAndUnresolvable, and
    // so is a node outside every unit of a required ResourcePolicy.
    node.resolvable = pod_resolvable && placement::NonResourceFilterReasons(pod, nodes_.at(name)).empty() &&
                      !snapshot_.OutsideRequiredPolicyUnits(pod, name) && !unresolvable_by_constraints(name);
    if (node.resolvable) {
      node.pods = snapshot_.VictimsOn(name);  // bound pods whose priority is readable
      std::sort(node.pods.begin(), node.pods.end(), [](const placement::VictimPod& a, const placement::VictimPod& b) {
        return std::tie(a.namespace_name, a.name) < std::tie(b.namespace_name, b.name);
      });
    }
    nodes.push_back(std::move(node));
  }
  for (const placement::PreemptionNode& node : nodes) {
    if (node.resolvable && node.name == pod.priority.nominated_node_name) nominated = &node.pods;
  }
  placement::PodSpecView pinned = pod;
  std::optional<SnapshotFitOracle> oracle;
  placement::OracleFor oracle_for = [&](const std::string& node) -> placement::NodeFitOracle& {
    pinned.node_name = node;
    oracle.emplace(snapshot_, pinned);
    return *oracle;
  };
  // The dry run sees the nominated pods it must respect, as every decision does.
  std::vector<std::string> added = AddNominatedLocked(pod);
  placement::PreemptionOutcome out =
      placement::Preempt(pod.priority, nodes, pdbs, nominated, snapshot_.NodeCount(), oracle_for, now_());
  RemoveNominatedLocked(added);
  return out;
}

bool SchedulerCache::FitsWithoutPods(const placement::PodSpecView& pod, const std::string& node,
                                     const std::vector<std::string>& victim_uids) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  if (!nodes_.contains(node)) return false;
  std::vector<std::string> on_node;
  for (const placement::VictimPod& v : snapshot_.VictimsOn(node)) on_node.push_back(v.uid);
  std::vector<std::string> detached;
  for (const std::string& uid : victim_uids) {
    if (std::find(on_node.begin(), on_node.end(), uid) != on_node.end() && snapshot_.DetachPod(uid)) {
      detached.push_back(uid);
    }
  }
  placement::PodSpecView pinned = pod;
  pinned.node_name = node;
  std::vector<std::string> added = AddNominatedLocked(pod);
  const bool fits = static_cast<bool>(snapshot_.SchedulePod(pinned));
  RemoveNominatedLocked(added);
  for (auto it = detached.rbegin(); it != detached.rend(); ++it) snapshot_.ReattachPod(*it);
  return fits;
}

}  // namespace berth::controllers
