// clientgo-shim/leader/leader_elector.cc — see leader_elector.h.
#include "clientgo-shim/leader/leader_elector.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "clientgo-shim/metrics/standard_metrics.h"

namespace berth::shim {
namespace {

constexpr double kJitterFactor = 1.2;  // client-go leaderelection.JitterFactor

std::string RandomUuid() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

TimePoint WallNow() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

}  // namespace

std::string DefaultLeaderIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return std::string(host) + "_" + RandomUuid();
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
            config_.lease_namespace, config_.lease_name) {
  if (config_.metrics != nullptr) {
    auto m = RegisterLeaderElectionMetrics(*config_.metrics);
    if (m) {
      master_status_ = &m->master_status->WithLabelValues({config_.metric_name});
      master_status_->Set(0);
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
  leading_.store(leading);
  if (master_status_ != nullptr) master_status_->Set(leading ? 1 : 0);
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

bool LeaderElector::TryAcquireOrRenew() {
  const TimePoint wall = WallNow();
  const int duration_s = static_cast<int>(
      std::max<int64_t>(1, (config_.lease_duration.count() + 999) / 1000));
  LeaderElectionRecord desired{config_.identity, duration_s, wall, wall, 0};

  auto current = lock_.Get();
  if (!current) {
    if (current.error().code != ErrorCode::kNotFound) return false;
    if (!lock_.Create(desired)) return false;
    std::lock_guard<std::mutex> l(mu_);
    observed_ = desired;
    observed_time_ = clock_.Now();
    have_observed_ = true;
    return true;
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
  if (held_by_other) return false;
  if (current->holder_identity == config_.identity) {
    desired.acquire_time = current->acquire_time;
    desired.lease_transitions = current->lease_transitions;
  } else {
    desired.lease_transitions = current->lease_transitions + 1;
  }
  if (!lock_.Update(desired)) return false;
  std::lock_guard<std::mutex> l(mu_);
  observed_ = desired;
  observed_time_ = clock_.Now();
  return true;
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

void LeaderElector::Run() {
  // Acquire.
  for (;;) {
    if (TryAcquireOrRenew()) break;
    if (!Sleep(clock_.Now() + Jittered(config_.retry_period))) return;  // stopped as standby
  }
  bool stopped;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped = stop_;
  }
  if (stopped) {
    // Stopped while the acquiring write was in flight: hand the lease straight back.
    if (config_.release_on_cancel) Release();
    return;
  }
  SetLeading(true);
  if (config_.callbacks.on_started_leading) config_.callbacks.on_started_leading();

  // Renew.
  for (;;) {
    const SteadyTime deadline = clock_.Now() + config_.renew_deadline;
    bool renewed = false;
    bool stopping = false;
    for (;;) {
      if (TryAcquireOrRenew() && clock_.Now() < deadline) {
        renewed = true;
        break;
      }
      if (clock_.Now() >= deadline) break;
      if (!Sleep(std::min(deadline, clock_.Now() + config_.retry_period))) {
        stopping = true;
        break;
      }
    }
    if (stopping) break;
    if (!renewed) {
      // Lost: stop leading before anything else can be written.
      SetLeading(false);
      lost_.store(true);
      if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
      return;
    }
    if (!Sleep(clock_.Now() + config_.retry_period)) break;
  }
  if (config_.release_on_cancel) Release();
  SetLeading(false);
  if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
}

}  // namespace berth::shim
