// clientgo-shim/queue/work_queue.cc — see work_queue.h.
#include "clientgo-shim/queue/work_queue.h"

#include <algorithm>

namespace berth::shim {
namespace {

double Seconds(SteadyTime::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

WorkQueue::WorkQueue(WorkQueueOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : DefaultWaitClock()) {
  if (!options_.rate_limiter) options_.rate_limiter = DefaultControllerRateLimiter();
  next_metrics_update_ = clock_.Now() + options_.unfinished_update_period;
  timer_ = std::thread([this] { TimerLoop(); });
}

WorkQueue::~WorkQueue() {
  ShutDown();
  {
    std::lock_guard<std::mutex> l(mu_);
    timer_stop_ = true;
  }
  timer_cv_.notify_all();
  if (timer_.joinable()) timer_.join();
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_) return;
  if (dirty_.contains(key)) return;
  dirty_.insert(key);
  if (options_.metrics) options_.metrics->IncAdds();
  // Processing keys stay dirty only; Done puts them back.
  if (processing_.contains(key)) return;
  queue_.push_back(key);
  added_at_[key] = clock_.Now();
  if (options_.metrics) options_.metrics->SetDepth(queue_.size());
  // A busy worker takes the key on its next Get without waiting: wake only a parked one.
  if (get_waiters_ > 0) get_cv_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  if (options_.metrics && delay.count() > 0) options_.metrics->IncRetries();
  if (delay.count() <= 0) {
    AddLocked(key);
    return;
  }
  const SteadyTime ready_at =
      clock_.Now() + std::chrono::duration_cast<SteadyTime::duration>(delay);
  auto it = waiting_.find(key);
  if (it != waiting_.end() && it->second <= ready_at) return;  // earlier deadline wins
  waiting_[key] = ready_at;
  // The timer sleeps until the heap's earliest deadline (or sooner): a later one needs no wake.
  const bool earliest = heap_.empty() || ready_at < heap_.top().ready_at;
  heap_.push(Waiting{ready_at, seq_++, key});
  if (earliest) timer_cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  AddAfter(key, options_.rate_limiter->When(key));
}

void WorkQueue::Forget(const std::string& key) { options_.rate_limiter->Forget(key); }

int WorkQueue::NumRequeues(const std::string& key) {
  return options_.rate_limiter->NumRequeues(key);
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock<std::mutex> l(mu_);
  while (queue_.empty() && !shutting_down_) {
    ++get_waiters_;
    clock_.Wait(get_cv_, l);
    --get_waiters_;
  }
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  const SteadyTime now = clock_.Now();
  if (options_.metrics) {
    options_.metrics->SetDepth(queue_.size());
    auto it = added_at_.find(key);
    if (it != added_at_.end()) options_.metrics->ObserveQueueDuration(Seconds(now - it->second));
  }
  added_at_.erase(key);
  processing_[key] = now;
  dirty_.erase(key);
  return key;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = processing_.find(key);
  if (it == processing_.end()) return;
  if (options_.metrics) options_.metrics->ObserveWorkDuration(Seconds(clock_.Now() - it->second));
  processing_.erase(it);
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    added_at_[key] = clock_.Now();
    if (options_.metrics) options_.metrics->SetDepth(queue_.size());
    if (get_waiters_ > 0) get_cv_.notify_one();
  }
  if (processing_.empty()) drain_cv_.notify_all();
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.size();
}

size_t WorkQueue::WaitingLen() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiting_.size();
}

size_t WorkQueue::ProcessingLen() const {
  std::lock_guard<std::mutex> l(mu_);
  return processing_.size();
}

void WorkQueue::ShutDown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
    heap_ = {};
    waiting_.clear();
  }
  get_cv_.notify_all();
  timer_cv_.notify_all();
}

void WorkQueue::ShutDownWithDrain() {
  ShutDown();
  std::unique_lock<std::mutex> l(mu_);
  while (!processing_.empty()) clock_.Wait(drain_cv_, l);
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

void WorkQueue::UpdateUnfinishedLocked(SteadyTime now) {
  double total = 0, longest = 0;
  for (const auto& [key, start] : processing_) {
    const double age = Seconds(now - start);
    total += age;
    longest = std::max(longest, age);
  }
  options_.metrics->SetUnfinishedWork(total, longest);
}

void WorkQueue::TimerLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!timer_stop_) {
    const SteadyTime now = clock_.Now();
    while (!heap_.empty() && heap_.top().ready_at <= now) {
      Waiting w = heap_.top();
      heap_.pop();
      auto it = waiting_.find(w.key);
      // Stale heap entries (superseded by an earlier deadline) are skipped.
      if (it == waiting_.end() || it->second != w.ready_at) continue;
      waiting_.erase(it);
      AddLocked(w.key);
    }
    std::optional<SteadyTime> deadline;
    if (!heap_.empty()) deadline = heap_.top().ready_at;
    if (options_.metrics) {
      if (now >= next_metrics_update_) {
        UpdateUnfinishedLocked(now);
        next_metrics_update_ = now + options_.unfinished_update_period;
      }
      deadline = deadline ? std::min(*deadline, next_metrics_update_) : next_metrics_update_;
    }
    if (deadline) {
      clock_.WaitUntil(timer_cv_, l, *deadline);
    } else {
      clock_.Wait(timer_cv_, l);
    }
  }
}

}  // namespace berth::shim
