// Tests for ClusterSnapshot::EvaluateOnNodes (the kube-scheduler extender's batch decision): it
// answers exactly what SchedulePod pinned to each node answers, and gives each failing node its
// own reasons.
#include <gtest/gtest.h>

#include "reconcile/placement/exact_match.h"
#include "reconcile/placement/filters.h"
#include "reconcile/placement/node_ports.h"
#include "reconcile/placement/reservation_affinity.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;  // milli-bytes
constexpr int64_t kCore = 1000;

NodeView Node(std::string name, int64_t cores, int64_t pods = 110) {
  NodeView n;
  n.name = std::move(name);
  n.labels = {{"kubernetes.io/hostname", n.name}};
  n.allocatable = {{"cpu", cores * kCore}, {"memory", 16 * kGi}, {"pods", pods * 1000}};
  return n;
}

PodSpecView Pod(std::string name, int64_t milli_cpu, LabelMap labels = {}) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = std::move(labels);
  p.requests = {{"cpu", milli_cpu}, {"memory", kGi}};
  return p;
}

ReservationView Reservation(std::string name, std::string node, int64_t milli_cpu,
                            AllocatePolicy policy = AllocatePolicy::kAligned, LabelMap labels = {}) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = {{"cpu", milli_cpu}};
  r.allocate_once = false;
  r.allocate_policy = policy;
  r.labels = std::move(labels);
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=owner");
  r.owners = {owner};
  return r;
}

std::vector<std::string_view> Views(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

// The cluster: every filter has a node that fails it.
class EvaluateOnNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    snap_.UpsertNode(Node("plain", 8));
    NodeView tainted = Node("tainted", 8);
    tainted.taints = {{"dedicated", "gpu", "NoSchedule"}};
    snap_.UpsertNode(tainted);
    NodeView cordoned = Node("cordoned", 8);
    cordoned.unschedulable = true;
    snap_.UpsertNode(cordoned);
    NodeView zoned = Node("zoned", 8);
    zoned.labels["zone"] = "b";
    snap_.UpsertNode(zoned);
    snap_.UpsertNode(Node("small", 1));
    snap_.UpsertNode(Node("full", 8, /*pods=*/1));
    PodSpecView resident = Pod("resident", 100);
    resident.node_name = "full";
    snap_.UpsertPod(resident);
    snap_.UpsertNode(Node("ported", 8));
    PodSpecView web = Pod("web", 100);
    web.node_name = "ported";
    web.host_ports = {{"TCP", "0.0.0.0", 8080}};
    snap_.UpsertPod(web);
    // A reservation with room (Aligned), one too small for a 3-cpu owner (Restricted), and a
    // reservation that holds most of its node against non-owners.
    snap_.UpsertNode(Node("res-room", 8));
    snap_.UpsertReservation(Reservation("room", "res-room", 4 * kCore, AllocatePolicy::kAligned, {{"team", "a"}}));
    snap_.UpsertNode(Node("res-tight", 8));
    snap_.UpsertReservation(Reservation("tight", "res-tight", 1 * kCore, AllocatePolicy::kRestricted));
    snap_.UpsertNode(Node("res-held", 4));
    snap_.UpsertReservation(Reservation("held", "res-held", 3500, AllocatePolicy::kAligned, {{"team", "b"}}));
    snap_.UpsertNode(Node("gone", 8));
    snap_.RemoveNode("gone");
  }

  // ExpectSameAsPinned: for every node, fits and the nominated reservation equal SchedulePod's
  // with the pod pinned there.
  void ExpectSameAsPinned(const PodSpecView& pod) {
    auto evaluations = snap_.EvaluateOnNodes(pod, Views(names_));
    ASSERT_EQ(evaluations.size(), names_.size());
    for (size_t i = 0; i < names_.size(); ++i) {
      PodSpecView pinned = pod;
      pinned.node_name = names_[i];
      PodDecision decision = snap_.SchedulePod(pinned);
      SCOPED_TRACE(pod.name + " on " + names_[i]);
      EXPECT_EQ(evaluations[i].fits, decision.has_value());
      if (decision) EXPECT_EQ(evaluations[i].reservation, decision->reservation);
      if (!evaluations[i].fits && evaluations[i].known) {
        // The node's own reasons are among those of the pinned decision (which adds the other
        // nodes' NodeName reasons), each counted once.
        for (const auto& [reason, count] : evaluations[i].error.reasons) {
          EXPECT_EQ(count, 1) << reason;
          ASSERT_FALSE(decision.has_value());
          EXPECT_TRUE(decision.error().reasons.contains(reason) || !decision.error().error.empty()) << reason;
        }
      }
    }
  }

  std::map<std::string, std::string> Messages(const PodSpecView& pod) {
    std::map<std::string, std::string> out;
    auto evaluations = snap_.EvaluateOnNodes(pod, Views(names_));
    for (size_t i = 0; i < names_.size(); ++i) {
      const auto& e = evaluations[i];
      if (!e.known) {
        out[names_[i]] = "unknown";
      } else if (e.fits) {
        out[names_[i]] = e.reservation ? "fits through " + e.reservation->name : "fits";
      } else {
        EXPECT_EQ(e.error.num_all_nodes, 1);
        out[names_[i]] = e.error.Message();
      }
    }
    return out;
  }

  ClusterSnapshot snap_;
  std::vector<std::string> names_ = {"plain",    "tainted",   "cordoned", "zoned",    "small", "full",
                                     "ported",   "res-room",  "res-tight", "res-held", "gone",  "ghost"};
};

