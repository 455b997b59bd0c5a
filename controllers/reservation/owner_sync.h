// controllers/reservation/owner_sync.h
//
// Coalescing of owner-accounting status writes. Every bind into a reservation changes its
// status.currentOwners/allocated; writing each change costs a status update, a watch event to
// every informer and a reconcile, which doubled the CPU per scheduled pod in
// bench/scheduler_driver. OwnerSyncLimiter lets the first owner-only write of a reservation go out
// at once and holds later ones until `interval` has passed since the last write, so a burst of
// binds becomes one write per interval carrying all of them (as the EndpointSlice controller's
// batch period does). Only owner-only changes are held: phase transitions, conditions, expiry and
// every Event keep their exact timing.
// Thread-safety: OwnerSyncLimiter is safe to call from any worker.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "reconcile/reservation/types.h"

namespace berth::controllers {

// OnlyOwnersChanged: `after` differs from `before` and only in currentOwners/allocated.
bool OnlyOwnersChanged(const reconcile::ReservationStatus& before, const reconcile::ReservationStatus& after);

class OwnerSyncLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  // interval <= 0 disables coalescing (Hold always returns nullopt).
  explicit OwnerSyncLimiter(std::chrono::nanoseconds interval) : interval_(interval) {}

  // Hold: how long an owner-only write for `uid` must wait at `now`; nullopt means write now.
  std::optional<std::chrono::nanoseconds> Hold(const std::string& uid, Clock::time_point now);
  // Wrote records an owner-only write of `uid` at `now` (starts its interval).
  void Wrote(const std::string& uid, Clock::time_point now);
  // Forget drops `uid` (the reservation is gone).
  void Forget(const std::string& uid);
  // Size is the number of reservations tracked (for tests).
  size_t Size() const;

 private:
  const std::chrono::nanoseconds interval_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Clock::time_point> last_write_;
};

}  // namespace berth::controllers
