#include "reconcile/resourcepolicy/policy_costs.h"

#include "reconcile/resourcepolicy/deletion_cost.h"

namespace berth::reconcile::resourcepolicy {

std::optional<size_t> CostUnitForNode(const placement::ResourcePolicyView& policy, std::string_view node_name,
                                      const placement::LabelMap& node_labels) {
  std::optional<size_t> best;
  for (size_t u = 0; u < policy.units.size(); ++u) {
    if (best && policy.units[u].priority <= policy.units[*best].priority) continue;
    if (placement::UnitMatchesNode(policy.units[u].node_selector, node_name, node_labels)) best = u;
  }
  return best;
}

PolicyCostPlan PlanPolicyCosts(const placement::ResourcePolicyView& policy,
                               const std::vector<const placement::ResourcePolicyView*>& others,
                               const std::vector<CostPodFacts>& pods,
                               const std::map<std::string, placement::LabelMap, std::less<>>& node_labels) {
  PolicyCostPlan plan;
  plan.costs.assign(pods.size(), std::nullopt);
  for (const auto& u : policy.units) plan.unit_pods[u.name] = 0;

  std::vector<CostUnit> units;
  for (const auto& u : policy.units) units.push_back({u.priority, u.max_count});
  // The unit of each node, computed once per node rather than once per pod.
  std::map<std::string_view, std::optional<size_t>> unit_of_node;
  std::vector<CostPod> managed;
  std::vector<size_t> managed_index;
  for (size_t i = 0; i < pods.size(); ++i) {
    const CostPodFacts& p = pods[i];
    if (p.terminating || !placement::PolicySelectsPod(policy, policy.namespace_name, p.labels)) continue;
    bool conflict = false;
    for (const auto* other : others) {
      if (other != &policy && placement::PolicySelectsPod(*other, policy.namespace_name, p.labels)) conflict = true;
    }
    if (conflict) continue;
    std::optional<size_t> unit;
    if (!p.node_name.empty()) {
      auto cached = unit_of_node.find(p.node_name);
      if (cached == unit_of_node.end()) {
        auto node = node_labels.find(p.node_name);
        std::optional<size_t> u;
        if (node != node_labels.end()) u = CostUnitForNode(policy, p.node_name, node->second);
        cached = unit_of_node.emplace(p.node_name, u).first;
      }
      unit = cached->second;
    }
    if (unit) plan.unit_pods[policy.units[*unit].name]++;
    managed.push_back({p.name, unit, placement::GroupKey(policy, p.labels), p.created});
    managed_index.push_back(i);
  }
  std::vector<int32_t> costs = ComputeDeletionCosts(units, managed);
  for (size_t k = 0; k < managed.size(); ++k) plan.costs[managed_index[k]] = costs[k];
  return plan;
}

}  // namespace berth::reconcile::resourcepolicy
