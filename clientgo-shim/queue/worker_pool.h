// clientgo-shim/queue/worker_pool.h
//
// WorkerPool: N threads that each loop Get → process → Done on one WorkQueue until it shuts
// down (controller-runtime's MaxConcurrentReconciles workers). The queue guarantees that one key
// is never processed by two workers at once.
// Example:
//   WorkerPool pool(queue, 4, [](const std::string& key) { Reconcile(key); });
//   ...; queue.ShutDownWithDrain(); pool.Join();
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/queue/work_queue.h"

namespace berth::shim {

class WorkerPool {
 public:
  using Process = std::function<void(const std::string& key)>;
  // Starts `workers` threads (at least one). `process` must not call Done itself.
  WorkerPool(WorkQueue& queue, int workers, Process process);
  ~WorkerPool();  // Join()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Join waits for every worker; they exit once the queue is shut down and empty.
  void Join();
  // ActiveWorkers is how many workers are inside `process` right now.
  int ActiveWorkers() const { return active_.load(); }

 private:
  WorkQueue& queue_;
  Process process_;
  std::atomic<int> active_{0};
  std::vector<std::thread> threads_;
};

}  // namespace berth::shim
