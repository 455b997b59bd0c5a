// clientgo-shim/watch/backoff.h
//
// Backoff between failed list/watch attempts, as client-go's reflector does it
// (wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)): each delay is the current
// step plus up to `jitter` × step of random extra ([d, 2d) with jitter 1.0); the step doubles up
// to the 30 s cap; after 2 minutes without a backoff the step starts again at 800 ms. The comment
// in client-go says this targets ~0.22 QPS against an unhealthy apiserver.
// Clock and Rng are interfaces so tests are deterministic (no sleeping, no real randomness).
// Thread-safety: a Backoff is used by one thread (its reflector).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>

namespace berth::shim {

using SteadyTime = std::chrono::steady_clock::time_point;

// Clock: the time source for backoff and watch-duration checks.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() const = 0;
};

// SystemClock: std::chrono::steady_clock. Thread-safe; lives forever.
const Clock& SystemClock();

// Rng: uniform doubles in [0, 1).
class Rng {
 public:
  virtual ~Rng() = default;
  virtual double Uniform() = 0;
};

// SeededRng: a mt19937_64 with a fixed seed; thread-safe.
class SeededRng final : public Rng {
 public:
  explicit SeededRng(uint64_t seed) : gen_(seed) {}
  double Uniform() override;

 private:
  std::mutex mu_;
  std::mt19937_64 gen_;
};

// BackoffOptions: the client-go reflector defaults. Each field says its default.
struct BackoffOptions {
  std::chrono::milliseconds initial{800};       // defaultBackoffInit. Default: 800 ms.
  std::chrono::milliseconds cap{30000};         // Max. Default: 30 s.
  double factor = 2.0;                          // Default: 2.0.
  double jitter = 1.0;                          // Default: 1.0 (delay in [d, 2d)).
  std::chrono::milliseconds reset_after{120000};  // Default: 2 min without a backoff.
};

class Backoff {
 public:
  // `clock` and `rng` must outlive the Backoff.
  Backoff(BackoffOptions options, const Clock& clock, Rng& rng);

  // Next returns how long to wait before the next attempt and advances the step.
  std::chrono::milliseconds Next();
  // Reset makes the next delay start from `initial` again.
  void Reset();

 private:
  BackoffOptions options_;
  const Clock& clock_;
  Rng& rng_;
  std::chrono::duration<double, std::milli> step_;
  SteadyTime last_backoff_{};
  bool used_ = false;
};

}  // namespace berth::shim
