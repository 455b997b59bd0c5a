// clientgo-shim/base/run_concurrently.h
//
// RunConcurrently runs task(0) … task(n - 1), each exactly once, on up to `threads` threads (the
// caller's included; helpers are started for the call and joined before it returns). Tasks are
// taken in index order as threads free up, so put the longest first when they differ. With
// threads ≤ 1 (or n ≤ 1) everything runs on the caller's thread, in order.
// Used where a cold start has CPU-bound work over many objects and nothing else to do meanwhile
// (the first list's indexes and handlers); not a pool: each call pays a thread start per helper.
// Example:
//   RunConcurrently(chunks, ConcurrentThreads(), [&](size_t i) { Prepare(chunk[i]); });
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace berth {

// ConcurrentThreads: the hardware's threads, between 1 and 4.
inline size_t ConcurrentThreads() { return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4); }

inline void RunConcurrently(size_t n, size_t threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) task(i);
  };
  std::vector<std::jthread> helpers;
  for (size_t t = 1; t < std::min(threads, n); ++t) helpers.emplace_back(work);
  work();
}

}  // namespace berth
