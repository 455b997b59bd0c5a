// Tests for reconcile/placement/owners.h: koordinator's owner matching and allocatability.
#include "reconcile/placement/owners.h"

#include <gtest/gtest.h>

namespace berth::reconcile::placement {
namespace {

PodSpecView Pod() {
  PodSpecView pod;
  pod.namespace_name = "default";
  pod.name = "web-0";
  pod.uid = "pod-uid";
  pod.labels = {{"app", "web"}, {"tier", "front"}};
  pod.owner_references = {{"apps/v1", "ReplicaSet", "web-rs", "rs-uid", true}};
  return pod;
}

shim::LabelSelector Selector(std::string_view text) { return *shim::LabelSelector::Parse(text); }

TEST(ObjectOwner, OnlyNonEmptyFieldsCount) {
  PodSpecView pod = Pod();
  EXPECT_TRUE(MatchesObjectOwner(pod, {"pod-uid", "", "", ""}));
  EXPECT_TRUE(MatchesObjectOwner(pod, {"", "web-0", "default", "v1"}));
  EXPECT_FALSE(MatchesObjectOwner(pod, {"", "web-0", "other", ""}));
  EXPECT_FALSE(MatchesObjectOwner(pod, {"other-uid", "web-0", "", ""}));
  EXPECT_FALSE(MatchesObjectOwner(pod, {"", "web-0", "", "apps/v1"}));
}

TEST(ControllerOwner, AnyOwnerReferenceAgreeingOnAllSetFieldsMatches) {
  PodSpecView pod = Pod();
  pod.owner_references.push_back({"batch/v1", "Job", "job-1", "job-uid", false});
  EXPECT_TRUE(MatchesControllerOwner(pod, {"apps/v1", "ReplicaSet", "web-rs", "rs-uid", {}, ""}));
  EXPECT_TRUE(MatchesControllerOwner(pod, {"", "Job", "job-1", "", false, ""}));
  EXPECT_FALSE(MatchesControllerOwner(pod, {"", "Job", "job-1", "", true, ""}));
  EXPECT_FALSE(MatchesControllerOwner(pod, {"", "Job", "web-rs", "", {}, ""}));
  EXPECT_TRUE(MatchesControllerOwner(pod, {"", "", "", "rs-uid", true, "default"}));
  EXPECT_FALSE(MatchesControllerOwner(pod, {"", "", "", "rs-uid", true, "kube-system"}));
  PodSpecView orphan = Pod();
  orphan.owner_references.clear();
  EXPECT_FALSE(MatchesControllerOwner(orphan, {"", "", "", "rs-uid", {}, ""}));
}

TEST(ReservationOwner, FieldsInsideOneOwnerAreAnded) {
  PodSpecView pod = Pod();
  ReservationOwner owner;
  owner.controller = ControllerOwner{"", "ReplicaSet", "web-rs", "", {}, ""};
  owner.label_selector = Selector("app=web");
  EXPECT_TRUE(MatchesOwner(pod, owner));
  owner.label_selector = Selector("app=db");
  EXPECT_FALSE(MatchesOwner(pod, owner));
  owner.label_selector.reset();
  owner.object = ObjectOwner{"", "web-1", "", ""};
  EXPECT_FALSE(MatchesOwner(pod, owner));
}

TEST(ReservationOwner, OwnersAreOred) {
  PodSpecView pod = Pod();
  ReservationOwner a;
  a.object = ObjectOwner{"someone-else", "", "", ""};
  ReservationOwner b;
  b.label_selector = Selector("tier in (front,back)");
  EXPECT_FALSE(MatchesOwners(pod, {a}));
  EXPECT_TRUE(MatchesOwners(pod, {a, b}));
  EXPECT_FALSE(MatchesOwners(pod, {}));
  // koordinator: an owner with no fields does not restrict.
  EXPECT_TRUE(MatchesOwners(pod, {ReservationOwner{}}));
  ReservationOwner nothing;
  nothing.label_selector = shim::LabelSelector::Nothing();
  EXPECT_FALSE(MatchesOwners(pod, {nothing}));
}

ReservationView Reservation() {
  ReservationView r;
  r.name = "r1";
  r.uid = "r1-uid";
  r.phase = Phase::kAvailable;
  r.node_name = "n1";
  ReservationOwner owner;
  owner.label_selector = Selector("app=web");
  r.owners = {owner};
  return r;
}

TEST(CanAllocate, NeedsAvailablePlacedSchedulableAndAMatchingOwner) {
  PodSpecView pod = Pod();
  ReservationView r = Reservation();
  EXPECT_TRUE(CanAllocate(pod, r, false));
  r.phase = Phase::kWaiting;
  EXPECT_FALSE(CanAllocate(pod, r, false));
  r = Reservation();
  r.node_name.clear();
  EXPECT_FALSE(CanAllocate(pod, r, false));
  r = Reservation();
  r.unschedulable = true;
  EXPECT_FALSE(CanAllocate(pod, r, false));
  r = Reservation();
  pod.labels["app"] = "db";
  EXPECT_FALSE(CanAllocate(pod, r, false));
  pod = Pod();
  pod.reservation_ignored = true;
  EXPECT_FALSE(CanAllocate(pod, r, false));
}

TEST(CanAllocate, AllocateOnceWithAnOwnerIsTaken) {
  PodSpecView pod = Pod();
  ReservationView r = Reservation();
  EXPECT_FALSE(CanAllocate(pod, r, true));
  r.allocate_once = false;
  EXPECT_TRUE(CanAllocate(pod, r, true));
}

TEST(CanAllocate, ReservationTaintsNeedPodTolerations) {
  PodSpecView pod = Pod();
  ReservationView r = Reservation();
  r.taints = {{"paused", "yes", "NoSchedule"}};
  EXPECT_FALSE(CanAllocate(pod, r, false));
  pod.tolerations = {{"paused", "Equal", "yes", ""}};
  EXPECT_TRUE(CanAllocate(pod, r, false));
  r.taints = {{"soft", "", "PreferNoSchedule"}};
  EXPECT_TRUE(CanAllocate(Pod(), r, false));
  EXPECT_EQ(ParseAllocatePolicy("Restricted"), AllocatePolicy::kRestricted);
  EXPECT_EQ(ParseAllocatePolicy(""), AllocatePolicy::kAligned);
  EXPECT_EQ(ParseAllocatePolicy("Default"), AllocatePolicy::kAligned);
}

}  // namespace
}  // namespace berth::reconcile::placement
