// reconcile/migration/reserve_ahead.h
//
// Reserving a wave ahead: which held ReservationFirst jobs (Pending, an arbitration limit holding
// them back) may create their Reservation before arbitration admits them. When a wave's
// replacements turn Ready and the limits let the next jobs in, each of those would otherwise
// create its Reservation, wait for it to be scheduled and Available, and only then evict, every
// wave. A job reserved ahead evicts as soon as it is admitted (its reservation Available): capacity
// is still held before the eviction, only earlier.
//
// Bound: per workload (the pods' controller), the held jobs holding a reservation are at most as
// many as that workload's admitted, unfinished migrations (the wave under way), and they are the
// first in turn (HeldJob's order, the order held jobs are admitted in), so extra capacity held is
// at most one wave. Nothing else changes: a job reserved ahead stays Pending (its conditions say it
// waits for arbitration) and evicts only once admitted; its reservation is deleted when it fails or
// times out, as any job's unconsumed reservation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace berth::reconcile::migration {

// A held job of one workload, as reserving ahead sees it.
struct HeldInLine {
  std::string name;
  bool has_reservation = false;  // it created (or named) its reservation already
};

struct ReserveAheadInput {
  // The workload's migrations admitted and not yet ended (the wave under way); jobs admitted but
  // not yet written Running count here, not in `first_in_line`.
  int64_t in_flight = 0;
  // Its held jobs holding a reservation, wherever they are in line (a job can fall back when one
  // of a lower-priority pod arrives).
  int64_t reserved_while_held = 0;
  // Its held jobs in turn order: at least the first `in_flight` of them (more are ignored).
  std::vector<HeldInLine> first_in_line;
};

// JobsToReserveAhead: the names of the held jobs that should create their reservation now: of the
// first `in_flight` in line, those without one, as long as the workload's reserved held jobs stay
// at most `in_flight`. Empty when nothing is under way (a held job then waits for the first
// admission; nothing is reserved for a workload that is not migrating).
std::vector<std::string> JobsToReserveAhead(const ReserveAheadInput& input);

// A held job of the same workload ahead of another in line.
struct AheadInLine {
  std::string name;
  std::string node_name;         // its pod's
  bool has_reservation = false;  // reserved ahead
  bool admitted = false;         // admitted, its Running status not written yet
  bool paused = false;
};

// Arbitration's own reason while a held job yields to those (berth's, on its Arbitration condition).
inline constexpr std::string_view kReasonReservedAheadFirst = "ReservedAheadFirst";

// ReservedAheadGoFirst: a held job without a reservation, whose turn came (a slot is free, it was
// woken or rechecked), lets the jobs of its workload ahead of it in line that reserved ahead take the
// slot instead: they evict at once, it would first create and wait for its reservation. Only jobs
// on its pod's node count (the same workload, namespace and node: every arbitration limit holds them
// as it holds it, so yielding never waits for a job a limit holds and it does not); not admitted ones,
// not paused ones. Returns at most `max` of them, first in line first; empty: it takes its turn.
std::vector<std::string> ReservedAheadGoFirst(const std::vector<AheadInLine>& ahead_in_line,
                                              const std::string& node_name, size_t max);

}  // namespace berth::reconcile::migration
