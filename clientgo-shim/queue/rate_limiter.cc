// clientgo-shim/queue/rate_limiter.cc — see rate_limiter.h.
#include "clientgo-shim/queue/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace berth::shim {

ItemExponentialRateLimiter::ItemExponentialRateLimiter(std::chrono::nanoseconds base,
                                                       std::chrono::nanoseconds max)
    : base_(base), max_(max) {}

std::chrono::nanoseconds ItemExponentialRateLimiter::When(const std::string& key) {
  int exp;
  {
    std::lock_guard<std::mutex> l(mu_);
    exp = failures_[key]++;
  }
  // Computed in double so a long failure streak cannot overflow the integer count (client-go
  // does the same and compares against MaxInt64).
  const double delay = static_cast<double>(base_.count()) * std::pow(2.0, exp);
  if (delay >= static_cast<double>(max_.count())) return max_;
  return std::chrono::nanoseconds(static_cast<int64_t>(delay));
}

void ItemExponentialRateLimiter::Forget(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(key);
}

int ItemExponentialRateLimiter::NumRequeues(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters)
    : limiters_(std::move(limiters)) {}

std::chrono::nanoseconds MaxOfRateLimiter::When(const std::string& key) {
  std::chrono::nanoseconds best{0};
  for (auto& l : limiters_) best = std::max(best, l->When(key));
  return best;
}

void MaxOfRateLimiter::Forget(const std::string& key) {
  for (auto& l : limiters_) l->Forget(key);
}

int MaxOfRateLimiter::NumRequeues(const std::string& key) {
  int best = 0;
  for (auto& l : limiters_) best = std::max(best, l->NumRequeues(key));
  return best;
}

RateLimiterPtr DefaultControllerRateLimiter() {
  return std::make_unique<ItemExponentialRateLimiter>(kDefaultBaseDelay, kDefaultMaxDelay);
}

}  // namespace berth::shim
