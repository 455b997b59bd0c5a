// ResourcePolicy in the scheduler: PreFilter conflicts, Filter (units, maxCount, strategy), Score
// (priority before resources), matchLabelKeys grouping, ignoreTerminatingPod, incremental counts
// through assume/forget/delete/relabel, and the pure status computation.
#include "reconcile/placement/resource_policy.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

NodeView Node(std::string name, std::string pool, int64_t cores = 8) {
  NodeView n;
  n.name = std::move(name);
  n.labels = {{"pool", pool}};
  n.allocatable = {{"cpu", cores * 1000}, {"memory", 32 * kGi}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Pod(std::string name, std::string hash = "h1") {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", "web"}, {"pod-template-hash", hash}};
  p.requests = {{"cpu", 100}};
  return p;
}

ResourcePolicyUnit Unit(std::string name, std::string pool, int32_t priority,
                        std::optional<int32_t> max_count) {
  ResourcePolicyUnit u;
  u.name = std::move(name);
  u.priority = priority;
  u.max_count = max_count;
  u.node_selector.match_labels = {{"pool", std::move(pool)}};
  return u;
}

ResourcePolicyView Policy(std::string name = "rp", bool required = false) {
  ResourcePolicyView p;
  p.namespace_name = "default";
  p.name = std::move(name);
  p.pod_selector = *shim::LabelSelector::Parse("app=web");
  p.required = required;
  p.units = {Unit("on-demand", "on-demand", 10, 2), Unit("spot", "spot", 1, std::nullopt)};
  return p;
}

// Cluster: od-1, od-2 (on-demand, small), spot-1, spot-2 (spot, large: the resource score
// alone would pick spot), other-1 (no unit).
ClusterSnapshot Cluster() {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("od-1", "on-demand", 2));
  snap.UpsertNode(Node("od-2", "on-demand", 2));
  snap.UpsertNode(Node("spot-1", "spot", 64));
  snap.UpsertNode(Node("spot-2", "spot", 64));
  snap.UpsertNode(Node("other-1", "none", 64));
  return snap;
}

std::string Place(ClusterSnapshot& snap, const PodSpecView& pod) {
  PodDecision d = snap.SchedulePod(pod);
  if (!d) return "error: " + d.error().Message();
  EXPECT_TRUE(snap.AssumePod(pod, *d).has_value());
  return d->node_name;
}

TEST(ResourcePolicyPlacement, HigherPriorityUnitWinsUntilMaxCountThenSpillsInOrder) {
  ClusterSnapshot snap = Cluster();
  snap.UpsertResourcePolicy(Policy());
  std::vector<std::string> pools;
  for (int i = 0; i < 5; ++i) pools.push_back(Place(snap, Pod("p" + std::to_string(i))).substr(0, 3));
  // Two on-demand (maxCount 2) despite the worse resource score, then spot before the no-unit node.
  EXPECT_EQ(pools, (std::vector<std::string>{"od-", "od-", "spo", "spo", "spo"}));
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{2, 3}));
}

TEST(ResourcePolicyPlacement, PreferFallsBackToNodesInNoUnitRequiredDoesNot) {
  for (bool required : {false, true}) {
    ClusterSnapshot snap;
    snap.UpsertNode(Node("od-1", "on-demand"));
    snap.UpsertNode(Node("other-1", "none"));
    ResourcePolicyView p = Policy("rp", required);
    p.units = {Unit("on-demand", "on-demand", 10, 1)};
    snap.UpsertResourcePolicy(p);
    EXPECT_EQ(Place(snap, Pod("a")), "od-1");
    if (required) {
      EXPECT_EQ(Place(snap, Pod("b")),
                "error: 0/2 nodes are available: 1 node(s) didn't match resource policy units, "
                "1 node(s) exceeded resource policy unit maxCount.");
    } else {
      EXPECT_EQ(Place(snap, Pod("b")), "other-1");
    }
  }
}

