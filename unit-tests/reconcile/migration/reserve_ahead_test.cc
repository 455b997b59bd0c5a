#include "reconcile/migration/reserve_ahead.h"

#include <gtest/gtest.h>

namespace berth::reconcile::migration {
namespace {

using Names = std::vector<std::string>;

ReserveAheadInput Line(int64_t in_flight, int64_t reserved, std::vector<HeldInLine> line) {
  return ReserveAheadInput{in_flight, reserved, std::move(line)};
}

TEST(ReserveAheadTest, NothingIsReservedAheadForAWorkloadWithNoWaveUnderWay) {
  EXPECT_EQ(JobsToReserveAhead(Line(0, 0, {{"a", false}, {"b", false}})), Names{});
}

TEST(ReserveAheadTest, TheFirstInLineReserveUpToTheWaveUnderWay) {
  EXPECT_EQ(JobsToReserveAhead(Line(2, 0, {{"a", false}, {"b", false}, {"c", false}})), (Names{"a", "b"}));
  EXPECT_EQ(JobsToReserveAhead(Line(5, 0, {{"a", false}, {"b", false}})), (Names{"a", "b"}))
      << "fewer held than the wave: all of them";
}

TEST(ReserveAheadTest, JobsHoldingAReservationCountAgainstTheWave) {
  EXPECT_EQ(JobsToReserveAhead(Line(3, 1, {{"a", true}, {"b", false}, {"c", false}, {"d", false}})),
            (Names{"b", "c"}));
  EXPECT_EQ(JobsToReserveAhead(Line(3, 3, {{"a", true}, {"b", true}, {"c", true}, {"d", false}})), Names{});
}

TEST(ReserveAheadTest, ReservationsHeldFurtherBackInLineStillCount) {
  // "z" (a job that fell back in line, behind jobs of lower-priority pods) holds one: only one more.
  EXPECT_EQ(JobsToReserveAhead(Line(2, 1, {{"a", false}, {"b", false}, {"z", true}})), Names{"a"});
  EXPECT_EQ(JobsToReserveAhead(Line(2, 4, {{"a", false}, {"b", false}})), Names{})
      << "more held reservations than the wave (it shrank): none more";
}

TEST(ReserveAheadTest, OnlyTheFirstWaveInLineIsConsidered) {
  // Past the first in_flight in line, nobody reserves even when there is room.
  EXPECT_EQ(JobsToReserveAhead(Line(2, 0, {{"a", true}, {"b", true}, {"c", false}})), Names{})
      << "a count lagging its line (0 held, the line shows 2): the line's reservations count";
  EXPECT_EQ(JobsToReserveAhead(Line(2, 1, {{"a", true}, {"b", false}, {"c", false}})), Names{"b"});
}

TEST(ReserveAheadTest, NegativeCountsAreTreatedAsNone) {
  EXPECT_EQ(JobsToReserveAhead(Line(-1, 0, {{"a", false}})), Names{});
  EXPECT_EQ(JobsToReserveAhead(Line(1, -3, {{"a", false}, {"b", false}})), Names{"a"});
  EXPECT_EQ(JobsToReserveAhead(Line(3, 0, {{"a", false}, {"b", false}, {"c", false}, {"d", false}})),
            (Names{"a", "b", "c"}));
}

TEST(ReserveAheadTest, AJobWhoseTurnCameLetsTheJobsAheadThatReservedAheadOnItsNodeGoFirst) {
  std::vector<AheadInLine> ahead = {
      {"a", "node-0", true, false, false},   // reserved ahead: goes first
      {"b", "node-0", false, false, false},  // no reservation: no reason to go first
      {"c", "node-1", true, false, false},   // another node: a per-node limit may hold it and not this one
      {"d", "node-0", true, true, false},    // admitted already
      {"e", "node-0", true, false, true},    // paused: it would never take the slot
      {"f", "node-0", true, false, false},
      {"g", "node-0", true, false, false},
  };
  EXPECT_EQ(ReservedAheadGoFirst(ahead, "node-0", 4), (Names{"a", "f", "g"}));
  EXPECT_EQ(ReservedAheadGoFirst(ahead, "node-0", 2), (Names{"a", "f"})) << "at most max, first in line first";
  EXPECT_EQ(ReservedAheadGoFirst(ahead, "node-1", 4), Names{"c"});
  EXPECT_EQ(ReservedAheadGoFirst(ahead, "node-2", 4), Names{}) << "none on its node: it takes its turn";
  EXPECT_EQ(ReservedAheadGoFirst({}, "node-0", 4), Names{});
}

}  // namespace
}  // namespace berth::reconcile::migration
