// Tests for reconcile/placement/filters.h: the filter predicates and the FitError summary.
#include "reconcile/placement/filters.h"

#include <gtest/gtest.h>

namespace berth::reconcile::placement {
namespace {

NodeView Node(std::string name) {
  NodeView n;
  n.name = std::move(name);
  return n;
}

TEST(TaintToleration, EqualNeedsSameValueAndExistsIgnoresIt) {
  Taint taint{"dedicated", "gpu", "NoSchedule"};
  EXPECT_TRUE(ToleratesTaint({"dedicated", "Equal", "gpu", "NoSchedule"}, taint));
  EXPECT_TRUE(ToleratesTaint({"dedicated", "", "gpu", ""}, taint));
  EXPECT_FALSE(ToleratesTaint({"dedicated", "Equal", "cpu", "NoSchedule"}, taint));
  EXPECT_TRUE(ToleratesTaint({"dedicated", "Exists", "", ""}, taint));
  EXPECT_TRUE(ToleratesTaint({"", "Exists", "", ""}, taint));
  EXPECT_FALSE(ToleratesTaint({"dedicated", "Exists", "", "NoExecute"}, taint));
  EXPECT_FALSE(ToleratesTaint({"other", "Exists", "", ""}, taint));
  EXPECT_FALSE(ToleratesTaint({"dedicated", "Bogus", "gpu", ""}, taint));
}

TEST(TaintToleration, OnlyNoScheduleAndNoExecuteTaintsBlock) {
  std::vector<Taint> taints = {{"soft", "", "PreferNoSchedule"}, {"a", "1", "NoExecute"},
                               {"b", "2", "NoSchedule"}};
  const Taint* t = FirstUntoleratedTaint({}, taints);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "a");
  t = FirstUntoleratedTaint({{"a", "Exists", "", ""}}, taints);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(UntoleratedTaintReason(*t), "node(s) had untolerated taint {b: 2}");
  EXPECT_TRUE(ToleratesAll({{"a", "Exists", "", ""}, {"b", "Equal", "2", ""}}, taints));
}

TEST(NodeUnschedulable, BlocksUnlessThePodToleratesTheUnschedulableTaint) {
  NodeView node = Node("n1");
  PodSpecView pod;
  EXPECT_TRUE(PassesNodeUnschedulable(pod, node));
  node.unschedulable = true;
  EXPECT_FALSE(PassesNodeUnschedulable(pod, node));
  EXPECT_EQ(NonResourceFilterReasons(pod, node),
            std::vector<std::string>{"node(s) were unschedulable"});
  pod.tolerations.push_back({"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"});
  EXPECT_TRUE(PassesNodeUnschedulable(pod, node));
}

TEST(NodeName, APinnedPodOnlyPassesItsNode) {
  PodSpecView pod;
  EXPECT_TRUE(PassesNodeName(pod, "n1"));
  pod.node_name = "n2";
  EXPECT_FALSE(PassesNodeName(pod, "n1"));
  EXPECT_TRUE(PassesNodeName(pod, "n2"));
  EXPECT_EQ(NonResourceFilterReasons(pod, Node("n1")),
            std::vector<std::string>{"node(s) didn't match the requested node name"});
}

TEST(NodeAffinity, NodeSelectorNeedsEveryPair) {
  PodSpecView pod;
  pod.node_selector = {{"zone", "a"}, {"disk", "ssd"}};
  EXPECT_TRUE(PassesNodeAffinity(pod, "n", {{"zone", "a"}, {"disk", "ssd"}, {"x", "y"}}));
  EXPECT_FALSE(PassesNodeAffinity(pod, "n", {{"zone", "a"}}));
  EXPECT_FALSE(PassesNodeAffinity(pod, "n", {{"zone", "b"}, {"disk", "ssd"}}));
}

NodeSelectorRequirement Req(std::string key, NodeSelectorOperator op,
                            std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

bool TermMatches(NodeSelectorRequirement req, const LabelMap& labels,
                 std::string node = "n1") {
  NodeSelectorTerm term;
  term.match_expressions.push_back(std::move(req));
  return MatchesNodeSelectorTerms({term}, node, labels);
}

TEST(NodeAffinity, OperatorsFollowUpstreamSemantics) {
  using Op = NodeSelectorOperator;
  LabelMap labels = {{"zone", "a"}, {"cores", "8"}, {"name", "x"}};
  EXPECT_TRUE(TermMatches(Req("zone", Op::kIn, {"a", "b"}), labels));
  EXPECT_FALSE(TermMatches(Req("zone", Op::kIn, {"b"}), labels));
  EXPECT_FALSE(TermMatches(Req("missing", Op::kIn, {"a"}), labels));
  EXPECT_TRUE(TermMatches(Req("zone", Op::kNotIn, {"b"}), labels));
  EXPECT_FALSE(TermMatches(Req("zone", Op::kNotIn, {"a"}), labels));
  EXPECT_TRUE(TermMatches(Req("missing", Op::kNotIn, {"a"}), labels));
  EXPECT_TRUE(TermMatches(Req("zone", Op::kExists), labels));
  EXPECT_FALSE(TermMatches(Req("missing", Op::kExists), labels));
  EXPECT_TRUE(TermMatches(Req("missing", Op::kDoesNotExist), labels));
  EXPECT_FALSE(TermMatches(Req("zone", Op::kDoesNotExist), labels));
  EXPECT_TRUE(TermMatches(Req("cores", Op::kGt, {"4"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kGt, {"8"}), labels));
  EXPECT_TRUE(TermMatches(Req("cores", Op::kLt, {"9"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kLt, {"8"}), labels));
  EXPECT_FALSE(TermMatches(Req("missing", Op::kLt, {"8"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kUnknown, {"8"}), labels));
}

TEST(NodeAffinity, MalformedGtLtNeverMatch) {
  using Op = NodeSelectorOperator;
  LabelMap labels = {{"cores", "8"}, {"name", "x"}};
  EXPECT_FALSE(TermMatches(Req("cores", Op::kGt, {"4", "5"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kGt, {"four"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kGt, {}), labels));
  EXPECT_FALSE(TermMatches(Req("name", Op::kGt, {"1"}), labels));
  EXPECT_FALSE(TermMatches(Req("cores", Op::kLt, {"9x"}), labels));
  EXPECT_EQ(ParseNodeSelectorOperator("Gt"), Op::kGt);
  EXPECT_EQ(ParseNodeSelectorOperator("gt"), Op::kUnknown);
  EXPECT_EQ(ParseNodeSelectorOperator(""), Op::kUnknown);
}

TEST(NodeAffinity, TermsAreOredRequirementsAndedAndEmptyTermsMatchNothing) {
  using Op = NodeSelectorOperator;
  LabelMap labels = {{"zone", "a"}, {"disk", "ssd"}};
  NodeSelectorTerm both;
  both.match_expressions = {Req("zone", Op::kIn, {"a"}), Req("disk", Op::kIn, {"hdd"})};
  NodeSelectorTerm second;
  second.match_expressions = {Req("disk", Op::kIn, {"ssd"})};
  EXPECT_FALSE(MatchesNodeSelectorTerms({both}, "n1", labels));
  EXPECT_TRUE(MatchesNodeSelectorTerms({both, second}, "n1", labels));
  EXPECT_FALSE(MatchesNodeSelectorTerms({NodeSelectorTerm{}}, "n1", labels));
  EXPECT_FALSE(MatchesNodeSelectorTerms({}, "n1", labels));
  PodSpecView pod;
  pod.required_node_affinity = std::vector<NodeSelectorTerm>{};
  EXPECT_FALSE(PassesNodeAffinity(pod, "n1", labels));
}

TEST(NodeAffinity, MatchFieldsSupportsMetadataNameInAndNotIn) {
  using Op = NodeSelectorOperator;
  NodeSelectorTerm term;
  term.match_fields = {Req("metadata.name", Op::kIn, {"n1", "n2"})};
  EXPECT_TRUE(MatchesNodeSelectorTerms({term}, "n2", {}));
  EXPECT_FALSE(MatchesNodeSelectorTerms({term}, "n3", {}));
  term.match_fields = {Req("metadata.name", Op::kNotIn, {"n1"})};
  EXPECT_TRUE(MatchesNodeSelectorTerms({term}, "n3", {}));
  EXPECT_FALSE(MatchesNodeSelectorTerms({term}, "n1", {}));
  term.match_fields = {Req("metadata.uid", Op::kIn, {"n1"})};
  EXPECT_FALSE(MatchesNodeSelectorTerms({term}, "n1", {}));
  term.match_fields = {Req("metadata.name", Op::kExists)};
  EXPECT_FALSE(MatchesNodeSelectorTerms({term}, "n1", {}));
  PodSpecView pod;
  pod.required_node_affinity = std::vector<NodeSelectorTerm>{term};
  EXPECT_EQ(NonResourceFilterReasons(pod, Node("n1")),
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
}

TEST(Filters, TheFirstFailingPluginGivesTheOnlyReason) {
  NodeView node = Node("n1");
  node.unschedulable = true;
  node.taints = {{"k", "v", "NoSchedule"}};
  PodSpecView pod;
  pod.node_name = "other";
  EXPECT_EQ(NonResourceFilterReasons(pod, node),
            std::vector<std::string>{"node(s) were unschedulable"});
  node.unschedulable = false;
  EXPECT_EQ(NonResourceFilterReasons(pod, node),
            std::vector<std::string>{"node(s) didn't match the requested node name"});
  pod.node_name = "n1";
  EXPECT_EQ(NonResourceFilterReasons(pod, node),
            std::vector<std::string>{"node(s) had untolerated taint {k: v}"});
  pod.tolerations = {{"k", "Exists", "", ""}};
  EXPECT_TRUE(NonResourceFilterReasons(pod, node).empty());
}

TEST(FitErrorMessage, HistogramStringsAreSortedAsStringsLikeKubeScheduler) {
  FitError err;
  err.num_all_nodes = 3;
  err.reasons = {{"Insufficient cpu", 2}, {"node(s) had untolerated taint {node-role: x}", 1}};
  EXPECT_EQ(err.Message(),
            "0/3 nodes are available: 1 node(s) had untolerated taint {node-role: x}, "
            "2 Insufficient cpu.");
  err.num_all_nodes = 12;
  err.reasons = {{"Insufficient cpu", 10}, {"Too many pods", 2}};
  // "10 ..." sorts before "2 ..." as a string, exactly as sort.Strings does.
  EXPECT_EQ(err.Message(), "0/12 nodes are available: 10 Insufficient cpu, 2 Too many pods.");
}

TEST(FitErrorMessage, NoNodesAndNoReasonsHaveTheirOwnText) {
  FitError err;
  EXPECT_EQ(err.Message(), "no nodes available to schedule pods");
  err.num_all_nodes = 2;
  EXPECT_EQ(err.Message(), "0/2 nodes are available:");
  EXPECT_EQ(InsufficientReason("pods"), "Too many pods");
  EXPECT_EQ(InsufficientReason("nvidia.com/gpu"), "Insufficient nvidia.com/gpu");
}

TEST(CopiesOnEmptyNode, TheScarcestRequestOrPodSlotsBoundTheCopies) {
  NodeView node = Node("n1");
  node.allocatable = {{"cpu", 8000}, {"memory", int64_t{4} << 30}, {"pods", 110 * 1000}};
  PodSpecView pod;
  pod.requests = {{"cpu", 3000}, {"memory", int64_t{1} << 30}};
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 2) << "cpu: 8/3";
  pod.requests = {{"memory", int64_t{1} << 30}};
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 4) << "memory: 4Gi/1Gi";
  pod.requests = {};
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 110) << "pod slots";
  pod.requests = {{"nvidia.com/gpu", 1000}};
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 0) << "a resource the node lacks";
  pod.requests = {{"cpu", kUnboundedAmount}};
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 0);
  pod.requests = {{"cpu", 1000}};
  pod.host_ports.push_back({});
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 1) << "host ports: one per node";
  pod.host_ports.clear();
  node.taints.push_back({"dedicated", "gpu", "NoSchedule"});
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 0) << "an untolerated taint";
  pod.tolerations.push_back({"dedicated", "Exists", "", ""});
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 8);
  pod.request_errors.push_back("spec.containers[0].resources.requests.cpu: invalid quantity \"abc\"");
  EXPECT_EQ(CopiesOnEmptyNode(pod, node), 0);
}

}  // namespace
}  // namespace berth::reconcile::placement
