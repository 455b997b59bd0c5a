// reconcile/resourcepolicy/policy_costs.h
//
// One ResourcePolicy's deletion costs from the pods and nodes of its namespace: which pods it
// manages (selected by podSelector, by no other policy of the namespace, not terminating), the
// unit each is on, and the cost (deletion_cost.h). A pod's unit is the highest-priority unit whose
// nodeSelector selects its node (spec order breaks ties), the one the scheduler's score prefers;
// an unbound pod, or one on a node of no unit, is on no unit. Pure; no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clientgo-shim/api/timestamp.h"
#include "reconcile/placement/resource_policy.h"

namespace berth::reconcile::resourcepolicy {

struct CostPodFacts {
  std::string name;
  placement::LabelMap labels;
  std::string node_name;  // "" when not bound
  bool terminating = false;
  shim::TimePoint created;
};

struct PolicyCostPlan {
  // For each pod of the input: the cost the policy gives it, nullopt when it does not manage it.
  std::vector<std::optional<int32_t>> costs;
  // Managed pods per unit name (every unit listed, 0 included), for the unit_pods gauge.
  std::map<std::string, int64_t> unit_pods;
};

// CostUnitForNode: the unit index a pod on this node belongs to (see the file comment).
std::optional<size_t> CostUnitForNode(const placement::ResourcePolicyView& policy, std::string_view node_name,
                                      const placement::LabelMap& node_labels);

// PlanPolicyCosts: `others` are the other (valid) policies of the namespace; `node_labels` the
// labels of every known node by name.
PolicyCostPlan PlanPolicyCosts(const placement::ResourcePolicyView& policy,
                               const std::vector<const placement::ResourcePolicyView*>& others,
                               const std::vector<CostPodFacts>& pods,
                               const std::map<std::string, placement::LabelMap, std::less<>>& node_labels);

}  // namespace berth::reconcile::resourcepolicy
