// Tests for PodTopologySpread in ClusterSnapshot (pod_constraints.h), against kube-scheduler's
// documented behaviour and wording (pkg/scheduler/framework/plugins/podtopologyspread).
#include <memory>

#include <gtest/gtest.h>

#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;
constexpr char kZone[] = "topology.kubernetes.io/zone";

NodeView Node(std::string name, std::string zone, int64_t cores = 8) {
  NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}};
  if (!zone.empty()) n.labels[kZone] = zone;
  n.allocatable = {{"cpu", cores * 1000}, {"memory", 32 * kGi}, {"pods", 110000}};
  return n;
}

TopologySpreadConstraint Spread(int32_t max_skew, bool do_not_schedule = true) {
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = kZone;
  c.do_not_schedule = do_not_schedule;
  c.selector = *shim::LabelSelector::Parse("app=web");
  return c;
}

PodSpecView Web(std::string name, std::vector<TopologySpreadConstraint> spread = {Spread(1)}) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", "web"}};
  p.requests = {{"cpu", 100}, {"memory", kGi}};
  p.topology_spread = std::move(spread);
  return p;
}

PodSpecView Bound(PodSpecView p, std::string node) {
  p.node_name = std::move(node);
  return p;
}

std::map<std::string, int> ScheduleAll(ClusterSnapshot& snap, int count, const std::vector<TopologySpreadConstraint>& spread) {
  std::map<std::string, int> per_node;
  for (int i = 0; i < count; ++i) {
    PodSpecView pod = Web("web-" + std::to_string(i), spread);
    PodDecision d = snap.SchedulePod(pod);
    if (!d) {
      ADD_FAILURE() << d.error().Message();
      continue;
    }
    EXPECT_TRUE(snap.AssumePod(pod, *d));
    per_node[d->node_name]++;
  }
  return per_node;
}

TEST(TopologySpread, FourPodsMaxSkewOneLandTwoAndTwoOverTwoZones) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a", 64));  // a much bigger node: resource scores alone would stack it
  snap.UpsertNode(Node("b1", "b", 2));
  auto per_node = ScheduleAll(snap, 4, {Spread(1)});
  EXPECT_EQ(per_node["a1"], 2);
  EXPECT_EQ(per_node["b1"], 2);
}

TEST(TopologySpread, SkewAndMissingLabelReasons) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  snap.UpsertNode(Node("b1", "b", 0));  // no room
  snap.UpsertNode(Node("x1", ""));      // no zone label
  snap.UpsertPod(Bound(Web("old"), "a1"));
  PodDecision d = snap.SchedulePod(Web("new"));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(),
            "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints, "
            "1 node(s) didn't match pod topology spread constraints (missing required label).");
}

TEST(TopologySpread, OnlySameNamespaceNonTerminatingMatchingPodsCount) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  snap.UpsertNode(Node("b1", "b"));
  PodSpecView other_ns = Web("other");
  other_ns.namespace_name = "prod";
  snap.UpsertPod(Bound(other_ns, "a1"));
  PodSpecView terminating = Web("leaving");
  terminating.terminating = true;
  snap.UpsertPod(Bound(terminating, "a1"));
  PodSpecView unrelated = Web("db");
  unrelated.labels = {{"app", "db"}};
  snap.UpsertPod(Bound(unrelated, "a1"));
  snap.UpsertPod(Bound(Web("b-old"), "b1"));
  // Zone a counts 0, b counts 1: only a passes with maxSkew 1.
  PodDecision d = snap.SchedulePod(Web("new"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node_name, "a1");
}

TEST(TopologySpread, MinDomainsTreatsMissingDomainsAsEmpty) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  snap.UpsertNode(Node("b1", "b"));
  snap.UpsertPod(Bound(Web("a-old"), "a1"));
  snap.UpsertPod(Bound(Web("b-old"), "b1"));
  TopologySpreadConstraint c = Spread(1);
  EXPECT_TRUE(snap.SchedulePod(Web("new", {c})));  // min 1: 1 + 1 - 1 <= 1
  c.min_domains = 3;  // two domains < 3: the global minimum is 0, skew 2 > 1 everywhere
  PodDecision d = snap.SchedulePod(Web("new", {c}));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints.");
}

