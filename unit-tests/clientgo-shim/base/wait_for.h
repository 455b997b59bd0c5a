// unit-tests/clientgo-shim/base/wait_for.h
//
// WaitFor: polls a predicate until it holds or a deadline passes, for what a test cannot be told
// of by an event (a counter another thread moves, a page a server renders).
#pragma once

#include <chrono>
#include <thread>

namespace berth::testing {

// True as soon as pred() holds; false if it still does not after `limit` (checked once more then).
template <class Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(5000),
             std::chrono::milliseconds poll = std::chrono::milliseconds(1)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(poll);
  }
  return pred();
}

}  // namespace berth::testing
