#include "reconcile/resourcepolicy/cost_annotations.h"

#include <gtest/gtest.h>

namespace berth::reconcile::resourcepolicy {
namespace {

using Kind = CostAnnotationDecision::Kind;

TEST(CostAnnotationsTest, SetsCostAndMarkerOnAnUnannotatedMatchedPod) {
  auto d = DecideCostAnnotations("rp", "p", {}, 42, false);
  EXPECT_EQ(d.kind, Kind::kSet);
  EXPECT_EQ(d.cost, "42");
  EXPECT_EQ(CostMergePatch(d, "rp"),
            R"({"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"42","berth.dev/deletion-cost-policy":"rp"}}})");
}

TEST(CostAnnotationsTest, WritesOnlyOnChange) {
  EXPECT_EQ(DecideCostAnnotations("rp", "p", {"42", "rp"}, 42, false).kind, Kind::kUnchanged);
  auto d = DecideCostAnnotations("rp", "p", {"41", "rp"}, -7, false);
  EXPECT_EQ(d.kind, Kind::kSet);
  EXPECT_EQ(d.cost, "-7");
  // The marker without a cost (someone removed the cost): written again.
  EXPECT_EQ(DecideCostAnnotations("rp", "p", {std::nullopt, "rp"}, 3, false).kind, Kind::kSet);
}

TEST(CostAnnotationsTest, NeverOverwritesAUserCost) {
  auto d = DecideCostAnnotations("rp", "p", {"100", std::nullopt}, 5, false);
  EXPECT_EQ(d.kind, Kind::kUserOwned);
  EXPECT_TRUE(d.event_message.empty());
  d = DecideCostAnnotations("rp", "web-1", {"+100", std::nullopt}, 5, false);
  EXPECT_EQ(d.kind, Kind::kUserOwned);
  EXPECT_EQ(d.event_message,
            "pod web-1 has controller.kubernetes.io/pod-deletion-cost \"+100\", which is not an int32; berth leaves "
            "it and sets no cost");
  for (const char* bad : {"", "007", "abc", "2147483648"}) {
    EXPECT_FALSE(DecideCostAnnotations("rp", "p", {bad, std::nullopt}, 5, false).event_message.empty()) << bad;
  }
  // Not matched any more: a user cost stays untouched too.
  EXPECT_EQ(DecideCostAnnotations("rp", "p", {"100", std::nullopt}, std::nullopt, false).kind, Kind::kUnchanged);
}

TEST(CostAnnotationsTest, RemovesItsAnnotationsWhenThePolicyNoLongerWantsThePod) {
  auto d = DecideCostAnnotations("rp", "p", {"42", "rp"}, std::nullopt, false);
  EXPECT_EQ(d.kind, Kind::kRemove);
  EXPECT_EQ(CostMergePatch(d, "rp"),
            R"({"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":null,"berth.dev/deletion-cost-policy":null}}})");
  // Another policy's marker: not ours to remove.
  EXPECT_EQ(DecideCostAnnotations("rp", "p", {"42", "other"}, std::nullopt, true).kind, Kind::kUnchanged);
}

TEST(CostAnnotationsTest, AnotherLivePolicysPodIsLeftToItAStaleMarkerIsTakenOver) {
  EXPECT_EQ(DecideCostAnnotations("rp", "p", {"42", "other"}, 5, true).kind, Kind::kOtherPolicy);
  auto d = DecideCostAnnotations("rp", "p", {"42", "gone"}, 5, false);
  EXPECT_EQ(d.kind, Kind::kSet);
  EXPECT_EQ(d.cost, "5");
  // A marker with a cost that is not an int32 (edited by hand) is still ours: rewritten.
  d = DecideCostAnnotations("rp", "p", {"x", "rp"}, 5, false);
  EXPECT_EQ(d.kind, Kind::kSet);
}

}  // namespace
}  // namespace berth::reconcile::resourcepolicy
