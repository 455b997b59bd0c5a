// clientgo-shim/leader/leader_fence.h
//
// LeaderFence: the write gate of a leader-elected process. It is open only while this process
// may still believe it leads:
//   - since the start of the last successful Lease write (acquire or renew), less than
//     renewDeadline has passed on the monotonic clock. Time spent paused (SIGSTOP, a VM freeze,
//     a throttled container) counts, so a process that wakes up after a long pause finds the
//     fence closed before its elector thread has run again;
//   - and leadership has not been declared lost (another holder observed, renewal failed).
// Once lost it never reopens: the manager exits and a new process campaigns afresh.
//
// Why this is enough: a standby takes the Lease only after leaseDuration has passed on ITS clock
// since it saw our last renewal change the record, which happened after our write started; we
// stop at that start + renewDeadline < leaseDuration. The margin (leaseDuration - renewDeadline)
// absorbs clock-rate differences between the machines.
// The limit: the gate is checked right before a request is written (FencedRestClient and the
// transport, before every attempt). A write already on the wire, or one that passed the check
// and was then paused before its bytes left the process, can still land after a standby took
// over; Kubernetes offers no server-side fencing token that would close that gap. The window is
// the few microseconds between the check and the socket write, plus network latency. The clock
// is steady_clock (CLOCK_MONOTONIC): a stopped process or a stalled thread counts, but a whole
// machine suspended in a way that stops CLOCK_MONOTONIC does not.
// Thread-safety: MayWrite/CheckWrite/ClosesAt from any thread (lock-free); Renewed/Lose from the
// elector thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "clientgo-shim/queue/clock.h"
#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim {

class LeaderFence final : public WriteFence {
 public:
  // The fence starts closed (not leading yet). `clock` must outlive the fence.
  LeaderFence(std::chrono::nanoseconds renew_deadline, const WaitClock& clock);

  // Renewed: a Lease write that started at `attempt_start` succeeded; writes may go out until
  // attempt_start + renewDeadline. Never moves the deadline back; ignored once lost.
  void Renewed(SteadyTime attempt_start);
  // Lose closes the fence for good; `reason` goes into every later kFenced error.
  void Lose(std::string reason);

  // MayWrite: not lost and the renewal deadline has not passed.
  bool MayWrite() const;
  // CheckWrite: success when MayWrite, else kFenced naming why.
  Status CheckWrite() const override;
  // ClosesAt: when the fence closes unless renewed again (SteadyTime::min() when never opened
  // or lost).
  SteadyTime ClosesAt() const;
  bool lost() const { return lost_.load(); }
  std::chrono::nanoseconds renew_deadline() const { return renew_deadline_; }

 private:
  const std::chrono::nanoseconds renew_deadline_;
  const WaitClock& clock_;
  // ClosesAt as nanoseconds of the steady clock's epoch; INT64_MIN = closed.
  std::atomic<int64_t> closes_at_ns_;
  std::atomic<bool> lost_{false};
  mutable std::mutex reason_mu_;
  std::string lost_reason_;
};

}  // namespace berth::shim
