// Tests for reconcile/placement/scoring.h: kube-scheduler's resource scoring formulas.
#include "reconcile/placement/scoring.h"

#include <gtest/gtest.h>

namespace berth::reconcile::placement {
namespace {

TEST(LeastAllocated, ScoresFreeShareWithIntegerDivision) {
  EXPECT_EQ(LeastRequestedScore(0, 4000), 100);
  EXPECT_EQ(LeastRequestedScore(1000, 4000), 75);
  EXPECT_EQ(LeastRequestedScore(1000, 3000), 66);
  EXPECT_EQ(LeastRequestedScore(4000, 4000), 0);
  EXPECT_EQ(LeastRequestedScore(5000, 4000), 0);
  EXPECT_EQ(LeastRequestedScore(10, 0), 0);
}

TEST(MostAllocated, ScoresUsedShareCappedAtCapacity) {
  EXPECT_EQ(MostRequestedScore(0, 4000), 0);
  EXPECT_EQ(MostRequestedScore(1000, 3000), 33);
  EXPECT_EQ(MostRequestedScore(5000, 4000), 100);
  EXPECT_EQ(MostRequestedScore(10, 0), 0);
}

TEST(NodeScore, AveragesCpuAndMemoryWithWeightOne) {
  EXPECT_EQ(NodeScore(ScoringStrategy::kLeastAllocated, 1000, 4000, 3000, 4000), (75 + 25) / 2);
  EXPECT_EQ(NodeScore(ScoringStrategy::kMostAllocated, 1000, 4000, 2000, 3000), (25 + 66) / 2);
  EXPECT_EQ(ParseScoringStrategy("MostAllocated"), ScoringStrategy::kMostAllocated);
  EXPECT_EQ(ParseScoringStrategy("LeastAllocated"), ScoringStrategy::kLeastAllocated);
  EXPECT_EQ(ParseScoringStrategy("bogus"), ScoringStrategy::kLeastAllocated);
}

}  // namespace
}  // namespace berth::reconcile::placement
