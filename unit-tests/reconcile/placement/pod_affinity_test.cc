// Tests for InterPodAffinity in ClusterSnapshot (pod_constraints.h), against kube-scheduler's
// documented behaviour and wording (pkg/scheduler/framework/plugins/interpodaffinity).
#include <gtest/gtest.h>

#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

NodeView Node(std::string name, std::string zone, int64_t cores = 8) {
  NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  n.allocatable = {{"cpu", cores * 1000}, {"memory", 32 * kGi}, {"pods", 110000}};
  return n;
}

PodSpecView Pod(std::string name, LabelMap labels, std::string ns = "default") {
  PodSpecView p;
  p.namespace_name = std::move(ns);
  p.name = name;
  p.uid = name + "-uid";
  p.labels = std::move(labels);
  p.requests = {{"cpu", 100}, {"memory", kGi}};
  return p;
}

PodAffinityTerm Term(std::string selector, std::string topology_key, std::vector<std::string> namespaces = {"default"},
                     int32_t weight = 0) {
  PodAffinityTerm t;
  t.selector = *shim::LabelSelector::Parse(selector);
  t.topology_key = std::move(topology_key);
  t.namespaces = std::move(namespaces);
  t.weight = weight;
  return t;
}

PodSpecView Bound(PodSpecView p, std::string node) {
  p.node_name = std::move(node);
  return p;
}

std::string NodeOf(const PodDecision& d) { return d ? d->node_name : "error: " + d.error().Message(); }

class PodAffinityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    snap.UpsertNode(Node("n1", "a"));
    snap.UpsertNode(Node("n2", "b"));
  }
  ClusterSnapshot snap;
};