TEST(ResourcePolicyPlacement, OnlyARequiredPolicysNodesInNoUnitAreOutsideForPreemption) {
  ClusterSnapshot snap = Cluster();
  PodSpecView pod = Pod("a");
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "other-1"));  // no policy
  snap.UpsertResourcePolicy(Policy("rp", /*required=*/false));
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "other-1"));  // prefer: any node may do
  snap.UpsertResourcePolicy(Policy("rp", /*required=*/true));
  EXPECT_TRUE(snap.OutsideRequiredPolicyUnits(pod, "other-1"));
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "od-1"));    // in a unit (full or not)
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "spot-2"));
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "missing"));  // unknown node
  PodSpecView other = Pod("b");
  other.labels = {{"app", "batch"}};
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(other, "other-1"));  // not selected
  snap.UpsertResourcePolicy(Policy("rp2", /*required=*/true));
  EXPECT_FALSE(snap.OutsideRequiredPolicyUnits(pod, "other-1"));  // two policies: the PreFilter decides
}

TEST(ResourcePolicyPlacement, DefaultFiltersComeBeforeThePolicyInTheSummary) {
  ClusterSnapshot snap;
  NodeView tainted = Node("od-1", "on-demand");
  tainted.taints = {{"k", "v", "NoSchedule"}};
  snap.UpsertNode(tainted);
  snap.UpsertNode(Node("other-1", "none"));
  snap.UpsertResourcePolicy(Policy("rp", /*required=*/true));
  EXPECT_EQ(Place(snap, Pod("a")),
            "error: 0/2 nodes are available: 1 node(s) didn't match resource policy units, "
            "1 node(s) had untolerated taint {k: v}.");
}

TEST(ResourcePolicyPlacement, PodMatchedByTwoPoliciesIsRejectedNamingThem) {
  ClusterSnapshot snap = Cluster();
  // Created in both orders across namespaces: the message lists names sorted either way.
  snap.UpsertResourcePolicy(Policy("a-policy"));
  snap.UpsertResourcePolicy(Policy("c-policy"));
  snap.UpsertResourcePolicy(Policy("b-policy"));
  snap.RemoveResourcePolicy("default", "c-policy");
  ResourcePolicyView elsewhere = Policy("c-policy");
  elsewhere.namespace_name = "other";
  snap.UpsertResourcePolicy(elsewhere);
  EXPECT_EQ(Place(snap, Pod("a")),
            "error: 0/5 nodes are available: pod is matched by more than one resource policy: "
            "ResourcePolicy/a-policy, ResourcePolicy/b-policy.");
  snap.RemoveResourcePolicy("default", "b-policy");
  EXPECT_EQ(Place(snap, Pod("a")), "od-1");
  PodSpecView unselected = Pod("x");
  unselected.labels = {{"app", "db"}};
  EXPECT_EQ(Place(snap, unselected), "other-1");  // no policy: resource score alone
}

TEST(ResourcePolicyPlacement, MatchLabelKeysCountEachGroupApart) {
  ClusterSnapshot snap = Cluster();
  ResourcePolicyView p = Policy();
  p.match_label_keys = {"pod-template-hash"};
  snap.UpsertResourcePolicy(p);
  EXPECT_EQ(Place(snap, Pod("a1", "h1")).substr(0, 3), "od-");
  EXPECT_EQ(Place(snap, Pod("a2", "h1")).substr(0, 3), "od-");
  EXPECT_EQ(Place(snap, Pod("a3", "h1")).substr(0, 3), "spo");
  // A new ReplicaSet (another hash) has its own on-demand budget.
  EXPECT_EQ(Place(snap, Pod("b1", "h2")).substr(0, 3), "od-");
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", "pod-template-hash=h1"), (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", "pod-template-hash=h2"), (std::vector<int32_t>{1, 0}));
}

// PodTopologySpread's matchLabelKeys: a key the pod lacks is left out of its selector, so the pod
// counts the pods of every value of that key (it cannot escape a full unit by lacking the label);
// a pod with the key still counts only its own value.
TEST(ResourcePolicyPlacement, MatchLabelKeysPodLackingAKeyCountsEveryAgreeingGroup) {
  ClusterSnapshot snap = Cluster();
  ResourcePolicyView p = Policy();
  p.match_label_keys = {"pod-template-hash", "track"};
  snap.UpsertResourcePolicy(p);
  PodSpecView a = Pod("a", "h1"), b = Pod("b", "h2");
  a.labels["track"] = "stable";
  b.labels["track"] = "canary";
  EXPECT_EQ(Place(snap, a).substr(0, 3), "od-");
  EXPECT_EQ(Place(snap, b).substr(0, 3), "od-");
  // No hash and no track: both groups count (2 = maxCount), so on-demand is full.
  PodSpecView bare = Pod("bare");
  bare.labels.erase("pod-template-hash");
  EXPECT_EQ(Place(snap, bare).substr(0, 3), "spo");
  // Hash h1 but no track: the groups with hash h1 count (a's: 1 pod); the bare pod's has no hash.
  PodSpecView h1 = Pod("h1-no-track", "h1");
  EXPECT_EQ(Place(snap, h1).substr(0, 3), "od-");
  // h1 now holds 2 on-demand pods (a, h1-no-track): the next h1 pod without track spills.
  EXPECT_EQ(Place(snap, Pod("h1-again", "h1")).substr(0, 3), "spo");
  // A pod with every key counts its own group only: h2/canary has one on-demand pod.
  PodSpecView b2 = Pod("b2", "h2");
  b2.labels["track"] = "canary";
  EXPECT_EQ(Place(snap, b2).substr(0, 3), "od-");
}

