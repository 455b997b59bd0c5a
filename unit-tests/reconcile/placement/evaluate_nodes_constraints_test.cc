// Tests for ClusterSnapshot::EvaluateOnNodes with InterPodAffinity and PodTopologySpread: the
// constraints are built once per pod and applied in the per-node step shared with SchedulePod, so
// the extender's verdict per node is the scheduler's, with each failing node's own reason.
#include <gtest/gtest.h>

#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

NodeView Node(std::string name, std::string zone) {
  NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}};
  if (!zone.empty()) n.labels["topology.kubernetes.io/zone"] = zone;
  n.allocatable = {{"cpu", 8000}, {"memory", 32 * kGi}, {"pods", 110000}};
  return n;
}

PodSpecView Pod(std::string name, LabelMap labels, std::string node = "") {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = std::move(labels);
  p.node_name = std::move(node);
  p.requests = {{"cpu", 100}, {"memory", kGi}};
  return p;
}

PodAffinityTerm Term(std::string selector, std::string topology_key) {
  PodAffinityTerm t;
  t.selector = *shim::LabelSelector::Parse(selector);
  t.topology_key = std::move(topology_key);
  t.namespaces = {"default"};
  return t;
}

std::string Reasons(const ClusterSnapshot::NodeEvaluation& e) {
  if (e.fits) return "fits";
  std::string out;
  for (const auto& [reason, count] : e.error.reasons) out += (out.empty() ? "" : "; ") + reason;
  return out;
}

class EvaluateOnNodesConstraintsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    snap.UpsertNode(Node("a1", "a"));
    snap.UpsertNode(Node("a2", "a"));
    snap.UpsertNode(Node("b1", "b"));
    snap.UpsertNode(Node("nozone", ""));
    snap.UpsertPod(Pod("db-0", {{"app", "db"}}, "a1"));
  }
  std::vector<std::string_view> all{"a1", "a2", "b1", "nozone"};
  ClusterSnapshot snap;
};

TEST_F(EvaluateOnNodesConstraintsTest, RequiredPodAffinityFailsEachNodeOutsideTheZoneWithItsOwnReason) {
  PodSpecView pod = Pod("api", {{"app", "api"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_affinity = {Term("app=db", "topology.kubernetes.io/zone")};
  pod.pod_affinity = affinity;
  auto out = snap.EvaluateOnNodes(pod, all);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Reasons(out[0]), "fits");
  EXPECT_EQ(Reasons(out[1]), "fits");
  EXPECT_EQ(Reasons(out[2]), std::string(kReasonPodAffinity));
  EXPECT_EQ(Reasons(out[3]), std::string(kReasonPodAffinity));
  EXPECT_EQ(out[2].error.num_all_nodes, 1);
  // The scheduler agrees: it picks a node of zone a (the emptier a2).
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_TRUE(d) << d.error().Message();
  EXPECT_EQ(d->node_name, "a2");
}

TEST_F(EvaluateOnNodesConstraintsTest, AntiAffinityAndSpreadGiveTheSchedulersReasons) {
  PodSpecView pod = Pod("db-1", {{"app", "db"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=db", "kubernetes.io/hostname")};
  pod.pod_affinity = affinity;
  auto out = snap.EvaluateOnNodes(pod, all);
  EXPECT_EQ(Reasons(out[0]), std::string(kReasonPodAntiAffinity));
  EXPECT_EQ(Reasons(out[1]), "fits");
  EXPECT_EQ(Reasons(out[3]), "fits");

  // DoNotSchedule spreading over zones: the node without the label fails on it, a1/a2 on skew
  // (zone a has 1 db pod, zone b none: placing in a makes skew 2 > 1).
  PodSpecView spread_pod = Pod("db-2", {{"app", "db"}});
  TopologySpreadConstraint spread;
  spread.topology_key = "topology.kubernetes.io/zone";
  spread.selector = *shim::LabelSelector::Parse("app=db");
  spread_pod.topology_spread = {spread};
  out = snap.EvaluateOnNodes(spread_pod, all);
  EXPECT_EQ(Reasons(out[0]), std::string(kReasonTopologySpread));
  EXPECT_EQ(Reasons(out[1]), std::string(kReasonTopologySpread));
  EXPECT_EQ(Reasons(out[2]), "fits");
  EXPECT_EQ(Reasons(out[3]), std::string(kReasonTopologySpreadMissingLabel));
  PodDecision d = snap.SchedulePod(spread_pod);
  ASSERT_TRUE(d) << d.error().Message();
  EXPECT_EQ(d->node_name, "b1");
}

}  // namespace
}  // namespace berth::reconcile::placement