TEST_F(EvaluateOnNodesTest, NonOwnerPodGetsEachNodesOwnReason) {
  PodSpecView pod = Pod("plain-pod", 2 * kCore);
  pod.host_ports = {{"TCP", "0.0.0.0", 8080}};
  ExpectSameAsPinned(pod);
  auto m = Messages(pod);
  EXPECT_EQ(m["plain"], "fits");
  EXPECT_EQ(m["tainted"], "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}.");
  EXPECT_EQ(m["cordoned"], "0/1 nodes are available: 1 node(s) were unschedulable.");
  EXPECT_EQ(m["zoned"], "fits");
  EXPECT_EQ(m["small"], "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(m["full"], "0/1 nodes are available: 1 Too many pods.");
  EXPECT_EQ(m["ported"], "0/1 nodes are available: 1 " + std::string(kReasonNodePorts) + ".");
  EXPECT_EQ(m["res-room"], "fits");  // 8 - 4 held = 4 free
  // 4 cpu, 3.5 held for the owners: 500m free for others.
  EXPECT_EQ(m["res-held"], "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(m["gone"], "unknown");
  EXPECT_EQ(m["ghost"], "unknown");
}

TEST_F(EvaluateOnNodesTest, NodeAffinityAndTheOwnPinAreIgnoredPerNode) {
  PodSpecView pod = Pod("selective", 100);
  pod.node_selector = {{"zone", "b"}};
  pod.node_name = "plain";  // kube-scheduler never sends a pinned pod; the pin plays no part
  auto m = Messages(pod);
  EXPECT_EQ(m["zoned"], "fits");
  EXPECT_EQ(m["plain"], "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.");
  pod.node_name.clear();
  ExpectSameAsPinned(pod);
}

TEST_F(EvaluateOnNodesTest, OwnerPodFitsThroughItsReservationsOrIsBlockedByThem) {
  PodSpecView owner = Pod("owner", 3 * kCore, {{"app", "owner"}});
  ExpectSameAsPinned(owner);
  auto m = Messages(owner);
  EXPECT_EQ(m["res-room"], "fits through room");
  EXPECT_EQ(m["res-held"], "fits through held");
  // Restricted 1 cpu cannot take a 3-cpu pod and the pod must go through it on that node.
  EXPECT_EQ(m["res-tight"], "0/1 nodes are available: 1 " + std::string(kReasonReservationInsufficient) + ".");
  EXPECT_EQ(m["plain"], "fits");

  auto evaluations = snap_.EvaluateOnNodes(owner, Views(names_));
  // Scores are the scheduler's (LeastAllocated, holds counted): the emptier plain node scores
  // above the node whose reservation holds 3.5 of 4 cpu.
  EXPECT_GT(evaluations[0].score, evaluations[9].score);
}

TEST_F(EvaluateOnNodesTest, ReservationAffinityFailsNodesWithoutASelectedReservation) {
  PodSpecView owner = Pod("picky", 1 * kCore, {{"app", "owner"}});
  auto affinity = ParseReservationAffinity(R"({"reservationSelector":{"team":"a"}})");
  ASSERT_TRUE(affinity.has_value()) << affinity.error().message;
  owner.reservation_affinity = std::make_shared<ReservationAffinity>(*affinity);
  ExpectSameAsPinned(owner);
  auto m = Messages(owner);
  EXPECT_EQ(m["res-room"], "fits through room");
  EXPECT_NE(m["plain"].find(kReasonReservationAffinity), std::string::npos) << m["plain"];
  // res-held's reservation is the pod's but not selected: the PostFilter diagnosis says so.
  EXPECT_NE(m["res-held"].find("1 Reservation(s) didn't match affinity rules"), std::string::npos) << m["res-held"];
}

TEST_F(EvaluateOnNodesTest, PodLevelErrorsAnswerEveryKnownNode) {
  PodSpecView pod = Pod("broken", 100);
  pod.request_errors = {"spec.containers[0].resources.requests.cpu: invalid quantity \"abc\""};
  auto evaluations = snap_.EvaluateOnNodes(pod, Views(names_));
  for (size_t i = 0; i < names_.size(); ++i) {
    const bool known = names_[i] != "gone" && names_[i] != "ghost";
    EXPECT_EQ(evaluations[i].known, known) << names_[i];
    EXPECT_FALSE(evaluations[i].fits) << names_[i];
    if (known) {
      EXPECT_EQ(evaluations[i].error.error, pod.request_errors[0]) << names_[i];
    }
  }
  PodSpecView annotated = Pod("annotated", 100);
  annotated.exact_match_error = "not JSON";
  EXPECT_EQ(snap_.EvaluateOnNodes(annotated, {"plain"})[0].error.error,
            "invalid annotation " + std::string(kAnnotationExactMatchReservation) + ": not JSON");
}

TEST_F(EvaluateOnNodesTest, NodesComeBackInTheRequestsOrderWithDuplicates) {
  auto evaluations = snap_.EvaluateOnNodes(Pod("p", 100), {"small", "ghost", "small", "plain"});
  ASSERT_EQ(evaluations.size(), 4u);
  EXPECT_TRUE(evaluations[0].fits);
  EXPECT_FALSE(evaluations[1].known);
  EXPECT_TRUE(evaluations[2].fits);
  EXPECT_TRUE(evaluations[3].fits);
  EXPECT_TRUE(snap_.EvaluateOnNodes(Pod("p", 100), {}).empty());
}

TEST(NodeNameIndex, FindsEveryNodeAfterManyGrowths) {
  ClusterSnapshot snap;
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) {
    names.push_back("node-" + std::to_string(i));
    snap.UpsertNode(Node(names.back(), 1));
  }
  auto evaluations = snap.EvaluateOnNodes(Pod("p", 100), Views(names));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_TRUE(evaluations[i].fits) << names[i];
  EXPECT_FALSE(snap.EvaluateOnNodes(Pod("p", 100), {"node-3000"})[0].known);
  EXPECT_EQ(snap.NodeCount(), 3000);
}

}  // namespace
}  // namespace berth::reconcile::placement