TEST(ResourcePolicyPlacement, IgnoreTerminatingPodFreesTheSlot) {
  for (bool ignore : {false, true}) {
    ClusterSnapshot snap = Cluster();
    ResourcePolicyView p = Policy();
    p.ignore_terminating_pod = ignore;
    snap.UpsertResourcePolicy(p);
    PodSpecView a = Pod("a"), b = Pod("b");
    a.node_name = "od-1";
    b.node_name = "od-2";
    snap.UpsertPod(a);
    snap.UpsertPod(b);
    b.terminating = true;
    snap.UpsertPod(b);
    EXPECT_EQ(Place(snap, Pod("c")).substr(0, 3), ignore ? "od-" : "spo") << ignore;
  }
}

TEST(ResourcePolicyPlacement, CountsFollowForgetDeleteRelabelAndPolicyEdits) {
  ClusterSnapshot snap = Cluster();
  snap.UpsertResourcePolicy(Policy());
  PodSpecView a = Pod("a"), b = Pod("b");
  ASSERT_EQ(Place(snap, a).substr(0, 3), "od-");
  ASSERT_EQ(Place(snap, b).substr(0, 3), "od-");
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{2, 0}));
  snap.ForgetPod(b.uid);  // binding failed
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{1, 0}));
  snap.RemovePod(a.uid);
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{0, 0}));
  // A bound pod relabelled out of the selector stops counting.
  PodSpecView c = Pod("c");
  c.node_name = "od-1";
  snap.UpsertPod(c);
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{1, 0}));
  c.labels = {{"app", "db"}};
  snap.UpsertPod(c);
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{0, 0}));
  c.labels = {{"app", "web"}};
  snap.UpsertPod(c);
  // A node moving to the spot pool moves its pods' count with it.
  snap.UpsertNode(Node("od-1", "spot", 2));
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{0, 1}));
  // A policy created after the pods counts them at once.
  snap.UpsertResourcePolicy(Policy("rp"));
  EXPECT_EQ(snap.ResourcePolicyCounts("default", "rp", ""), (std::vector<int32_t>{0, 1}));
  EXPECT_TRUE(snap.ResourcePolicyCounts("default", "missing", "").empty());
}

TEST(ResourcePolicyPlacement, ReservationOwnerKeepsItsReservationButThePolicyStillFilters) {
  ClusterSnapshot snap = Cluster();
  ReservationView r;
  r.name = "r";
  r.uid = "r-uid";
  r.phase = Phase::kAvailable;
  r.node_name = "spot-1";
  r.allocatable = {{"cpu", 1000}};
  r.allocate_once = false;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=web");
  r.owners = {owner};
  snap.UpsertReservation(r);
  snap.UpsertResourcePolicy(Policy());
  // The reservation wins over the higher-priority on-demand unit.
  PodDecision d = snap.SchedulePod(Pod("a"));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node_name, "spot-1");
  ASSERT_TRUE(d->reservation.has_value());
}

