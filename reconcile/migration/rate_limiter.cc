#include "reconcile/migration/rate_limiter.h"

#include <chrono>

namespace berth::reconcile::migration {

Duration TokenBucket::TryTake(Time now) {
  if (qps_ <= 0) return Duration::zero();
  if (last_ && now > *last_) {
    tokens_ = std::min<double>(burst_, tokens_ + std::chrono::duration<double>(now - *last_).count() * qps_);
  }
  if (!last_ || now > *last_) last_ = now;
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return Duration::zero();
  }
  auto wait = std::chrono::duration<double>((1.0 - tokens_) / qps_);
  return std::max<Duration>(std::chrono::duration_cast<Duration>(wait), std::chrono::microseconds(1));
}

}  // namespace berth::reconcile::migration
