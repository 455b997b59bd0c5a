// Tests for the NodePorts filter (issue 13), after kube-scheduler's NodePorts plugin: same protocol
// and port collide when either hostIP is 0.0.0.0 or both are equal.
#include "reconcile/placement/node_ports.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

HostPort Port(int32_t port, std::string ip = "0.0.0.0", std::string protocol = "TCP") {
  return HostPort{std::move(protocol), std::move(ip), port};
}

TEST(HostPortUsage, ConflictRulesFollowKubeScheduler) {
  HostPortUsage used;
  used.Add({Port(8080, "10.0.0.1")}, +1);
  EXPECT_TRUE(used.Conflicts({Port(8080, "10.0.0.1")}));
  EXPECT_TRUE(used.Conflicts({Port(8080)})) << "0.0.0.0 collides with any address";
  EXPECT_FALSE(used.Conflicts({Port(8080, "10.0.0.2")}));
  EXPECT_FALSE(used.Conflicts({Port(8080, "10.0.0.1", "UDP")})) << "another protocol";
  EXPECT_FALSE(used.Conflicts({Port(8081, "10.0.0.1")}));
  used.Add({Port(9090)}, +1);
  EXPECT_TRUE(used.Conflicts({Port(9090, "10.0.0.7")})) << "a used 0.0.0.0 collides with every address";
  used.Add({Port(9090)}, -1);
  EXPECT_FALSE(used.Conflicts({Port(9090, "10.0.0.7")})) << "released";
  used.Add({Port(8080, "10.0.0.1")}, -1);
  EXPECT_TRUE(used.empty());
}

NodeView Node(std::string name) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", 8000}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Pod(std::string name, std::vector<HostPort> ports, std::string node = "") {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.requests["cpu"] = 100;
  p.host_ports = std::move(ports);
  p.node_name = std::move(node);
  return p;
}

TEST(NodePorts, ASecondPodWithTheSameHostPortGoesToAnotherNodeOrNowhere) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1"));
  snap.UpsertNode(Node("n2"));
  snap.UpsertPod(Pod("a", {Port(80)}, "n1"));
  PodDecision b = snap.SchedulePod(Pod("b", {Port(80)}));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->node_name, "n2");
  snap.UpsertPod(Pod("b", {Port(80)}, "n2"));
  PodDecision c = snap.SchedulePod(Pod("c", {Port(80, "127.0.0.1")}));
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().Message(),
            "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports.");
  EXPECT_TRUE(snap.SchedulePod(Pod("d", {Port(80, "0.0.0.0", "UDP")})).has_value());
  snap.RemovePod("a-uid");
  PodDecision e = snap.SchedulePod(Pod("e", {Port(80)}));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->node_name, "n1");
}

TEST(NodePorts, PortsAReservationHoldsAreFreeOnlyToItsOwners) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1"));
  ReservationView r;
  r.name = "r";
  r.uid = "r-uid";
  r.phase = Phase::kAvailable;
  r.node_name = "n1";
  r.allocatable = {{"cpu", 1000}};
  r.allocate_once = false;
  r.host_ports = {Port(443)};
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=owner");
  r.owners = {owner};
  snap.UpsertReservation(r);
  PodDecision stranger = snap.SchedulePod(Pod("stranger", {Port(443)}));
  ASSERT_FALSE(stranger.has_value());
  EXPECT_EQ(stranger.error().Message(),
            "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.");
  EXPECT_TRUE(snap.SchedulePod(Pod("other-port", {Port(444)})).has_value());
  PodSpecView own = Pod("own", {Port(443)});
  own.labels = {{"app", "owner"}};
  PodDecision d = snap.SchedulePod(own);
  ASSERT_TRUE(d.has_value()) << d.error().Message();
  ASSERT_TRUE(d->reservation.has_value());
  EXPECT_EQ(d->reservation->name, "r");
  // A second reservation with the same port cannot be placed there either.
  PodSpecView tmpl = Pod("r2", {Port(443)});
  EXPECT_FALSE(snap.PlaceReservation(tmpl, false).has_value());
  // Once the reservation is gone, the port is free for anyone.
  snap.RemoveReservation("r-uid");
  EXPECT_TRUE(snap.SchedulePod(Pod("stranger", {Port(443)})).has_value());
}

}  // namespace
}  // namespace berth::reconcile::placement
