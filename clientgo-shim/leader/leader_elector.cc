// clientgo-shim/leader/leader_elector.cc — see leader_elector.h.
#include "clientgo-shim/leader/leader_elector.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/uuid.h"
#include "clientgo-shim/metrics/standard_metrics.h"

namespace berth::shim {
namespace {

constexpr double kJitterFactor = 1.2;  // client-go leaderelection.JitterFactor

TimePoint WallNow() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

}  // namespace

std::string DefaultLeaderIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return std::string(host) + "_" + RandomUuidV4();
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(LeaderElectionConfig config) {
  using std::chrono::milliseconds;
  if (!config.rest) return MakeError(ErrorCode::kInvalidArgument, "leader election: rest client is required");
  if (config.lease_name.empty() || config.lease_namespace.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "leader election: lease namespace and name are required");
  }
  if (config.lease_duration <= milliseconds(0) || config.renew_deadline <= milliseconds(0) ||
      config.retry_period <= milliseconds(0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "leader election: leaseDuration, renewDeadline and retryPeriod must be "
                     "greater than zero");
  }
  if (config.lease_duration <= config.renew_deadline) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "leaseDuration must be greater than renewDeadline");
  }
  if (config.renew_deadline.count() <= kJitterFactor * config.retry_period.count()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (config.identity.empty()) config.identity = DefaultLeaderIdentity();
  if (config.metric_name.empty()) config.metric_name = config.lease_name;
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config)));
}

LeaderElector::LeaderElector(LeaderElectionConfig config)
    : config_(std::move(config)),
      clock_(config_.clock != nullptr ? *config_.clock : DefaultWaitClock()),
      lock_(ObjectClient(config_.rest, std::max(std::chrono::milliseconds(1000),
                                                config_.renew_deadline / 2)),
            config_.lease_namespace, config_.lease_name),
      fence_(std::make_shared<LeaderFence>(config_.renew_deadline, clock_)) {
  if (config_.metrics != nullptr) {
    auto m = RegisterLeaderElectionMetrics(*config_.metrics);
    if (m) {
      master_status_ = &m->master_status->WithLabelValues({config_.metric_name});
      master_status_->Set(0);
      slowpath_ = &m->slowpath_total->WithLabelValues({config_.metric_name});
    }
  }
}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (thread_.joinable() || stop_) return;
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

std::string LeaderElector::GetLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_.holder_identity;
}

void LeaderElector::SetLeading(bool leading) {
  // The gauge first: whoever sees IsLeader() change (a probe, a test) then reads the same state
  // from leader_election_master_status.
  if (master_status_ != nullptr) master_status_->Set(leading ? 1 : 0);
  leading_.store(leading);
}

void LeaderElector::RecordEvent(const std::string& what) {
  if (config_.record_event) config_.record_event(lock_.Uid(), config_.identity + " " + what);
}

bool LeaderElector::Sleep(SteadyTime deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_ && clock_.Now() < deadline) clock_.WaitUntil(cv_, l, deadline);
  return !stop_;
}

std::chrono::nanoseconds LeaderElector::Jittered(std::chrono::milliseconds d) {
  thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> extra(0.0, kJitterFactor);
  return std::chrono::nanoseconds(
      static_cast<int64_t>(std::chrono::nanoseconds(d).count() * (1.0 + extra(rng))));
}

LeaderElector::Attempt LeaderElector::TryAcquireOrRenew(SteadyTime* start) {
  *start = clock_.Now();
  const TimePoint wall = WallNow();
  const int duration_s = static_cast<int>(
      std::max<int64_t>(1, (config_.lease_duration.count() + 999) / 1000));
  LeaderElectionRecord desired{config_.identity, duration_s, wall, wall, 0};

  // Fast path (client-go): a leader whose lease is still valid renews from the record it last
  // wrote, one Update without a Get. When that fails (a conflict, a timeout), fall back to the
  // slow path, Get then Update, and count it in leader_election_slowpath_total.
  bool fast_path = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    fast_path = have_observed_ && observed_.holder_identity == config_.identity &&
                observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > clock_.Now();
    if (fast_path) {
      desired.acquire_time = observed_.acquire_time;
      desired.lease_transitions = observed_.lease_transitions;
    }
  }
  if (fast_path) {
    Status updated = lock_.Update(desired);
    if (updated) {
      std::lock_guard<std::mutex> l(mu_);
      observed_ = desired;
      observed_time_ = clock_.Now();
      return Attempt::kHeld;
    }
    LogAttemptFailure("failed to update lease optimistically, falling back to slow path",
                      updated.error(), *start);
    if (slowpath_ != nullptr) slowpath_->Inc();
    desired.acquire_time = wall;
    desired.lease_transitions = 0;
  }

  auto current = lock_.Get();
  if (!current) {
    if (current.error().code != ErrorCode::kNotFound) {
      LogAttemptFailure("error retrieving lease", current.error(), *start);
      return Attempt::kFailed;
    }
    if (Status created = lock_.Create(desired); !created) {
      LogAttemptFailure("error initially creating lease", created.error(), *start);
      return Attempt::kFailed;
    }
    std::lock_guard<std::mutex> l(mu_);
    observed_ = desired;
    observed_time_ = clock_.Now();
    have_observed_ = true;
    return Attempt::kHeld;
  }
  std::string new_leader;
  bool held_by_other = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!have_observed_ || !(observed_ == *current)) {
      if (observed_.holder_identity != current->holder_identity) {
        new_leader = current->holder_identity;
      }
      observed_ = *current;
      observed_time_ = clock_.Now();
      have_observed_ = true;
    }
    const bool valid = observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) >
                       clock_.Now();
    held_by_other = !current->holder_identity.empty() && valid &&
                    current->holder_identity != config_.identity;
  }
  if (!new_leader.empty() && config_.callbacks.on_new_leader) {
    config_.callbacks.on_new_leader(new_leader);
  }
  if (held_by_other) return Attempt::kHeldByOther;
  if (current->holder_identity == config_.identity) {
    desired.acquire_time = current->acquire_time;
    desired.lease_transitions = current->lease_transitions;
  } else {
    desired.lease_transitions = current->lease_transitions + 1;
  }
  if (Status updated = lock_.Update(desired); !updated) {
    LogAttemptFailure("failed to update lease", updated.error(), *start);
    return Attempt::kFailed;
  }
  std::lock_guard<std::mutex> l(mu_);
  observed_ = desired;
  observed_time_ = clock_.Now();
  return Attempt::kHeld;
}