TEST_F(PodAffinityTest, RequiredAntiAffinityKeepsOffTheMatchingPodsNode) {
  snap.UpsertPod(Bound(Pod("web-0", {{"app", "web"}}), "n1"));
  PodSpecView pod = Pod("web-1", {{"app", "web"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};
  pod.pod_affinity = affinity;
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  snap.UpsertPod(Bound(Pod("web-2", {{"app", "web"}}), "n2"));
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
}

TEST_F(PodAffinityTest, RequiredAffinityFollowsTheMatchingPodsZone) {
  snap.UpsertNode(Node("n3", "b"));
  snap.UpsertPod(Bound(Pod("db-0", {{"app", "db"}}), "n2"));
  PodSpecView pod = Pod("api", {{"app", "api"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_affinity = {Term("app=db", "topology.kubernetes.io/zone")};
  pod.pod_affinity = affinity;
  // n2 and n3 share zone b; LeastAllocated prefers the empty n3.
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n3");
  snap.RemovePod("db-0-uid");
  snap.UpsertPod(Bound(Pod("other", {{"app", "other"}}), "n2"));
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");
}

TEST_F(PodAffinityTest, FirstPodOfASelfAffineGroupIsAllowedWhereTheTopologyKeyExists) {
  PodSpecView pod = Pod("cache-0", {{"app", "cache"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_affinity = {Term("app=cache", "topology.kubernetes.io/zone")};
  pod.pod_affinity = affinity;
  NodeView bare = Node("n0", "");
  bare.labels.erase("topology.kubernetes.io/zone");
  snap.UpsertNode(bare);
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_TRUE(d);
  EXPECT_NE(d->node_name, "n0");  // every topology label must exist, also for self-affinity
  // Not self-matching: no node passes.
  pod.labels = {{"app", "other"}};
  d = snap.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");
}

TEST_F(PodAffinityTest, ExistingPodsRequiredAntiAffinityIsSymmetric) {
  PodSpecView guard = Pod("guard", {{"app", "guard"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "topology.kubernetes.io/zone")};
  guard.pod_affinity = affinity;
  snap.UpsertPod(Bound(guard, "n1"));
  EXPECT_EQ(NodeOf(snap.SchedulePod(Pod("web", {{"app", "web"}}))), "n2");
  snap.UpsertPod(Bound(guard, "n1"));
  PodSpecView guard2 = guard;
  guard2.uid = "guard2-uid";
  snap.UpsertPod(Bound(guard2, "n2"));
  PodDecision d = snap.SchedulePod(Pod("web", {{"app", "web"}}));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.");
  // A pod the term does not select is not repelled.
  EXPECT_TRUE(snap.SchedulePod(Pod("db", {{"app", "db"}})));
}

TEST_F(PodAffinityTest, NamespacesAndNamespaceSelectorDecideWhichPodsATermSees) {
  snap.UpsertPod(Bound(Pod("web-prod", {{"app", "web"}}, "prod"), "n1"));
  PodSpecView pod = Pod("web", {{"app", "web"}});
  auto own_namespace = std::make_shared<PodAffinity>();
  own_namespace->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};  // namespace default
  pod.pod_affinity = own_namespace;
  snap.UpsertPod(Bound(Pod("web-dev", {{"app", "web"}}), "n2"));
  // Only default's pod repels: n1 (prod's pod) is allowed.
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
  auto selected = std::make_shared<PodAffinity>();
  PodAffinityTerm term = Term("app=web", "kubernetes.io/hostname", {});
  term.namespace_selector = *shim::LabelSelector::Parse("env=prod");
  selected->required_anti_affinity = {term};
  pod.pod_affinity = selected;
  // The namespace's labels are unknown: prod's pod is not selected, default's neither.
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
  snap.UpsertNamespace("prod", {{"env", "prod"}});
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  // {} selects every namespace.
  selected->required_anti_affinity[0].namespace_selector = shim::LabelSelector::Everything();
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
}

ReservationView ReservePod(std::string name, std::string node, LabelMap template_labels,
                           std::shared_ptr<const PodAffinity> affinity = nullptr) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = {{"cpu", 1000}, {"memory", kGi}};
  r.allocate_once = false;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("owner=yes");
  r.owners = {owner};
  r.template_labels = std::move(template_labels);
  r.template_affinity = std::move(affinity);
  return r;
}

TEST_F(PodAffinityTest, ReservationsCountAsTheirTemplatePods) {
  snap.UpsertReservation(ReservePod("r1", "n1", {{"app", "web"}}));
  PodSpecView pod = Pod("web", {{"app", "web"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};
  pod.pod_affinity = affinity;
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  // An expired/removed reservation no longer counts.
  snap.RemoveReservation("r1-uid");
  ASSERT_TRUE(snap.AssumePod(Pod("filler", {{"x", "y"}}), {"n2", {}, {}, {}}));
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
}

TEST_F(PodAffinityTest, ReservationTemplateAntiAffinityRepelsOthersButNotItsOwners) {
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=batch", "kubernetes.io/hostname")};
  snap.UpsertReservation(ReservePod("r1", "n1", {{"app", "svc"}}, affinity));
  // A batch pod is kept off n1 by the reservation's anti-affinity (symmetry).
  EXPECT_EQ(NodeOf(snap.SchedulePod(Pod("batch", {{"app", "batch"}}))), "n2");
  // An owner of r1 with app=batch goes into r1: its own reservation is not in its way.
  PodDecision d = snap.SchedulePod(Pod("owner", {{"app", "batch"}, {"owner", "yes"}}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->node_name, "n1");
  ASSERT_TRUE(d->reservation);
  EXPECT_EQ(d->reservation->name, "r1");
}

TEST_F(PodAffinityTest, PlacingAReservationHonoursItsTemplateAffinity) {
  snap.UpsertPod(Bound(Pod("web-0", {{"app", "web"}}), "n1"));
  PodSpecView tmpl = Pod("rsv", {{"app", "web"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};
  tmpl.pod_affinity = affinity;
  auto placed = snap.PlaceReservation(tmpl, false);
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->node_name, "n2");
  snap.UpsertPod(Bound(Pod("web-1", {{"app", "web"}}), "n2"));
  placed = snap.PlaceReservation(tmpl, false);
  ASSERT_FALSE(placed);
  EXPECT_EQ(placed.error().Message(), "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
}

TEST_F(PodAffinityTest, PreferredAffinityAndAntiAffinityScore) {
  // n1 is busier (LeastAllocated prefers n2) but holds the cache pod the pod prefers.
  snap.UpsertPod(Bound(Pod("cache", {{"app", "cache"}}), "n1"));
  PodSpecView busy = Pod("busy", {{"x", "y"}});
  busy.requests = {{"cpu", 4000}, {"memory", 16 * kGi}};
  snap.UpsertPod(Bound(busy, "n1"));
  PodSpecView pod = Pod("api", {{"app", "api"}});
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  auto affinity = std::make_shared<PodAffinity>();
  affinity->preferred_affinity = {Term("app=cache", "kubernetes.io/hostname", {"default"}, 100)};
  pod.pod_affinity = affinity;
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
  auto anti = std::make_shared<PodAffinity>();
  anti->preferred_anti_affinity = {Term("app=cache", "kubernetes.io/hostname", {"default"}, 100)};
  pod.pod_affinity = anti;
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
}

TEST_F(PodAffinityTest, ExistingPodsPreferredTermsAttractTheIncomingPod) {
  PodSpecView busy = Pod("busy", {{"app", "friend"}});
  busy.requests = {{"cpu", 4000}, {"memory", 16 * kGi}};
  auto affinity = std::make_shared<PodAffinity>();
  affinity->preferred_affinity = {Term("app=api", "kubernetes.io/hostname", {"default"}, 100)};
  busy.pod_affinity = affinity;
  snap.UpsertPod(Bound(busy, "n1"));
  EXPECT_EQ(NodeOf(snap.SchedulePod(Pod("api", {{"app", "api"}}))), "n1");
  EXPECT_EQ(NodeOf(snap.SchedulePod(Pod("other", {{"app", "other"}}))), "n2");
}

TEST(TermMatches, NamespaceListSelectorAndLabels) {
  PodAffinityTerm t = Term("app=web", "zone", {"a"});
  EXPECT_TRUE(TermMatches(t, "a", {{"app", "web"}}, nullptr));
  EXPECT_FALSE(TermMatches(t, "b", {{"app", "web"}}, nullptr));
  EXPECT_FALSE(TermMatches(t, "a", {{"app", "db"}}, nullptr));
  t.namespace_selector = *shim::LabelSelector::Parse("team=x");
  LabelMap team{{"team", "x"}};
  EXPECT_TRUE(TermMatches(t, "b", {{"app", "web"}}, &team));
  PodAffinityTerm nothing;  // a nil labelSelector matches no pod
  nothing.namespaces = {"a"};
  EXPECT_FALSE(TermMatches(nothing, "a", {{"app", "web"}}, nullptr));
}

TEST(InterPodAffinityNormalize, MinMaxToZeroHundred) {
  std::vector<int64_t> scores{-100, 0, 100};
  InterPodAffinityNormalize(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  std::vector<int64_t> flat{7, 7};
  InterPodAffinityNormalize(flat);
  EXPECT_EQ(flat, (std::vector<int64_t>{0, 0}));
}

}  // namespace
}  // namespace berth::reconcile::placement

namespace berth::reconcile::placement {
namespace {

TEST_F(PodAffinityTest, ForgottenAndRemovedPodsLeaveTheIndex) {
  PodSpecView web = Pod("web-0", {{"app", "web"}});
  ASSERT_TRUE(snap.AssumePod(web, {"n1", {}, {}, {}}));
  PodSpecView pod = Pod("web-1", {{"app", "web"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};
  pod.pod_affinity = affinity;
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  snap.ForgetPod("web-0-uid");  // the binding failed: n1 is free of web pods again
  PodSpecView filler = Pod("filler", {{"x", "y"}});
  ASSERT_TRUE(snap.AssumePod(filler, {"n2", {}, {}, {}}));
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
  // A relabelled pod is re-filed under its new labels.
  snap.UpsertPod(Bound(Pod("web-0", {{"app", "web"}}), "n1"));
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n2");
  snap.UpsertPod(Bound(Pod("web-0", {{"app", "db"}}), "n1"));
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
  snap.RemovePod("web-0-uid");
  EXPECT_EQ(NodeOf(snap.SchedulePod(pod)), "n1");
}

TEST_F(PodAffinityTest, ExistingPodsRequiredAffinityAttractsWithTheHardWeight) {
  // kube-scheduler's hardPodAffinityWeight (1): an existing pod's required affinity term that
  // matches the incoming pod scores the existing pod's domain.
  PodSpecView busy = Pod("busy", {{"app", "client"}});
  busy.requests = {{"cpu", 4000}, {"memory", 16 * kGi}};
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_affinity = {Term("app=server", "kubernetes.io/hostname")};
  busy.pod_affinity = affinity;
  snap.UpsertPod(Bound(busy, "n1"));
  EXPECT_EQ(NodeOf(snap.SchedulePod(Pod("server", {{"app", "server"}}))), "n1");
}

TEST_F(PodAffinityTest, SpreadingIsCheckedBeforeInterPodAffinity) {
  // One node fails both: the histogram names PodTopologySpread only (the first failing plugin).
  NodeView only = Node("n1", "a");
  ClusterSnapshot one;
  one.UpsertNode(only);
  PodSpecView web0 = Pod("web-0", {{"app", "web"}});
  one.UpsertPod(Bound(web0, "n1"));
  PodSpecView pod = Pod("web-1", {{"app", "web"}});
  auto affinity = std::make_shared<PodAffinity>();
  affinity->required_anti_affinity = {Term("app=web", "kubernetes.io/hostname")};
  pod.pod_affinity = affinity;
  TopologySpreadConstraint spread;
  spread.topology_key = "kubernetes.io/hostname";
  spread.selector = *shim::LabelSelector::Parse("app=web");
  spread.min_domains = 2;  // one domain < 2: minimum 0, skew 2 > 1
  pod.topology_spread = {spread};
  PodDecision d = one.SchedulePod(pod);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().Message(), "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints.");
}

}  // namespace
}  // namespace berth::reconcile::placement
