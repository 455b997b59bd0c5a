// clientgo-shim/leader/leader_elector.h
//
// LeaderElector: client-go's tools/leaderelection over a LeaseLock.
//   - Acquire: try every RetryPeriod (jittered ×[1, 2.2) as JitterUntil with factor 1.2) until
//     the Lease is free — no holder, or not renewed for leaseDurationSeconds as observed on the
//     LOCAL clock since the record last changed (clock skew between machines does not matter).
//   - A new holder increments leaseTransitions; a renewal keeps acquireTime.
//   - Renew: RetryPeriod after the last renewal; after a failure, retried RetryPeriod after the
//     failed attempt's start (at once when it took longer: client-go's ticker). Leadership is lost
//     the moment the last successful Lease write is older than RenewDeadline, measured from the
//     start of that write on the monotonic clock (so a pause counts: a process resuming from
//     SIGSTOP does not start a fresh deadline), or the moment another holder is observed. The
//     fence() (leader_fence.h) closes then, without waiting for this thread to run; on noticing,
//     the elector makes no further write, IsLeader() is false, OnStoppedLeading runs and the
//     elector ends (as client-go's Run returns; the controller-runtime manager exits).
//     Unlike client-go, RenewDeadline is not restarted per renewal round.
//   - Stop() while leading (fence open) with release_on_cancel writes holderIdentity "" and
//     leaseDurationSeconds 1 (client-go ReleaseOnCancel), then OnStoppedLeading.
//   - leader_election_master_status{name} is 1 while leading, 0 otherwise.
//   - Events as client-go's LeaseLock records them (config.record_event): "<identity> became
//     leader" after acquiring, "<identity> stopped leading" on Stop() while leading. Unlike
//     client-go, a lost Lease records nothing: after the loss the process writes nothing at all.
// Defaults are client-go's / controller-runtime's: 15 s / 10 s / 2 s; the lease request timeout
// is max(RenewDeadline/2, 1 s).
// Callbacks run on the elector thread and must return quickly (start work, do not run it).
// Thread-safety: Start/Stop/IsLeader/GetLeader from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/leader/leader_fence.h"
#include "clientgo-shim/leader/lease_lock.h"
#include "clientgo-shim/metrics/registry.h"
#include "clientgo-shim/queue/clock.h"

namespace berth::shim {

struct LeaderCallbacks {
  std::function<void()> on_started_leading;          // became leader
  std::function<void()> on_stopped_leading;          // lost the lease or stopped while leading
  std::function<void(const std::string&)> on_new_leader;  // observed holder changed (may be us)
};

// LeaderElectionConfig: each field says its default.
struct LeaderElectionConfig {
  RestClientPtr rest;                 // Required.
  std::string lease_namespace;        // Required.
  std::string lease_name;             // Required (controller-runtime: --leader-election-id).
  std::string identity;               // Default: DefaultLeaderIdentity() (hostname_uuid).
  std::chrono::milliseconds lease_duration{15000};  // Default: 15 s.
  std::chrono::milliseconds renew_deadline{10000};  // Default: 10 s.
  std::chrono::milliseconds retry_period{2000};     // Default: 2 s.
  bool release_on_cancel = true;      // Default: true (release the Lease on Stop()).
  LeaderCallbacks callbacks;
  WaitClock* clock = nullptr;             // Default: DefaultWaitClock().
  // record_event(lease_uid, message) is client-go's LeaseLock.RecordEvent: called with
  // "<identity> became leader" on acquiring and "<identity> stopped leading" on Stop() while
  // leading (not on a loss: see above), for a Normal Event with reason LeaderElection on the
  // Lease. Called on the elector thread (or Stop()'s); "stopped leading" only while the fence is
  // still open, before it closes and the Lease is released: it may wait briefly for the write, so
  // nothing this process writes lands after a standby took over.
  // Default: none.
  std::function<void(const std::string& lease_uid, const std::string& message)> record_event;
  Registry* metrics = nullptr;        // leader_election_master_status. Default: none.
  std::string metric_name;            // the `name` label. Default: lease_name.
};

// DefaultLeaderIdentity is "<hostname>_<random UUID v4>" (controller-runtime's identity).
std::string DefaultLeaderIdentity();

class LeaderElector {
 public:
  // Create validates the config: all durations > 0 and lease_duration > renew_deadline >
  // 1.2 × retry_period (client-go's JitterFactor). Errors: kInvalidArgument naming the rule.
  static Result<std::unique_ptr<LeaderElector>> Create(LeaderElectionConfig config);
  ~LeaderElector();  // Stop()

  // Start begins campaigning on a background thread. Call once.
  void Start();
  // Stop ends the election: releases the Lease if leading and release_on_cancel, runs
  // OnStoppedLeading if leading, and joins the thread. Idempotent.
  void Stop();
  // IsLeader: this process holds the Lease and its fence is open (renewed within RenewDeadline).
  bool IsLeader() const { return leading_.load() && fence_->MayWrite(); }
  // fence: the write gate for everything this process writes besides the Lease (see
  // FencedRestClient). Closed before the first acquisition and for good once leadership is lost.
  std::shared_ptr<const LeaderFence> fence() const { return fence_; }
  // Lost: leadership was held and then lost (renewal failed); the elector has ended.
  bool Lost() const { return lost_.load(); }
  // GetLeader is the holder identity last observed ("" if none).
  std::string GetLeader() const;
  const std::string& identity() const { return config_.identity; }

 private:
  explicit LeaderElector(LeaderElectionConfig config);
  void Run();
  enum class Attempt { kHeld, kFailed, kHeldByOther };
  // TryAcquireOrRenew reads the Lease and writes it if free or ours; `*start` is when the
  // attempt began (the fence counts from there: the write may land any time after it).
  Attempt TryAcquireOrRenew(SteadyTime* start);
  // RenewUntilLostOrStopped: false when leadership was lost (LoseLeadership ran), true on Stop().
  bool RenewUntilLostOrStopped();
  void LoseLeadership(const std::string& reason);
  // LogAttemptFailure: warn while leading (debug as a standby, where failures are routine).
  void LogAttemptFailure(std::string_view what, const Error& error, SteadyTime attempt_start);
  // StopLeading: on Stop(), release the Lease (if still valid and release_on_cancel), close the
  // fence, and run OnStoppedLeading when `notify`.
  void StopLeading(bool notify);
  void Release();
  void SetLeading(bool leading);
  // RecordEvent: config.record_event("<identity> <what>"), if set.
  void RecordEvent(const std::string& what);
  // Sleep waits until `deadline` or Stop(). Returns false when stopping.
  bool Sleep(SteadyTime deadline);
  std::chrono::nanoseconds Jittered(std::chrono::milliseconds d);

  LeaderElectionConfig config_;
  WaitClock& clock_;
  LeaseLock lock_;
  Gauge* master_status_ = nullptr;
  Counter* slowpath_ = nullptr;  // leader_election_slowpath_total{name}
  std::shared_ptr<LeaderFence> fence_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  LeaderElectionRecord observed_;
  SteadyTime observed_time_{};
  bool have_observed_ = false;
  std::atomic<bool> leading_{false};
  std::atomic<bool> lost_{false};
  std::thread thread_;
};

}  // namespace berth::shim
