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

void WorkQueue::PushReadyLocked(const std::string& key, int priority) {
  ready_[priority].push_back(key);
  ++ready_count_;
  if (options_.metrics) options_.metrics->SetDepth(ready_count_);
  // A busy worker takes the key on its next Get without waiting: wake only a parked one.
  if (get_waiters_ > 0) get_cv_.notify_one();
}

void WorkQueue::AddLocked(const std::string& key, int priority) {
  if (shutting_down_) return;
  if (auto it = dirty_.find(key); it != dirty_.end()) {
    if (priority <= it->second) return;
    const int old = it->second;
    it->second = priority;
    // Processing: Done queues it with the new priority. Waiting: it moves up.
    if (processing_.contains(key)) return;
    auto level = ready_.find(old);
    if (level == ready_.end()) return;
    auto pos = std::find(level->second.begin(), level->second.end(), key);
    if (pos == level->second.end()) return;
    level->second.erase(pos);
    if (level->second.empty()) ready_.erase(level);
    ready_[priority].push_back(key);
    return;
  }
  dirty_.emplace(key, priority);
  if (options_.metrics) options_.metrics->IncAdds();
  // Processing keys stay dirty only; Done puts them back.
  if (processing_.contains(key)) return;
  added_at_[key] = clock_.Now();
  PushReadyLocked(key, priority);
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(key);
}

void WorkQueue::AddWithPriority(const std::string& key, int priority) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(key, priority);
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
  while (ready_count_ == 0 && !shutting_down_) {
    ++get_waiters_;
    clock_.Wait(get_cv_, l);
    --get_waiters_;
  }
  if (ready_count_ == 0) return std::nullopt;
  auto level = ready_.begin();  // the highest priority
  std::string key = std::move(level->second.front());
  level->second.pop_front();
  if (level->second.empty()) ready_.erase(level);
  --ready_count_;
  const SteadyTime now = clock_.Now();
  if (options_.metrics) {
    options_.metrics->SetDepth(ready_count_);
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
  if (auto d = dirty_.find(key); d != dirty_.end()) {
    added_at_[key] = clock_.Now();
    PushReadyLocked(key, d->second);
  }
  if (processing_.empty()) drain_cv_.notify_all();
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> l(mu_);
  return ready_count_;
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
