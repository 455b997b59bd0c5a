#include "reconcile/rescheduler/selection.h"

#include <gtest/gtest.h>

namespace berth::reconcile::rescheduler {
namespace {

using std::chrono::minutes;
const Time kNow = Time{} + std::chrono::hours(24 * 365 * 56);

placement::NodeView Node(std::string name, int64_t cpu_milli = 10000) {
  placement::NodeView n;
  n.name = std::move(name);
  n.labels = {{"kubernetes.io/hostname", n.name}};
  n.allocatable = {{"cpu", cpu_milli}, {"memory", int64_t{64} << 40}, {"pods", 110000}};
  return n;
}

PodInfo Pod(std::string name, std::string node, int64_t cpu_milli, int64_t priority = 0) {
  PodInfo p;
  p.spec.namespace_name = "default";
  p.spec.name = name;
  p.spec.uid = "uid-" + name;
  p.spec.node_name = node;
  p.spec.requests = {{"cpu", cpu_milli}};
  p.spec.owner_references = {{"apps/v1", "ReplicaSet", "web", "rs-uid", true}};
  p.facts.namespace_name = "default";
  p.facts.name = name;
  p.facts.uid = p.spec.uid;
  p.facts.node_name = node;
  p.facts.scheduler_name = "koord-scheduler";
  p.facts.phase = "Running";
  p.facts.ready = true;
  p.facts.priority = priority;
  p.facts.has_controller = true;
  p.facts.controller_kind = "ReplicaSet";
  return p;
}

ReschedulerConfig LnuConfig() {
  ReschedulerConfig c;
  c.low_node_utilization.enabled = true;
  c.low_node_utilization.thresholds = {{"cpu", 20}};
  c.low_node_utilization.target_thresholds = {{"cpu", 50}};
  c.min_improvement = 5;
  c.limits.max_pods_per_node = 0;
  return c;
}

// A hot node at 80% cpu (8 pods of 10%) and a cold one at 0%.
ReschedulerInput HotAndCold() {
  ReschedulerInput in;
  in.nodes = {Node("hot"), Node("cold")};
  for (int i = 0; i < 8; ++i) in.pods.push_back(Pod("p" + std::to_string(i), "hot", 1000, i));
  return in;
}

std::vector<std::string> Names(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& m : plan.moves) out.push_back(m.pod_name);
  return out;
}

TEST(LowNodeUtilizationTest, MovesLowestPriorityPodsFromTheHotNodeUntilItIsWithinTarget) {
  Plan plan = PlanRescheduling(HotAndCold(), LnuConfig(), {}, kNow);
  // 80% → 50% takes 3 pods of 10%; cold 0% → 30% stays within its 50% target.
  EXPECT_EQ(Names(plan), (std::vector<std::string>{"p0", "p1", "p2"}));
  for (const auto& m : plan.moves) {
    EXPECT_EQ(m.strategy, kStrategyLowNodeUtilization);
    EXPECT_EQ(m.from_node, "hot");
    EXPECT_EQ(m.to_nodes, std::vector<std::string>{"cold"});
    EXPECT_DOUBLE_EQ(m.improvement, 10.0);
  }
  EXPECT_NE(plan.moves[0].reason.find("node hot is over its targetThresholds (cpu 80% > 50%)"), std::string::npos)
      << plan.moves[0].reason;
}

TEST(LowNodeUtilizationTest, APodsDisruptionBudgetBoundsTheMovesOfAPass) {
  ReschedulerInput in = HotAndCold();
  // p0 and p1 under budget "default/web" allowing 1; p2 under two budgets; p3 under one allowing none.
  in.pods[0].budgets = in.pods[1].budgets = {"default/web"};
  in.pods[2].budgets = {"default/web", "default/web2"};
  in.pods[3].budgets = {"default/frozen"};
  in.disruptions_allowed = {{"default/web", 1}, {"default/web2", 5}, {"default/frozen", 0}};
  Plan plan = PlanRescheduling(in, LnuConfig(), {}, kNow);
  // p0 spends web's one disruption; p1, p2 (two budgets) and p3 are skipped; p4 and p5 have none.
  EXPECT_EQ(Names(plan), (std::vector<std::string>{"p0", "p4", "p5"}));
  auto noted = [&](const std::string& text) {
    return std::any_of(plan.notes.begin(), plan.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(noted("default/p1: PodDisruptionBudget default/web allows no disruption now"));
  EXPECT_TRUE(noted("default/p2 is selected by 2 PodDisruptionBudgets"));
  EXPECT_TRUE(noted("default/p3: PodDisruptionBudget default/frozen allows no disruption now"));
  // A budget the input does not know (its status not yet written) allows none.
  ReschedulerInput unknown = HotAndCold();
  for (auto& pod : unknown.pods) pod.budgets = {"default/new"};
  EXPECT_TRUE(PlanRescheduling(unknown, LnuConfig(), {}, kNow).moves.empty());
}

TEST(LowNodeUtilizationTest, NothingMovesWithoutAnUnderOrAnOverNode) {
  ReschedulerInput balanced = HotAndCold();
  balanced.nodes[1] = Node("cold");
  balanced.pods.push_back(Pod("c1", "cold", 3000));  // cold at 30%: not under 20%
  EXPECT_TRUE(PlanRescheduling(balanced, LnuConfig(), {}, kNow).moves.empty());
  ReschedulerInput calm;
  calm.nodes = {Node("a"), Node("b")};
  calm.pods = {Pod("x", "a", 4000)};  // 40%: not over 50%
  EXPECT_TRUE(PlanRescheduling(calm, LnuConfig(), {}, kNow).moves.empty());
}

TEST(LowNodeUtilizationTest, NeverOntoAnUnschedulableNode) {
  ReschedulerInput in = HotAndCold();
  in.nodes[1].unschedulable = true;  // a cordoned (draining) node is not under-utilised
  Plan plan = PlanRescheduling(in, LnuConfig(), {}, kNow);
  EXPECT_TRUE(plan.moves.empty());
}

TEST(LowNodeUtilizationTest, TargetsMustPassThePodsFiltersAndStayWithinTarget) {
  ReschedulerInput in = HotAndCold();
  in.nodes[1].taints = {{"dedicated", "gpu", "NoSchedule"}};
  EXPECT_TRUE(PlanRescheduling(in, LnuConfig(), {}, kNow).moves.empty());
  ReschedulerInput big;
  big.nodes = {Node("hot"), Node("cold")};
  big.pods = {Pod("huge", "hot", 6000)};  // 60% would put cold over its 50% target
  EXPECT_TRUE(PlanRescheduling(big, LnuConfig(), {}, kNow).moves.empty());
}

TEST(LowNodeUtilizationTest, TheImprovementThresholdSkipsMarginalMoves) {
  ReschedulerConfig c = LnuConfig();
  c.min_improvement = 15;  // each pod frees only 10% of hot
  Plan plan = PlanRescheduling(HotAndCold(), c, {}, kNow);
  EXPECT_TRUE(plan.moves.empty());
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].find("frees only 10% of hot (minImprovement 15%)"), std::string::npos) << plan.notes[0];
}

TEST(LowNodeUtilizationTest, NeverTwiceWithinTheCooldownNorWhileAJobIsActive) {
  ReschedulerInput in = HotAndCold();
  in.jobs = {{"default", "p0", kNow - minutes(10), false, true},   // finished 10m ago: within 30m
             {"default", "p1", kNow - minutes(60), true, false}};  // still active
  Plan plan = PlanRescheduling(in, LnuConfig(), {}, kNow);
  // p1's running job counts it as gone: hot is at 70%, two moves bring it to 50%.
  EXPECT_EQ(Names(plan), (std::vector<std::string>{"p2", "p3"}));
  in.jobs = {{"default", "p0", kNow - minutes(31), false, true}};  // past the cooldown
  EXPECT_EQ(Names(PlanRescheduling(in, LnuConfig(), {}, kNow)), (std::vector<std::string>{"p0", "p1", "p2"}));
}

TEST(LowNodeUtilizationTest, RunningJobsAndReservationsCountSoAPassDoesNotPlanTwice) {
  ReschedulerInput in = HotAndCold();
  in.jobs = {{"default", "p0", kNow - minutes(1), true, true}, {"default", "p1", kNow - minutes(1), true, true}};
  // p0 and p1 count as gone from hot (60% left); their reservations hold 20% of cold.
  in.reserved["cold"] = {{"cpu", 2000}};
  EXPECT_EQ(Names(PlanRescheduling(in, LnuConfig(), {}, kNow)), std::vector<std::string>{"p2"});
  in.reserved["cold"] = {{"cpu", 2500}};  // cold at 25%: no longer under its 20% threshold
  EXPECT_TRUE(PlanRescheduling(in, LnuConfig(), {}, kNow).moves.empty());
  ReschedulerInput deleting = HotAndCold();
  for (int i = 0; i < 3; ++i) deleting.pods[i].facts.deleting = true;  // 50% left: within target
  EXPECT_TRUE(PlanRescheduling(deleting, LnuConfig(), {}, kNow).moves.empty());
}

TEST(LowNodeUtilizationTest, UsesTheMigrationEvictabilityRules) {
  ReschedulerInput in = HotAndCold();
  in.pods[0].facts.controller_kind = "DaemonSet";
  in.pods[1].facts.local_storage = true;
  in.pods[2].facts.has_controller = false;
  in.pods[3].facts.scheduler_name = "default-scheduler";  // ReservationFirst needs berth to schedule it
  in.pods[4].facts.phase = "Pending";
  Plan plan = PlanRescheduling(in, LnuConfig(), {}, kNow);
  EXPECT_EQ(Names(plan), (std::vector<std::string>{"p5", "p6", "p7"}));
  PlanOptions lenient;
  lenient.evictability.evict_local_storage_pods = true;
  EXPECT_EQ(Names(PlanRescheduling(in, LnuConfig(), lenient, kNow)), (std::vector<std::string>{"p1", "p5", "p6"}));
}

TEST(LowNodeUtilizationTest, LimitsPerCyclePerNodePerNamespaceAndActiveJobs) {
  ReschedulerConfig c = LnuConfig();
  c.limits.max_pods_per_cycle = 2;
  EXPECT_EQ(PlanRescheduling(HotAndCold(), c, {}, kNow).moves.size(), 2u);
  c = LnuConfig();
  c.limits.max_pods_per_node = 1;
  EXPECT_EQ(PlanRescheduling(HotAndCold(), c, {}, kNow).moves.size(), 1u);
  c = LnuConfig();
  c.limits.max_pods_per_namespace = 2;
  EXPECT_EQ(PlanRescheduling(HotAndCold(), c, {}, kNow).moves.size(), 2u);
  c = LnuConfig();
  c.limits.max_active_jobs = 2;
  ReschedulerInput in = HotAndCold();
  in.jobs = {{"other", "x", kNow - minutes(1), true, true}};
  EXPECT_EQ(PlanRescheduling(in, c, {}, kNow).moves.size(), 1u);
  in.jobs[0].by_rescheduler = false;  // someone else's job does not count against the limit
  EXPECT_EQ(PlanRescheduling(in, c, {}, kNow).moves.size(), 2u);
}

TEST(LowNodeUtilizationTest, SpreadsOverUnderNodesLeastUsedFirst) {
  ReschedulerInput in = HotAndCold();
  in.nodes.push_back(Node("cool"));
  in.pods.push_back(Pod("c", "cool", 1000));  // cool at 10%: under, but more used than cold
  Plan plan = PlanRescheduling(in, LnuConfig(), {}, kNow);
  ASSERT_EQ(plan.moves.size(), 3u);
  EXPECT_EQ(plan.moves[0].to_nodes, std::vector<std::string>{"cold"});
  EXPECT_EQ(plan.moves[1].to_nodes, std::vector<std::string>{"cold"});  // cold 10% vs cool 10%: name order
  EXPECT_EQ(plan.moves[2].to_nodes, std::vector<std::string>{"cool"});
}

placement::PreferredSchedulingTerm Prefer(int32_t weight, std::string zone) {
  placement::NodeSelectorRequirement req{"zone", placement::NodeSelectorOperator::kIn, {std::move(zone)}};
  return {weight, {{req}, {}}};
}

ReschedulerConfig AffinityConfig() {
  ReschedulerConfig c;
  c.preferred_node_affinity.enabled = true;
  c.min_improvement = 10;
  return c;
}

TEST(PreferredNodeAffinityTest, MovesAPodToTheNodesSatisfyingMoreWeight) {
  ReschedulerInput in;
  in.nodes = {Node("a"), Node("b"), Node("c")};
  in.nodes[0].labels["zone"] = "east";
  in.nodes[1].labels["zone"] = "west";
  in.nodes[2].labels["zone"] = "west";
  PodInfo p = Pod("p", "a", 1000);
  p.spec.preferred_node_affinity = {Prefer(80, "west"), Prefer(20, "east")};
  in.pods = {p};
  Plan plan = PlanRescheduling(in, AffinityConfig(), {}, kNow);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].strategy, kStrategyPreferredNodeAffinity);
  EXPECT_EQ(plan.moves[0].to_nodes, (std::vector<std::string>{"b", "c"}));
  EXPECT_DOUBLE_EQ(plan.moves[0].improvement, 60.0);
  EXPECT_NE(plan.moves[0].reason.find("weight 20 of 100"), std::string::npos) << plan.moves[0].reason;
}

