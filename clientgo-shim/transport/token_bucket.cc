// clientgo-shim/transport/token_bucket.cc
#include "clientgo-shim/transport/token_bucket.h"

#include <algorithm>
#include <thread>

namespace berth::shim {

TokenBucket::TokenBucket(double qps, int burst)
    : qps_(qps > 0 ? qps : 1.0),
      burst_(std::max(burst, 1)),
      tokens_(burst_),
      last_(Clock::now()) {}

TokenBucket::Clock::duration TokenBucket::Reserve(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::Wait() {
  const Clock::duration wait = Reserve(Clock::now());
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace berth::shim
