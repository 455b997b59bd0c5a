// Issue 13: a reservation pinned by template nodeName that cannot go there is reported in
// koordinator's words, while a pod keeps kube-scheduler's NodeName wording.
#include <gtest/gtest.h>

#include "reconcile/placement/filters.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

NodeView Node(std::string name) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", 4000}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Template(std::string node, int64_t milli_cpu) {
  PodSpecView t;
  t.name = "r";
  t.uid = "r-uid";
  t.node_name = std::move(node);
  t.requests["cpu"] = milli_cpu;
  return t;
}

TEST(ReservationWording, ATemplateNodeNameMismatchUsesKoordinatorsWording) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1"));
  snap.UpsertNode(Node("n2"));
  snap.UpsertNode(Node("n3"));
  ReservationDecision d = snap.PlaceReservation(Template("n1", 8000), false);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match the nodeName specified by "
            "reservation.");
  // A pod pinned the same way keeps kube-scheduler's NodeName plugin wording.
  PodSpecView pod = Template("n1", 8000);
  pod.namespace_name = "default";
  PodDecision p = snap.SchedulePod(pod);
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().Message().find(std::string(kReasonNodeName)), std::string::npos) << p.error().Message();
}

}  // namespace
}  // namespace berth::reconcile::placement
