// unit-tests/clientgo-shim/watch/fake_clock.h
//
// FakeClock (advanced by hand) and FixedRng (always the same draw) for deterministic backoff
// and state-machine tests.
#pragma once

#include "clientgo-shim/watch/backoff.h"

namespace berth::shim::testing {

class FakeClock final : public Clock {
 public:
  SteadyTime Now() const override { return now_; }
  void Advance(std::chrono::steady_clock::duration d) { now_ += d; }

 private:
  SteadyTime now_ = SteadyTime(std::chrono::hours(1000));
};

class FixedRng final : public Rng {
 public:
  explicit FixedRng(double value) : value_(value) {}
  double Uniform() override { return value_; }
  void Set(double value) { value_ = value; }

 private:
  double value_;
};

}  // namespace berth::shim::testing
