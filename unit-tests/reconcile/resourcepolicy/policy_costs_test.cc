#include "reconcile/resourcepolicy/policy_costs.h"

#include <gtest/gtest.h>

namespace berth::reconcile::resourcepolicy {
namespace {

using placement::ResourcePolicyView;

ResourcePolicyView Policy(const std::string& name, const std::string& app) {
  ResourcePolicyView p;
  p.namespace_name = "default";
  p.name = name;
  p.pod_selector = *shim::LabelSelector::Parse("app=" + app);
  placement::ResourcePolicyUnit od{"on-demand", 10, 4, {{{"pool", "on-demand"}}, {}}};
  placement::ResourcePolicyUnit spot{"spot", 1, std::nullopt, {{{"pool", "spot"}}, {}}};
  p.units = {od, spot};
  return p;
}

CostPodFacts Pod(const std::string& name, const std::string& node, int created, std::string app = "web") {
  return {name, {{"app", app}}, node, false, shim::TimePoint{} + std::chrono::seconds(created)};
}

const std::map<std::string, placement::LabelMap, std::less<>> kNodes = {
    {"od-1", {{"pool", "on-demand"}}}, {"spot-1", {{"pool", "spot"}}}, {"plain", {}}};

TEST(PolicyCostsTest, ManagedPodsGetCostsInUnitOrderAndUnitCounts) {
  auto policy = Policy("rp", "web");
  std::vector<CostPodFacts> pods{Pod("a", "od-1", 1), Pod("b", "spot-1", 2), Pod("c", "plain", 3), Pod("d", "", 4),
                                 Pod("other-app", "od-1", 5, "db")};
  pods.push_back(Pod("leaving", "od-1", 6));
  pods.back().terminating = true;
  auto plan = PlanPolicyCosts(policy, {}, pods, kNodes);
  ASSERT_TRUE(plan.costs[0] && plan.costs[1] && plan.costs[2] && plan.costs[3]);
  EXPECT_GT(*plan.costs[0], *plan.costs[1]);
  EXPECT_GT(*plan.costs[1], *plan.costs[2]);  // a node in no unit: lowest band
  EXPECT_GT(*plan.costs[2], *plan.costs[3]);  // unbound, newer, same band
  EXPECT_FALSE(plan.costs[4]);                // not selected
  EXPECT_FALSE(plan.costs[5]);                // terminating: left as it is
  EXPECT_EQ(plan.unit_pods, (std::map<std::string, int64_t>{{"on-demand", 1}, {"spot", 1}}));
}

TEST(PolicyCostsTest, PodsSelectedByTwoPoliciesAreManagedByNeither) {
  auto a = Policy("a", "web"), b = Policy("b", "web");
  auto plan = PlanPolicyCosts(a, {&a, &b}, {Pod("p", "od-1", 1)}, kNodes);
  EXPECT_FALSE(plan.costs[0]);
}

TEST(PolicyCostsTest, OverlappingUnitsPickTheHighestPriorityThenSpecOrder) {
  auto policy = Policy("rp", "web");
  policy.units[1].node_selector = {};  // spot now selects every node
  EXPECT_EQ(CostUnitForNode(policy, "od-1", {{"pool", "on-demand"}}), 0u);
  policy.units[1].priority = 10;
  EXPECT_EQ(CostUnitForNode(policy, "od-1", {{"pool", "on-demand"}}), 0u);
  policy.units[1].priority = 11;
  EXPECT_EQ(CostUnitForNode(policy, "od-1", {{"pool", "on-demand"}}), 1u);
  EXPECT_EQ(CostUnitForNode(Policy("x", "y"), "plain", {}), std::nullopt);
}

}  // namespace
}  // namespace berth::reconcile::resourcepolicy
