// clientgo-shim/queue/clock.h
//
// WaitClock: the one source of "now" for time-based runtime logic (workqueue delays, rate limiters,
// leader election, event rate limits), so tests can drive time by hand instead of sleeping.
// (Named WaitClock because watch/backoff.h already has a Now()-only berth::shim::Clock; this
// one can also wait on a deadline.)
// Header-only on purpose: every runtime folder may include it without linking berth_shim_queue.
//   RealWaitClock   — std::chrono::steady_clock; waits are condition-variable deadlines.
//   FakeWaitClock   — time moves only on Advance(); waiters are woken on every Advance.
// Example:
//   FakeWaitClock clock;  WorkQueueOptions o; o.clock = &clock;  WorkQueue q(std::move(o));
//   q.AddAfter("a", 50ms);  clock.Advance(50ms);  // "a" becomes ready
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace berth::shim {

using SteadyTime = std::chrono::steady_clock::time_point;

// WaitClock: see the file comment. Thread-safety: every method may be called from any thread.
class WaitClock {
 public:
  virtual ~WaitClock() = default;
  // Now returns the current monotonic time.
  virtual SteadyTime Now() const = 0;
  // WaitUntil blocks on `cv` (with `lock` held by the caller) until `deadline` on this clock or a
  // notification, whichever is first. Spurious wake-ups are allowed: callers re-check state.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         SteadyTime deadline) const = 0;
  // Wait blocks until notified (no deadline). Same contract as WaitUntil.
  virtual void Wait(std::condition_variable& cv, std::unique_lock<std::mutex>& lock) const = 0;
};

// RealWaitClock: steady_clock. Use DefaultWaitClock() for the shared instance.
class RealWaitClock final : public WaitClock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 SteadyTime deadline) const override {
    cv.wait_until(lock, deadline);
  }
  void Wait(std::condition_variable& cv, std::unique_lock<std::mutex>& lock) const override {
    cv.wait(lock);
  }
};

// DefaultWaitClock returns the process-wide RealWaitClock.
inline WaitClock& DefaultWaitClock() {
  static RealWaitClock clock;
  return clock;
}

// FakeWaitClock: manual time for tests. Waiters sleep on their own condition variable; Advance()
// notifies every registered one so they re-check their deadlines against the new time.
class FakeWaitClock final : public WaitClock {
 public:
  explicit FakeWaitClock(SteadyTime start = SteadyTime{} + std::chrono::hours(1)) : now_(start) {}

  SteadyTime Now() const override {
    std::lock_guard<std::mutex> l(mu_);
    return now_;
  }
  // Advance moves time forward and wakes every waiter.
  void Advance(std::chrono::nanoseconds d) {
    {
      std::lock_guard<std::mutex> l(mu_);
      now_ += std::chrono::duration_cast<SteadyTime::duration>(d);
    }
    WakeAll();
  }
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 SteadyTime deadline) const override {
    if (Now() >= deadline) return;
    Wait(cv, lock);
  }
  void Wait(std::condition_variable& cv, std::unique_lock<std::mutex>& lock) const override {
    Register(&cv);
    // A bounded real wait keeps a missed notification from hanging a test forever.
    cv.wait_for(lock, std::chrono::milliseconds(20));
    Unregister(&cv);
  }
  // WaiterCount is how many threads are blocked in Wait/WaitUntil right now (tests use it to
  // know a background thread has parked before advancing time).
  size_t WaiterCount() const {
    std::lock_guard<std::mutex> l(mu_);
    return waiters_.size();
  }

 private:
  void Register(std::condition_variable* cv) const {
    std::lock_guard<std::mutex> l(mu_);
    waiters_.insert(cv);
  }
  void Unregister(std::condition_variable* cv) const {
    std::lock_guard<std::mutex> l(mu_);
    auto it = waiters_.find(cv);
    if (it != waiters_.end()) waiters_.erase(it);
  }
  void WakeAll() const {
    std::lock_guard<std::mutex> l(mu_);
    for (auto* cv : waiters_) cv->notify_all();
  }

  mutable std::mutex mu_;
  SteadyTime now_;
  mutable std::multiset<std::condition_variable*> waiters_;
};

}  // namespace berth::shim
