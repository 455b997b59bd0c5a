#include "reconcile/resourcepolicy/deletion_cost.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "clientgo-shim/api/deletion_cost.h"

namespace berth::reconcile::resourcepolicy {
namespace {

using std::chrono::seconds;

shim::TimePoint At(int s) { return shim::TimePoint{} + seconds(1'700'000'000 + s); }

CostPod Pod(const std::string& name, std::optional<size_t> unit, int created, std::string group = "") {
  return CostPod{name, unit, std::move(group), At(created)};
}

TEST(DeletionCostTest, TheUserStoryOrder) {
  // on-demand: priority 10, maxCount 4; spot: priority 1.
  std::vector<CostUnit> units{{10, 4}, {1, std::nullopt}};
  std::vector<CostPod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(Pod("od-" + std::to_string(i), 0, i));
  for (int i = 0; i < 6; ++i) pods.push_back(Pod("spot-" + std::to_string(i), 1, 10 + i));
  pods.push_back(Pod("pending", std::nullopt, 50));
  auto costs = ComputeDeletionCosts(units, pods);
  // Exact values of the documented formula (W = 10^7): spot is level 0, on-demand level 1.
  EXPECT_EQ(costs[0], 19'999'999);  // oldest on-demand pod
  EXPECT_EQ(costs[3], 19'999'996);
  EXPECT_EQ(costs[4], 9'999'999);   // oldest spot pod
  EXPECT_EQ(costs[9], 9'999'994);
  EXPECT_EQ(costs[10], -1);         // on no unit
  for (int spot = 4; spot < 10; ++spot) {
    for (int od = 0; od < 4; ++od) EXPECT_LT(costs[spot], costs[od]);
    EXPECT_GT(costs[spot], costs[10]);
  }
}

TEST(DeletionCostTest, PodsBeyondMaxCountGoBeforeTheUnitsOthersButAfterLowerUnits) {
  std::vector<CostUnit> units{{5, 2}, {1, std::nullopt}};
  std::vector<CostPod> pods{Pod("a", 0, 1), Pod("b", 0, 2), Pod("c", 0, 3), Pod("low", 1, 0)};
  auto costs = ComputeDeletionCosts(units, pods);
  EXPECT_EQ(costs[2], 10'000'000 + 4'999'999);  // beyond maxCount: the lower half of its band
  EXPECT_LT(costs[2], costs[1]);
  EXPECT_LT(costs[1], costs[0]);
  EXPECT_GT(costs[2], costs[3]);  // still above the lower-priority unit
}

TEST(DeletionCostTest, MaxCountIsPerMatchLabelKeysGroup) {
  std::vector<CostUnit> units{{1, 1}};
  std::vector<CostPod> pods{Pod("a1", 0, 1, "rs=a"), Pod("b1", 0, 2, "rs=b"), Pod("a2", 0, 3, "rs=a")};
  auto costs = ComputeDeletionCosts(units, pods);
  EXPECT_GE(costs[1], 5'000'000);  // b1 is within its group's maxCount although newer than a1
  EXPECT_LT(costs[2], 5'000'000);  // a2 is beyond
}

TEST(DeletionCostTest, EqualPrioritiesShareABand) {
  std::vector<CostUnit> units{{3, std::nullopt}, {3, std::nullopt}};
  auto costs = ComputeDeletionCosts(units, {Pod("x", 0, 5), Pod("y", 1, 1)});
  EXPECT_EQ(costs[1], 9'999'999);
  EXPECT_EQ(costs[0], 9'999'998);
}

TEST(DeletionCostTest, ClampingKeepsBandsApart) {
  std::vector<CostUnit> units{{1, 2}, {2, std::nullopt}};
  std::vector<CostPod> pods;
  for (int i = 0; i < 20; ++i) pods.push_back(Pod("p" + std::to_string(i), 0, i));
  pods.push_back(Pod("high", 1, 0));
  pods.push_back(Pod("none", std::nullopt, 0));
  auto costs = ComputeDeletionCosts(units, pods, /*band_width=*/8);
  // Band of unit 0 is [0, 7]: within-maxCount pods in [4, 7], the 18 beyond it in [0, 3].
  EXPECT_EQ(costs[0], 7);
  EXPECT_EQ(costs[1], 6);
  EXPECT_EQ(costs[2], 3);
  EXPECT_EQ(costs[19], 0);
  EXPECT_EQ(costs[20], 15);
  EXPECT_EQ(costs[21], -1);
}

TEST(DeletionCostTest, ManyPriorityLevelsStillFitInt32) {
  std::vector<CostUnit> units;
  for (int i = 0; i < 1000; ++i) units.push_back({i * 2'000'000, std::nullopt});
  std::vector<CostPod> pods{Pod("none", std::nullopt, 0), Pod("lowest", 0, 0), Pod("highest", 999, 0)};
  auto costs = ComputeDeletionCosts(units, pods);
  EXPECT_EQ(costs[0], INT32_MIN + 4'290'676 - 1);  // W = 2^32 / 1001 = 4,290,676; bands from INT32_MIN
  EXPECT_EQ(costs[2], INT32_MIN + 1001LL * 4'290'676 - 1);
  EXPECT_LT(costs[0], costs[1]);
  EXPECT_LT(costs[1], costs[2]);
}

// --- property tests over random units, priorities and counts ---------------------------------

struct Case {
  std::vector<CostUnit> units;
  std::vector<CostPod> pods;
};

Case RandomCase(std::mt19937& rng, int64_t width) {
  Case c;
  int n_units = std::uniform_int_distribution<int>(0, 6)(rng);
  std::uniform_int_distribution<int32_t> priority(0, rng() % 2 ? 3 : INT32_MAX);
  for (int i = 0; i < n_units; ++i) {
    std::optional<int32_t> max_count;
    if (rng() % 2) max_count = std::uniform_int_distribution<int32_t>(0, 8)(rng);
    c.units.push_back({priority(rng), max_count});
  }
  int n_pods = std::uniform_int_distribution<int>(0, width < 100 ? 60 : 40)(rng);
  for (int i = 0; i < n_pods; ++i) {
    std::optional<size_t> unit;
    if (n_units > 0 && rng() % 5 != 0) unit = rng() % n_units;
    c.pods.push_back(Pod("pod-" + std::to_string(i), unit, static_cast<int>(rng() % 20), rng() % 2 ? "g1" : "g2"));
  }
  return c;
}

// Band: 0 for no unit, else 1 + the number of distinct priorities below the unit's.
int Band(const Case& c, const CostPod& p) {
  if (!p.unit) return 0;
  int below = 0;
  std::vector<int32_t> seen;
  for (const auto& u : c.units) {
    if (u.priority < c.units[*p.unit].priority && std::find(seen.begin(), seen.end(), u.priority) == seen.end()) {
      seen.push_back(u.priority);
      ++below;
    }
  }
  return 1 + below;
}

// Beyond maxCount, computed independently: older pods of the same unit and group outnumber maxCount.
bool Beyond(const Case& c, const CostPod& p) {
  if (!p.unit || !c.units[*p.unit].max_count) return false;
  int older = 0;
  for (const auto& q : c.pods) {
    if (q.unit == p.unit && q.group == p.group && std::tie(q.created, q.name) < std::tie(p.created, p.name)) ++older;
  }
  return older >= *c.units[*p.unit].max_count;
}

void CheckInvariants(const Case& c, const std::vector<int32_t>& costs, bool exact_inside_half) {
  ASSERT_EQ(costs.size(), c.pods.size());
  for (size_t i = 0; i < c.pods.size(); ++i) {
    // Valid, canonical int32 decimals.
    std::string text = shim::FormatPodDeletionCost(costs[i]);
    ASSERT_EQ(shim::ParsePodDeletionCost(text).value(), costs[i]) << text;
    for (size_t j = 0; j < c.pods.size(); ++j) {
      const CostPod &p = c.pods[i], &q = c.pods[j];
      int bp = Band(c, p), bq = Band(c, q);
      if (bp != bq) {
        ASSERT_EQ(bp < bq, costs[i] < costs[j]) << p.name << " vs " << q.name;  // between units: strict
        continue;
      }
      bool ep = Beyond(c, p), eq = Beyond(c, q);
      if (ep != eq) {
        ASSERT_EQ(ep, costs[i] < costs[j]) << p.name << " vs " << q.name;  // beyond maxCount first
        continue;
      }
      bool p_newer = std::tie(p.created, p.name) > std::tie(q.created, q.name);
      if (p_newer) {
        if (exact_inside_half) {
          ASSERT_LT(costs[i], costs[j]) << p.name << " vs " << q.name;  // the newest first
        } else {
          ASSERT_LE(costs[i], costs[j]) << p.name << " vs " << q.name;  // clamped: never reversed
        }
      }
    }
  }
}

TEST(DeletionCostPropertyTest, OrderingAndInt32BoundsOverRandomPolicies) {
  std::mt19937 rng(20261126);
  for (int iteration = 0; iteration < 400; ++iteration) {
    Case c = RandomCase(rng, kDefaultBandWidth);
    CheckInvariants(c, ComputeDeletionCosts(c.units, c.pods), true);
    if (HasFatalFailure()) return;
  }
}

TEST(DeletionCostPropertyTest, WithTinyBandsTheClampNeverCrossesUnits) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 400; ++iteration) {
    Case c = RandomCase(rng, 4);
    CheckInvariants(c, ComputeDeletionCosts(c.units, c.pods, 4), false);
    if (HasFatalFailure()) return;
  }
}

TEST(DeletionCostPropertyTest, ANewestPodLeavesOtherCostsAloneWhenNoMaxCountIsReached) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 300; ++iteration) {
    Case c = RandomCase(rng, kDefaultBandWidth);
    for (auto& u : c.units) u.max_count.reset();
    if (c.units.empty()) continue;
    auto before = ComputeDeletionCosts(c.units, c.pods);
    c.pods.push_back(Pod("newest", rng() % c.units.size(), 1000));
    auto after = ComputeDeletionCosts(c.units, c.pods);
    after.pop_back();
    ASSERT_EQ(before, after);
  }
}

TEST(DeletionCostPropertyTest, SwappingTwoPrioritiesChangesOnlyThoseUnitsPods) {
  std::mt19937 rng(5);
  for (int iteration = 0; iteration < 300; ++iteration) {
    Case c = RandomCase(rng, kDefaultBandWidth);
    if (c.units.size() < 2) continue;
    auto before = ComputeDeletionCosts(c.units, c.pods);
    int32_t p0 = c.units[0].priority, p1 = c.units[1].priority;
    std::swap(c.units[0].priority, c.units[1].priority);
    auto after = ComputeDeletionCosts(c.units, c.pods);
    for (size_t i = 0; i < c.pods.size(); ++i) {
      // Pods of other units keep their cost unless they share a band with a swapped unit.
      if (!c.pods[i].unit) {
        ASSERT_EQ(before[i], after[i]) << c.pods[i].name;
        continue;
      }
      int32_t priority = c.units[*c.pods[i].unit].priority;
      if (*c.pods[i].unit > 1 && priority != p0 && priority != p1) ASSERT_EQ(before[i], after[i]) << c.pods[i].name;
    }
  }
}

}  // namespace
}  // namespace berth::reconcile::resourcepolicy