TEST(TopologySpread, NodeAffinityPolicyHonourLeavesExcludedNodesOutOfTheDomains) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  snap.UpsertNode(Node("b1", "b"));
  NodeView c1 = Node("c1", "c");
  c1.labels["pool"] = "other";
  snap.UpsertNode(c1);
  snap.UpsertPod(Bound(Web("a-old"), "a1"));
  snap.UpsertPod(Bound(Web("b-old"), "b1"));
  PodSpecView pod = Web("new");
  pod.required_node_affinity = std::vector<NodeSelectorTerm>{
      {{{"pool", NodeSelectorOperator::kDoesNotExist, {}}}, {}}};
  // Honor (default): zone c is not a domain, min is 1: a or b passes.
  EXPECT_TRUE(snap.SchedulePod(pod));
  // Ignore: empty zone c makes the minimum 0, so a and b (count 1) fail; c fails node affinity.
  pod.topology_spread[0].honor_node_affinity = false;
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(),
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match pod "
            "topology spread constraints.");
}

TEST(TopologySpread, NodeTaintsPolicyHonourLeavesTaintedNodesOut) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  NodeView tainted = Node("c1", "c");
  tainted.taints = {{"dedicated", "x", "NoSchedule"}};
  snap.UpsertNode(tainted);
  snap.UpsertPod(Bound(Web("a-old"), "a1"));
  // Ignore (default): the tainted zone c counts 0, so a (1 + 1 - 0 = 2) fails.
  EXPECT_FALSE(snap.SchedulePod(Web("new")));
  TopologySpreadConstraint c = Spread(1);
  c.honor_node_taints = true;
  EXPECT_TRUE(snap.SchedulePod(Web("new", {c})));
}

TEST(TopologySpread, ReservationsCountAsTheirTemplatePods) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("a1", "a"));
  snap.UpsertNode(Node("b1", "b", 64));
  ReservationView r;
  r.name = "r";
  r.uid = "r-uid";
  r.phase = Phase::kAvailable;
  r.node_name = "b1";
  r.allocatable = {{"cpu", 1000}};
  r.template_labels = {{"app", "web"}};
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("owner=yes");
  r.owners = {owner};
  snap.UpsertReservation(r);
  // b already holds one web "pod" (the reservation): the new one goes to a.
  PodDecision d = snap.SchedulePod(Web("new"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node_name, "a1");
}

TEST(TopologySpread, ScheduleAnywayPrefersTheEmptierZone) {
  ClusterSnapshot snap;
  NodeView big = Node("a1", "a", 64);
  big.allocatable["memory"] = 256 * kGi;  // bigger in every resource: resource scores prefer it
  snap.UpsertNode(big);
  snap.UpsertNode(Node("b1", "b", 8));
  snap.UpsertPod(Bound(Web("a-old"), "a1"));
  snap.UpsertPod(Bound(Web("a-old2"), "a1"));
  PodDecision without = snap.SchedulePod(Web("plain", {}));
  ASSERT_TRUE(without);
  EXPECT_EQ(without->node_name, "a1");  // resource scores alone
  PodDecision with = snap.SchedulePod(Web("spread", {Spread(1, /*do_not_schedule=*/false)}));
  ASSERT_TRUE(with);
  EXPECT_EQ(with->node_name, "b1");
}

TEST(PodTopologySpreadNormalize, UpstreamFormula) {
  // scores {cnt*w + skew-1}: 100 * (max + min - s) / max; ignored nodes 0.
  std::vector<int64_t> scores{0, 2, 4, 9};
  PodTopologySpreadNormalize(scores, {0, 0, 0, 1});
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 50, 0, 0}));
  std::vector<int64_t> zero{0, 0};
  PodTopologySpreadNormalize(zero, {0, 0});
  EXPECT_EQ(zero, (std::vector<int64_t>{100, 100}));
}

// kube-scheduler's system default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway)
// for a pod with no constraints of its own whose workload selector is known: pods of one
// ReplicaSet spread over nodes and zones by score, where resource scores alone would stack them
// on the biggest node.
// BigNode: 64 cpu and 256Gi, so that LeastAllocated keeps preferring it as pods land there.
NodeView BigNode(std::string name, std::string zone) {
  NodeView n = Node(std::move(name), std::move(zone), 64);
  n.allocatable["memory"] = 256 * kGi;
  return n;
}