TEST(PreferredNodeAffinityTest, OnlyWhenABetterNodeFitsAndTheGainPassesTheThreshold) {
  ReschedulerInput in;
  in.nodes = {Node("a"), Node("b")};
  in.nodes[0].labels["zone"] = "east";
  in.nodes[1].labels["zone"] = "west";
  PodInfo p = Pod("p", "a", 1000);
  p.spec.preferred_node_affinity = {Prefer(55, "west"), Prefer(45, "east")};
  in.pods = {p};
  ReschedulerConfig c = AffinityConfig();
  c.min_improvement = 20;  // gain is 10 of 100
  EXPECT_TRUE(PlanRescheduling(in, c, {}, kNow).moves.empty());
  c.min_improvement = 10;
  EXPECT_EQ(PlanRescheduling(in, c, {}, kNow).moves.size(), 1u);
  in.nodes[1].unschedulable = true;
  EXPECT_TRUE(PlanRescheduling(in, c, {}, kNow).moves.empty());
  in.nodes[1].unschedulable = false;
  in.pods.push_back(Pod("filler", "b", 9500));  // b has no room left
  EXPECT_TRUE(PlanRescheduling(in, c, {}, kNow).moves.empty());
}

TEST(PreferredNodeAffinityTest, APodAlreadyOnItsBestNodeStays) {
  ReschedulerInput in;
  in.nodes = {Node("a"), Node("b")};
  in.nodes[0].labels["zone"] = "west";
  in.nodes[1].labels["zone"] = "west";
  PodInfo p = Pod("p", "a", 1000);
  p.spec.preferred_node_affinity = {Prefer(100, "west")};
  in.pods = {p};
  EXPECT_TRUE(PlanRescheduling(in, AffinityConfig(), {}, kNow).moves.empty());
}

