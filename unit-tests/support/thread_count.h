// unit-tests/support/thread_count.h — the process's threads, counted for tests that check no thread
// is left behind. A joined thread can still be listed in /proc/self/task for a moment after join
// returns (the kernel reaps it after waking the joiner), so counts are compared once they settle:
// SettledThreadCount is the least count seen over a short window, ThreadCountBecomes polls with a
// deadline (a thread really left behind keeps the count up until then).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <thread>

namespace berth::test_support {

inline size_t ThreadCount() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

inline size_t SettledThreadCount(std::chrono::milliseconds window = std::chrono::milliseconds(50)) {
  const auto until = std::chrono::steady_clock::now() + window;
  size_t least = ThreadCount();
  while (std::chrono::steady_clock::now() < until) {
    least = std::min(least, ThreadCount());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return least;
}

inline bool ThreadCountBecomes(size_t n, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (ThreadCount() != n) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace berth::test_support
