// reconcile/migration/rate_limiter.h
//
// The global eviction rate as koordinator has it: a token bucket of EvictQPS (default 10) and
// EvictBurst (default 1). Pure: the caller passes the time and holds any lock.
#pragma once

#include <algorithm>
#include <optional>

#include "reconcile/reservation/types.h"

namespace berth::reconcile::migration {

class TokenBucket {
 public:
  // qps <= 0 disables the limit.
  TokenBucket(double qps, int burst) : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_) {}

  // TryTake: takes a token and returns zero, or returns how long until one is available (and
  // takes none).
  Duration TryTake(Time now);

 private:
  double qps_;
  int burst_;
  double tokens_;
  std::optional<Time> last_;
};

}  // namespace berth::reconcile::migration
