// SignalWatcher: signals reach the innermost watcher, nesting unwinds cleanly, handlers come back.
#include "clientgo-shim/manager/signals.h"

#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

// Counts callbacks; WaitFor blocks until a count is reached or the deadline passes.
class Calls {
 public:
  std::function<void()> Callback() {
    return [this] {
      std::lock_guard lock(mu_);
      ++count_;
      cv_.notify_all();
    };
  }
  bool WaitFor(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return count_ >= n; });
  }
  int count() {
    std::lock_guard lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

void (*CurrentHandler(int signal))(int) {
  struct sigaction now {};
  sigaction(signal, nullptr, &now);
  return now.sa_handler;
}

TEST(SignalWatcherTest, EachSignalRunsTheCallbackOnceAndTheOldHandlerIsBackAfterwards) {
  auto* before_term = CurrentHandler(SIGTERM);
  auto* before_int = CurrentHandler(SIGINT);
  Calls calls;
  {
    SignalWatcher watcher(calls.Callback());
    EXPECT_NE(CurrentHandler(SIGTERM), before_term);
    ASSERT_EQ(::raise(SIGTERM), 0);
    ASSERT_TRUE(calls.WaitFor(1));
    ASSERT_EQ(::raise(SIGINT), 0);
    ASSERT_TRUE(calls.WaitFor(2));
  }
  EXPECT_EQ(calls.count(), 2);
  EXPECT_EQ(CurrentHandler(SIGTERM), before_term);
  EXPECT_EQ(CurrentHandler(SIGINT), before_int);
}

// berth-manager's main holds a watcher around Manager::Run, which holds its own: the outer one's
// destructor used to find the shared pipe closed by the inner one, skip the join and abort the
// process (std::terminate on a joinable thread) at every clean shutdown.
TEST(SignalWatcherTest, NestedWatchersGiveTheSignalToTheInnerOneThenBackToTheOuterOneAndStopCleanly) {
  auto* before = CurrentHandler(SIGTERM);
  Calls outer_calls, inner_calls;
  {
    SignalWatcher outer(outer_calls.Callback());
    {
      SignalWatcher inner(inner_calls.Callback());
      ASSERT_EQ(::raise(SIGTERM), 0);
      ASSERT_TRUE(inner_calls.WaitFor(1));
    }
    EXPECT_EQ(outer_calls.count(), 0);
    EXPECT_NE(CurrentHandler(SIGTERM), before) << "the outer watcher still handles SIGTERM";
    ASSERT_EQ(::raise(SIGTERM), 0);
    ASSERT_TRUE(outer_calls.WaitFor(1));
  }
  EXPECT_EQ(inner_calls.count(), 1);
  EXPECT_EQ(outer_calls.count(), 1);
  EXPECT_EQ(CurrentHandler(SIGTERM), before);
}

}  // namespace
}  // namespace berth::shim
