// clientgo-shim/leader/leader_fence.cc — see leader_fence.h.
#include "clientgo-shim/leader/leader_fence.h"

#include <cstdio>
#include <limits>

namespace berth::shim {
namespace {

constexpr int64_t kClosed = std::numeric_limits<int64_t>::min();

int64_t ToNs(SteadyTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::string Seconds(std::chrono::nanoseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3fs", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

LeaderFence::LeaderFence(std::chrono::nanoseconds renew_deadline, const WaitClock& clock)
    : renew_deadline_(renew_deadline), clock_(clock), closes_at_ns_(kClosed) {}

void LeaderFence::Renewed(SteadyTime attempt_start) {
  if (lost_.load()) return;
  const int64_t closes = ToNs(attempt_start) + renew_deadline_.count();
  int64_t current = closes_at_ns_.load();
  while (current < closes && !closes_at_ns_.compare_exchange_weak(current, closes)) {
  }
}

void LeaderFence::Lose(std::string reason) {
  {
    std::lock_guard<std::mutex> l(reason_mu_);
    if (!lost_.load()) lost_reason_ = std::move(reason);
  }
  lost_.store(true);
  closes_at_ns_.store(kClosed);
}

bool LeaderFence::MayWrite() const {
  if (lost_.load()) return false;
  const int64_t closes = closes_at_ns_.load();
  return closes != kClosed && ToNs(clock_.Now()) < closes;
}

SteadyTime LeaderFence::ClosesAt() const {
  const int64_t closes = closes_at_ns_.load();
  if (closes == kClosed) return SteadyTime::min();
  return SteadyTime(std::chrono::duration_cast<SteadyTime::duration>(std::chrono::nanoseconds(closes)));
}

Status LeaderFence::CheckWrite() const {
  if (lost_.load()) {
    std::lock_guard<std::mutex> l(reason_mu_);
    return MakeError(ErrorCode::kFenced, "leader fence closed: leadership lost: " + lost_reason_);
  }
  const int64_t closes = closes_at_ns_.load();
  if (closes == kClosed) {
    return MakeError(ErrorCode::kFenced, "leader fence closed: this process does not lead");
  }
  const int64_t now = ToNs(clock_.Now());
  if (now < closes) return {};
  const auto since_renew = std::chrono::nanoseconds(now - (closes - renew_deadline_.count()));
  return MakeError(ErrorCode::kFenced,
                   "leader fence closed: the last successful Lease renewal started " +
                       Seconds(since_renew) + " ago, more than renewDeadline " +
                       Seconds(renew_deadline_));
}

}  // namespace berth::shim
