// clientgo-shim/transport/token_bucket.h
//
// Client-side rate limiter (client-go's flowcontrol token bucket): `qps` tokens per second, at
// most `burst` saved up. Off by default in berth (controller-runtime ≥ 0.21 sets QPS -1 and relies
// on API Priority and Fairness); client-go's defaults when on are QPS 5, burst 10.
// Thread-safe. Waiters reserve their token first, so concurrent callers are served in order.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

namespace berth::shim {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // qps > 0, burst >= 1 (a smaller burst is taken as 1). The bucket starts full.
  TokenBucket(double qps, int burst);

  // Reserve takes one token and returns how long the caller must wait before using it
  // (zero when a token was available). Never blocks.
  Clock::duration Reserve(Clock::time_point now);

  // Wait takes one token, sleeping as long as needed.
  void Wait();

 private:
  std::mutex mu_;
  double qps_;
  double burst_;
  double tokens_;  // may go negative: tokens promised to waiters
  Clock::time_point last_;
};

}  // namespace berth::shim