TEST(ResourcePolicyRules, SelectorsGroupKeysScoresAndMessages) {
  UnitNodeSelector sel;
  sel.match_labels = {{"pool", "spot"}};
  NodeSelectorRequirement gt{"cores", NodeSelectorOperator::kGt, {"4"}};
  sel.match_expressions = {gt};
  EXPECT_TRUE(UnitMatchesNode(sel, "n", {{"pool", "spot"}, {"cores", "8"}}));
  EXPECT_FALSE(UnitMatchesNode(sel, "n", {{"pool", "spot"}, {"cores", "2"}}));
  EXPECT_FALSE(UnitMatchesNode(sel, "n", {{"pool", "od"}, {"cores", "8"}}));
  EXPECT_TRUE(UnitMatchesNode(UnitNodeSelector{}, "n", {}));
  ResourcePolicyView p = Policy();
  p.match_label_keys = {"b", "a"};
  EXPECT_EQ(GroupKey(p, {{"a", "1"}, {"b", "2"}}), "b=2,a=1");
  EXPECT_EQ(GroupKey(p, {{"a", "1"}}), "a=1");
  EXPECT_TRUE(HasEveryMatchLabelKey(p, {{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(HasEveryMatchLabelKey(p, {{"a", "1"}}));
  EXPECT_TRUE(GroupAgreesWithPod(p, {{"a", "1"}}, "b=2,a=1"));
  EXPECT_TRUE(GroupAgreesWithPod(p, {{"a", "1"}}, "a=1"));
  EXPECT_FALSE(GroupAgreesWithPod(p, {{"a", "1"}}, "b=2,a=3"));
  EXPECT_FALSE(GroupAgreesWithPod(p, {{"a", "1"}}, "b=2"));  // the pod has a, the group does not
  EXPECT_TRUE(GroupAgreesWithPod(p, {}, "b=2"));
  EXPECT_TRUE(GroupAgreesWithPod(p, {}, ""));
  EXPECT_EQ(PriorityScore(5), 100);
  EXPECT_EQ(PriorityScore(0), 0);
  EXPECT_LT(PriorityScore(std::nullopt), PriorityScore(0));
  std::vector<int64_t> scores = {200, 20, 0, -1};
  NormalizeScores(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 10, 0, 0}));
}

TEST(ResourcePolicyStatus, CountsPerUnitAndGroupConflictsAndEmptySelectors) {
  ResourcePolicyView p = Policy();
  p.match_label_keys = {"pod-template-hash"};
  p.ignore_terminating_pod = true;
  p.units.push_back(Unit("gpu", "gpu", 0, 1));
  ResourcePolicyView other = Policy("other");
  other.pod_selector = *shim::LabelSelector::Parse("tier=front");
  std::vector<PolicyNodeFacts> nodes = {{"od-1", {{"pool", "on-demand"}}}, {"spot-1", {{"pool", "spot"}}}};
  std::vector<PolicyPodFacts> pods = {
      {"default", "a", {{"app", "web"}, {"pod-template-hash", "h1"}}, "od-1", false},
      {"default", "b", {{"app", "web"}, {"pod-template-hash", "h1"}}, "spot-1", false},
      {"default", "c", {{"app", "web"}, {"pod-template-hash", "h2"}}, "od-1", false},
      {"default", "d", {{"app", "web"}, {"pod-template-hash", "h1"}}, "od-1", true},  // terminating
      {"default", "e", {{"app", "web"}, {"tier", "front"}}, "", false},              // conflict, pending
      {"other", "f", {{"app", "web"}}, "od-1", false}};
  ResourcePolicyStatus st = ComputeResourcePolicyStatus(p, {&p, &other}, pods, nodes);
  EXPECT_EQ(st.matched_pods, 4);
  ASSERT_EQ(st.units.size(), 3u);
  EXPECT_EQ(st.units[0].nodes, 1);
  ASSERT_EQ(st.units[0].groups.size(), 2u);
  EXPECT_EQ(st.units[0].groups[0].group, "pod-template-hash=h1");
  EXPECT_EQ(st.units[0].groups[0].pods, 1);
  EXPECT_EQ(st.units[0].groups[1].pods, 1);
  EXPECT_EQ(st.unit_summary, "on-demand 1/2, spot 1, gpu 0/1");
  EXPECT_EQ(st.conflicting_pods, (std::vector<std::string>{"default/e"}));
  EXPECT_EQ(st.units_without_nodes, (std::vector<std::string>{"gpu"}));
  EXPECT_FALSE(st.selects_no_pod);
  ResourcePolicyView none = Policy("none");
  none.pod_selector = *shim::LabelSelector::Parse("app=nothing");
  EXPECT_TRUE(ComputeResourcePolicyStatus(none, {&none}, pods, nodes).selects_no_pod);
}

}  // namespace
}  // namespace berth::reconcile::placement
