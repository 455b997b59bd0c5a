// clientgo-shim/queue/rate_limiter.h
//
// Per-item retry delays for the workqueue, as client-go's util/workqueue rate limiters:
//   ItemExponentialRateLimiter — delay = base · 2^failures, capped (controller default 5 ms → 1000 s;
//                                 controller-runtime's priority queue uses only this one);
//   MaxOfRateLimiter           — the largest delay of several limiters.
// When() records one more failure for the key and returns how long to wait; Forget() clears it.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace berth::shim {

// RateLimiter: see the file comment.
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // When records a failure of `key` and returns the delay before it may be retried.
  virtual std::chrono::nanoseconds When(const std::string& key) = 0;
  // Forget stops tracking `key` (its next failure starts the sequence again).
  virtual void Forget(const std::string& key) = 0;
  // NumRequeues is how many failures of `key` are being tracked.
  virtual int NumRequeues(const std::string& key) = 0;
};

using RateLimiterPtr = std::unique_ptr<RateLimiter>;

// kDefaultBaseDelay / kDefaultMaxDelay: client-go DefaultTypedControllerRateLimiter's per-item part.
inline constexpr std::chrono::nanoseconds kDefaultBaseDelay = std::chrono::milliseconds(5);
inline constexpr std::chrono::nanoseconds kDefaultMaxDelay = std::chrono::seconds(1000);

// ItemExponentialRateLimiter: base · 2^(failures-so-far), capped at max (overflow-safe).
class ItemExponentialRateLimiter final : public RateLimiter {
 public:
  ItemExponentialRateLimiter(std::chrono::nanoseconds base = kDefaultBaseDelay,
                             std::chrono::nanoseconds max = kDefaultMaxDelay);
  std::chrono::nanoseconds When(const std::string& key) override;
  void Forget(const std::string& key) override;
  int NumRequeues(const std::string& key) override;

 private:
  const std::chrono::nanoseconds base_;
  const std::chrono::nanoseconds max_;
  std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// MaxOfRateLimiter: When() asks every limiter and returns the largest delay.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters);
  std::chrono::nanoseconds When(const std::string& key) override;
  void Forget(const std::string& key) override;
  int NumRequeues(const std::string& key) override;

 private:
  std::vector<RateLimiterPtr> limiters_;
};

// DefaultControllerRateLimiter returns the per-item exponential limiter, 5 ms → 1000 s.
RateLimiterPtr DefaultControllerRateLimiter();

}  // namespace berth::shim