std::map<std::string, int> ScheduleReplicaSet(ClusterSnapshot& snap, int count, bool with_defaults) {
  auto selector = std::make_shared<const shim::LabelSelector>(*shim::LabelSelector::Parse("app=web"));
  std::map<std::string, int> per_node;
  for (int i = 0; i < count; ++i) {
    PodSpecView pod = Web("rs-" + std::to_string(i), {});
    if (with_defaults) pod.default_spread_selector = selector;
    PodDecision d = snap.SchedulePod(pod);
    if (!d) {
      ADD_FAILURE() << d.error().Message();
      continue;
    }
    EXPECT_TRUE(snap.AssumePod(pod, *d));
    per_node[d->node_name]++;
  }
  return per_node;
}

TEST(TopologySpreadDefaults, ReplicaSetPodsSpreadOverNodesAndZones) {
  auto build = [](ClusterSnapshot& snap) {
    snap.UpsertNode(BigNode("a1", "a"));  // much emptier after each pod: LeastAllocated prefers it
    snap.UpsertNode(Node("b1", "b", 8));
    snap.UpsertNode(Node("c1", "c", 8));
  };
  ClusterSnapshot plain;
  build(plain);
  auto stacked = ScheduleReplicaSet(plain, 6, /*with_defaults=*/false);
  EXPECT_EQ(stacked["a1"], 6);  // without the defaults, resource scores stack them
  ClusterSnapshot spread;
  build(spread);
  auto per_node = ScheduleReplicaSet(spread, 6, /*with_defaults=*/true);
  EXPECT_EQ(per_node["a1"], 2);
  EXPECT_EQ(per_node["b1"], 2);
  EXPECT_EQ(per_node["c1"], 2);
}

TEST(TopologySpreadDefaults, NodesWithoutAZoneLabelAreStillScoredByHostname) {
  // Upstream does not require every default topology key on a node (requireAllTopologies is
  // false for system defaults): zone-less nodes still take pods, spread by hostname.
  ClusterSnapshot snap;
  snap.UpsertNode(BigNode("x1", ""));
  snap.UpsertNode(Node("x2", "", 8));
  auto per_node = ScheduleReplicaSet(snap, 4, /*with_defaults=*/true);
  EXPECT_EQ(per_node["x1"], 2);
  EXPECT_EQ(per_node["x2"], 2);
}

TEST(TopologySpreadDefaults, OwnConstraintsReplaceTheDefaults) {
  // A pod with any constraint of its own gets no defaults: a DoNotSchedule-only pod is scored by
  // resources, so it stacks on the big node within its zone skew.
  ClusterSnapshot snap;
  snap.UpsertNode(BigNode("a1", "a"));
  snap.UpsertNode(Node("a2", "a", 8));
  auto selector = std::make_shared<const shim::LabelSelector>(*shim::LabelSelector::Parse("app=web"));
  std::map<std::string, int> per_node;
  for (int i = 0; i < 4; ++i) {
    PodSpecView pod = Web("own-" + std::to_string(i), {Spread(1)});
    pod.default_spread_selector = selector;
    PodDecision d = snap.SchedulePod(pod);
    ASSERT_TRUE(d) << d.error().Message();
    EXPECT_TRUE(snap.AssumePod(pod, *d));
    per_node[d->node_name]++;
  }
  EXPECT_EQ(per_node["a1"], 4);
}

TEST(TopologySpreadDefaults, SystemDefaultsAreUpstreamsValues) {
  auto defaults = SystemDefaultSpreadConstraints(*shim::LabelSelector::Parse("app=web"));
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_EQ(defaults[0].topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(defaults[0].max_skew, 3);
  EXPECT_EQ(defaults[1].topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(defaults[1].max_skew, 5);
  for (const auto& c : defaults) {
    EXPECT_FALSE(c.do_not_schedule);  // ScheduleAnyway
    EXPECT_TRUE(c.honor_node_affinity);
    EXPECT_FALSE(c.honor_node_taints);
    EXPECT_EQ(c.selector.String(), "app=web");
  }
}

}  // namespace
}  // namespace berth::reconcile::placement
