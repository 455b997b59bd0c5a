// controllers/reservation/owner_sync.cc — see owner_sync.h.
#include "controllers/reservation/owner_sync.h"

namespace berth::controllers {

bool OnlyOwnersChanged(const reconcile::ReservationStatus& before, const reconcile::ReservationStatus& after) {
  if (before == after) return false;
  // lastProbeTime is not compared: DecideReservation never writes for it alone.
  auto strip = [](const reconcile::ReservationStatus& s) {
    reconcile::ReservationStatus out = s;
    out.allocated.clear();
    out.current_owners.clear();
    for (auto& c : out.conditions) c.last_probe_time.reset();
    return out;
  };
  return strip(before) == strip(after);
}

std::optional<std::chrono::nanoseconds> OwnerSyncLimiter::Hold(const std::string& uid, Clock::time_point now) {
  if (interval_.count() <= 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = last_write_.find(uid);
  if (it == last_write_.end()) return std::nullopt;
  auto due = it->second + interval_;
  if (now >= due) {
    last_write_.erase(it);  // quiet for a whole interval: the entry has served its purpose
    return std::nullopt;
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(due - now);
}

void OwnerSyncLimiter::Wrote(const std::string& uid, Clock::time_point now) {
  if (interval_.count() <= 0) return;
  std::lock_guard lock(mu_);
  last_write_[uid] = now;
}

void OwnerSyncLimiter::Forget(const std::string& uid) {
  std::lock_guard lock(mu_);
  last_write_.erase(uid);
}

size_t OwnerSyncLimiter::Size() const {
  std::lock_guard lock(mu_);
  return last_write_.size();
}

}  // namespace berth::controllers
