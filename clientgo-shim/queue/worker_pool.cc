// clientgo-shim/queue/worker_pool.cc — see worker_pool.h.
#include "clientgo-shim/queue/worker_pool.h"

#include <algorithm>

namespace berth::shim {

WorkerPool::WorkerPool(WorkQueue& queue, int workers, Process process)
    : queue_(queue), process_(std::move(process)) {
  for (int i = 0; i < std::max(1, workers); ++i) {
    threads_.emplace_back([this] {
      while (auto key = queue_.Get()) {
        ++active_;
        process_(*key);
        --active_;
        queue_.Done(*key);
      }
    });
  }
}

WorkerPool::~WorkerPool() { Join(); }

void WorkerPool::Join() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace berth::shim
