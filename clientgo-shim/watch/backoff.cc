#include "clientgo-shim/watch/backoff.h"

#include <algorithm>

namespace berth::shim {
namespace {

class SteadyClock final : public Clock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

const Clock& SystemClock() {
  static const SteadyClock* clock = new SteadyClock();
  return *clock;
}

double SeededRng::Uniform() {
  std::lock_guard lock(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen_);
}

Backoff::Backoff(BackoffOptions options, const Clock& clock, Rng& rng)
    : options_(options), clock_(clock), rng_(rng), step_(options.initial) {}

std::chrono::milliseconds Backoff::Next() {
  const SteadyTime now = clock_.Now();
  if (!used_ || now - last_backoff_ > options_.reset_after) step_ = options_.initial;
  used_ = true;
  last_backoff_ = now;
  auto delay = step_;
  step_ = std::min<std::chrono::duration<double, std::milli>>(step_ * options_.factor,
                                                               options_.cap);
  if (options_.jitter > 0) delay += delay * (rng_.Uniform() * options_.jitter);
  return std::chrono::milliseconds(static_cast<int64_t>(delay.count()));
}

void Backoff::Reset() { used_ = false; }

}  // namespace berth::shim