TEST(PreferredNodeAffinityTest, APodWhoseBudgetAllowsNoDisruptionStays) {
  ReschedulerInput in;
  in.nodes = {Node("a"), Node("b")};
  in.nodes[1].labels["zone"] = "west";
  PodInfo p = Pod("p", "a", 1000);
  p.spec.preferred_node_affinity = {Prefer(80, "west")};
  p.budgets = {"default/pdb"};
  in.pods = {p};
  in.disruptions_allowed = {{"default/pdb", 0}};
  EXPECT_TRUE(PlanRescheduling(in, AffinityConfig(), {}, kNow).moves.empty());
  in.disruptions_allowed["default/pdb"] = 1;
  EXPECT_EQ(PlanRescheduling(in, AffinityConfig(), {}, kNow).moves.size(), 1u);
}

TEST(ReschedulingTest, StrategiesShareTheLimitsAndNeverMoveAPodTwice) {
  ReschedulerInput in = HotAndCold();
  in.nodes[1].labels["zone"] = "west";
  for (auto& p : in.pods) p.spec.preferred_node_affinity = {Prefer(100, "west")};
  ReschedulerConfig c = LnuConfig();
  c.preferred_node_affinity.enabled = true;
  c.limits.max_pods_per_cycle = 4;
  Plan plan = PlanRescheduling(in, c, {}, kNow);
  ASSERT_EQ(plan.moves.size(), 4u);
  EXPECT_EQ(plan.moves[0].strategy, kStrategyLowNodeUtilization);
  EXPECT_EQ(plan.moves[3].strategy, kStrategyPreferredNodeAffinity);
  EXPECT_EQ(Names(plan), (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
}

}  // namespace
}  // namespace berth::reconcile::rescheduler
