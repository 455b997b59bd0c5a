// clientgo-shim/queue/work_queue.h
//
// WorkQueue: client-go's rate-limited, delaying work queue of string keys ("ns/name").
// Rules (util/workqueue):
//   - de-duplicating: Add of a key already waiting does nothing;
//   - a key handed out by Get is "processing" until Done; Add meanwhile only marks it dirty and
//     Done re-queues it, so one key never runs on two workers at once;
//   - AddAfter keeps a timer heap (earliest deadline wins per key); a background thread moves due
//     keys into the queue using the injected WaitClock's condition-variable deadline;
//   - AddRateLimited = AddAfter(key, rate_limiter.When(key)); Forget resets the key's failures;
//   - priority (controller-runtime's priorityqueue): AddWithPriority hands a key out before every
//     key of a lower priority (Add is priority 0), FIFO within one priority; adding a waiting key
//     with a higher priority moves it up, never down. For the few keys on a latency-critical path
//     (a freed slot's next eviction) in a queue kept busy by routine updates;
//   - ShutDown: Get keeps handing out queued keys, then returns nullopt; new adds are ignored and
//     pending delayed keys are dropped. ShutDownWithDrain also waits until every in-flight key is
//     Done.
// Metrics hooks (workqueue_* names) go to an optional WorkQueueMetrics.
// Thread-safety: every method may be called from any thread.
// Example:
//   WorkQueueOptions options; options.name = "pods";
//   WorkQueue q(std::move(options));
//   q.Add("default/web");
//   while (auto key = q.Get()) { Process(*key); q.Done(*key); }
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "clientgo-shim/queue/clock.h"
#include "clientgo-shim/queue/queue_metrics.h"
#include "clientgo-shim/queue/rate_limiter.h"

namespace berth::shim {

// WorkQueueOptions: each field says its default.
struct WorkQueueOptions {
  // Queue name, the `name` label of the workqueue metrics. Default: "".
  std::string name;
  // Time source. Default: DefaultWaitClock() (steady_clock).
  WaitClock* clock = nullptr;
  // Per-item retry delays. Default: DefaultControllerRateLimiter() (5 ms → 1000 s).
  RateLimiterPtr rate_limiter;
  // Metric hooks. Default: none.
  std::shared_ptr<WorkQueueMetrics> metrics;
  // How often workqueue_unfinished_work_seconds / longest_running are refreshed. Default: 500 ms
  // (client-go's updatePeriod).
  std::chrono::milliseconds unfinished_update_period{500};
};

// WorkQueue: see the file comment.
class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {});
  ~WorkQueue();  // ShutDown() and joins the timer thread
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Add queues `key` unless it is already waiting; while it is processing it is marked dirty
  // and queued again on Done.
  void Add(const std::string& key);
  // AddWithPriority is Add, handing `key` out before keys of a lower priority; a key already
  // waiting (or processing and re-added) keeps the higher of its priorities.
  void AddWithPriority(const std::string& key, int priority);
  // AddAfter adds `key` once `delay` has passed (at once when delay <= 0). A key already waiting
  // on the timer keeps the earlier deadline. Counts workqueue_retries_total when delay > 0.
  void AddAfter(const std::string& key, std::chrono::nanoseconds delay);
  // AddRateLimited is AddAfter(key, rate_limiter.When(key)).
  void AddRateLimited(const std::string& key);
  // Forget clears the key's failure count in the rate limiter (does not remove it from the queue).
  void Forget(const std::string& key);
  // NumRequeues is the rate limiter's failure count for `key`.
  int NumRequeues(const std::string& key);

  // Get blocks until a key is ready and marks it processing. Returns nullopt once the queue is
  // shut down and empty.
  std::optional<std::string> Get();
  // Done ends processing of `key`; re-queues it if it was added meanwhile.
  void Done(const std::string& key);

  // Len is the number of keys ready to be handed out (workqueue_depth).
  size_t Len() const;
  // WaitingLen is the number of keys on the delay heap.
  size_t WaitingLen() const;
  // ProcessingLen is the number of keys handed out and not yet Done.
  size_t ProcessingLen() const;

  // ShutDown stops accepting keys and wakes every Get; see the file comment.
  void ShutDown();
  // ShutDownWithDrain is ShutDown, then blocks until every processing key is Done.
  void ShutDownWithDrain();
  bool ShuttingDown() const;

  const std::string& name() const { return options_.name; }

 private:
  struct Waiting {
    SteadyTime ready_at;
    uint64_t seq;
    std::string key;
    bool operator>(const Waiting& o) const {
      return ready_at != o.ready_at ? ready_at > o.ready_at : seq > o.seq;
    }
  };

  void AddLocked(const std::string& key, int priority = 0);
  void PushReadyLocked(const std::string& key, int priority);
  void TimerLoop();
  void UpdateUnfinishedLocked(SteadyTime now);

  WorkQueueOptions options_;
  WaitClock& clock_;

  mutable std::mutex mu_;
  std::condition_variable get_cv_;     // Get waiters
  std::condition_variable timer_cv_;   // the timer thread
  std::condition_variable drain_cv_;   // ShutDownWithDrain
  // Ready keys by priority, highest first; FIFO within one.
  std::map<int, std::deque<std::string>, std::greater<>> ready_;
  size_t ready_count_ = 0;
  std::unordered_map<std::string, int> dirty_;  // key → its priority, while queued or re-added
  std::unordered_map<std::string, SteadyTime> processing_;  // key → start of work
  std::unordered_map<std::string, SteadyTime> added_at_;    // key → when it became queued
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> heap_;
  std::unordered_map<std::string, SteadyTime> waiting_;     // key → earliest deadline
  uint64_t seq_ = 0;
  int get_waiters_ = 0;  // threads blocked in Get: Add and Done notify only when some wait
  bool shutting_down_ = false;
  bool timer_stop_ = false;
  SteadyTime next_metrics_update_;
  std::thread timer_;
};

}  // namespace berth::shim