void LeaderElector::LogAttemptFailure(std::string_view what, const Error& error,
                                      SteadyTime attempt_start) {
  // client-go logs these at error; a leader's failures are what explains a lost Lease.
  const auto elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now() - attempt_start);
  log::Write(leading_.load() ? log::Level::kWarn : log::Level::kDebug, "leader-election", what,
             {{"lease", lock_.Describe()},
              {"identity", config_.identity},
              {"code", std::to_string(error.http_status)},
              {"error", error.message},
              {"attempt_ms", std::to_string(elapsed.count())}});
}

void LeaderElector::Release() {
  LeaderElectionRecord released;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (observed_.holder_identity != config_.identity) return;
    released.lease_transitions = observed_.lease_transitions;
  }
  const TimePoint wall = WallNow();
  released.holder_identity = "";
  released.lease_duration_seconds = 1;
  released.acquire_time = wall;
  released.renew_time = wall;
  if (lock_.Update(released)) {
    std::lock_guard<std::mutex> l(mu_);
    observed_ = released;
    observed_time_ = clock_.Now();
  }
}

void LeaderElector::LoseLeadership(const std::string& reason) {
  // Close the gate first: from here on nothing but this thread could still try to write.
  fence_->Lose(reason);
  SetLeading(false);
  lost_.store(true);
  log::Error("leader-election", "leader election lost",
             {{"lease", lock_.Describe()}, {"identity", config_.identity}, {"reason", reason}});
  // No "stopped leading" Event here, unlike client-go: after the loss this process writes nothing
  // at all (the fence's guarantee); the next leader's "became leader" tells the hand-over.
  if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
}

void LeaderElector::Run() {
  // Acquire.
  log::Info("leader-election", "attempting to acquire leader lease",
            {{"lease", lock_.Describe()}, {"identity", config_.identity}});
  SteadyTime start;
  for (;;) {
    if (TryAcquireOrRenew(&start) == Attempt::kHeld) break;
    if (!Sleep(clock_.Now() + Jittered(config_.retry_period))) return;  // stopped as standby
  }
  bool stopped;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped = stop_;
  }
  if (stopped) {
    // Stopped while the acquiring write was in flight: hand the lease straight back.
    fence_->Renewed(start);
    StopLeading(/*notify=*/false);
    return;
  }
  fence_->Renewed(start);
  SetLeading(true);
  RecordEvent("became leader");
  log::Info("leader-election", "successfully acquired lease",
            {{"lease", lock_.Describe()}, {"identity", config_.identity}});
  if (config_.callbacks.on_started_leading) config_.callbacks.on_started_leading();

  if (RenewUntilLostOrStopped()) StopLeading(/*notify=*/true);
}

void LeaderElector::StopLeading(bool notify) {
  // Only a leader whose fence is still open may write the Lease: after a lapse a standby may
  // already hold it. Other writes are fenced before the release, so none lands after it.
  const bool still_leading = fence_->MayWrite();
  const bool may_release = config_.release_on_cancel && still_leading;
  // While the fence is still open (the Event's writer is fenced) and before the release, so the
  // Event is never a write that lands after a standby took the Lease.
  if (notify && still_leading) RecordEvent("stopped leading");
  fence_->Lose("leader election stopped");
  if (may_release) Release();
  SetLeading(false);
  if (notify && config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
}

bool LeaderElector::RenewUntilLostOrStopped() {
  // Every wait also ends when the fence would close, so a deadline that passes (or passed
  // during a pause) is noticed before any further Lease write.
  auto sleep_until = [this](SteadyTime next) { return Sleep(std::min(fence_->ClosesAt(), next)); };
  for (;;) {
    // After a renewal, the next round starts retryPeriod later (client-go's wait.Until).
    if (!sleep_until(clock_.Now() + config_.retry_period)) return true;
    for (;;) {
      if (!fence_->MayWrite()) {
        LoseLeadership("failed to renew lease " + lock_.Describe() + " within renewDeadline " +
                       std::to_string(config_.renew_deadline.count()) + "ms");
        return false;
      }
      SteadyTime start;
      const Attempt attempt = TryAcquireOrRenew(&start);
      if (attempt == Attempt::kHeld) {
        fence_->Renewed(start);
        break;
      }
      if (attempt == Attempt::kHeldByOther) {
        LoseLeadership("lease " + lock_.Describe() + " is held by " + GetLeader());
        return false;
      }
      // Retries follow a retryPeriod ticker from each attempt's start, as client-go's
      // PollImmediateUntil does: an attempt slowed by Retry-After waits (up to the lease
      // request timeout) is followed at once by the next, instead of a whole retryPeriod later,
      // so the attempts that fit into renewDeadline do not shrink under 429/503.
      if (!sleep_until(start + config_.retry_period)) return true;
    }
  }
}

}  // namespace berth::shim
