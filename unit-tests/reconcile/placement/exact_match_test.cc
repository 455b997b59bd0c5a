// Tests for koordinator's exact-match-reservation annotation (issue 13): parsing, the match rule,
// and its effect on which reservation an owner pod allocates.
#include "reconcile/placement/exact_match.h"

#include <gtest/gtest.h>

#include "reconcile/placement/owners.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kCore = 1000;
constexpr int64_t kGi = int64_t{1} << 30;

TEST(ParseExactMatchReservation, ReadsResourceNamesAndRejectsMalformedValues) {
  auto ok = ParseExactMatchReservation(R"({"resourceNames":["cpu","memory"]})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, (std::vector<std::string>{"cpu", "memory"}));
  auto empty = ParseExactMatchReservation("{}");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(ParseExactMatchReservation("not json").has_value());
  EXPECT_FALSE(ParseExactMatchReservation("[]").has_value());
  EXPECT_EQ(ParseExactMatchReservation(R"({"resourceNames":"cpu"})").error().message,
            "resourceNames: must be a list of strings");
  EXPECT_FALSE(ParseExactMatchReservation(R"({"resourceNames":[1]})").has_value());
}

TEST(ExactMatchesReservation, NamedResourcesMustBeEqualOthersAreFree) {
  ResourceAmounts allocatable{{"cpu", 2 * kCore}, {"memory", 4 * kGi * 1000}};
  EXPECT_TRUE(ExactMatchesReservation({{"cpu", 2 * kCore}, {"memory", 1}}, allocatable, {"cpu"}));
  EXPECT_FALSE(ExactMatchesReservation({{"cpu", 1 * kCore}}, allocatable, {"cpu"}));
  EXPECT_FALSE(ExactMatchesReservation({{"cpu", 2 * kCore}}, allocatable, {"cpu", "memory"}))
      << "the pod requests no memory, the reservation holds some";
  EXPECT_TRUE(ExactMatchesReservation({{"cpu", 2 * kCore}}, allocatable, {"cpu", "nvidia.com/gpu"}))
      << "a resource neither side has matches";
  EXPECT_TRUE(ExactMatchesReservation({{"cpu", 1}}, allocatable, {}));
}

NodeView Node(std::string name, int64_t cores) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"pods", 110 * 1000}};
  return n;
}

ReservationView Reservation(std::string name, std::string node, int64_t milli_cpu) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = {{"cpu", milli_cpu}};
  r.allocate_once = false;
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=demo");
  r.owners = {owner};
  return r;
}

PodSpecView Pod(int64_t milli_cpu, std::vector<std::string> exact) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = "p";
  p.uid = "p-uid";
  p.labels = {{"app", "demo"}};
  p.requests["cpu"] = milli_cpu;
  p.exact_match_resources = std::move(exact);
  return p;
}

TEST(ExactMatchReservation, TheOwnerAllocatesOnlyTheReservationOfExactlyItsSize) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  snap.UpsertReservation(Reservation("big", "n1", 2 * kCore));
  snap.UpsertReservation(Reservation("exact", "n2", 1 * kCore));
  EXPECT_FALSE(CanAllocate(Pod(kCore, {"cpu"}), Reservation("big", "n1", 2 * kCore), false));
  EXPECT_TRUE(CanAllocate(Pod(kCore, {"cpu"}), Reservation("exact", "n2", kCore), false));
  for (int i = 0; i < 2; ++i) {
    PodDecision d = snap.SchedulePod(Pod(kCore, {"cpu"}));
    ASSERT_TRUE(d.has_value());
    ASSERT_TRUE(d->reservation.has_value());
    EXPECT_EQ(d->reservation->name, "exact");
  }
  // Without the annotation either reservation will do.
  EXPECT_TRUE(CanAllocate(Pod(kCore, {}), Reservation("big", "n1", 2 * kCore), false));
}

TEST(ExactMatchReservation, AMalformedAnnotationMakesThePodUnschedulableNamingIt) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  PodSpecView pod = Pod(kCore, {});
  pod.exact_match_error = "resourceNames: must be a list of strings";
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().Message().find("invalid annotation scheduling.koordinator.sh/exact-match-reservation: "
                                     "resourceNames: must be a list of strings"),
            std::string::npos)
      << d.error().Message();
}

}  // namespace
}  // namespace berth::reconcile::placement
