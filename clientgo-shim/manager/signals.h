// clientgo-shim/manager/signals.h
//
// SignalWatcher: turns SIGTERM and SIGINT into a callback on an ordinary thread (a self-pipe),
// so the manager can stop cleanly instead of dying mid-write. Only one SignalWatcher should exist
// at a time; the previous handlers are restored when it is destroyed.
#pragma once

#include <functional>
#include <thread>

namespace berth::shim {

class SignalWatcher {
 public:
  // Installs handlers; `on_signal` runs once per signal on the watcher's thread.
  explicit SignalWatcher(std::function<void()> on_signal);
  ~SignalWatcher();  // restores handlers and joins
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  std::function<void()> on_signal_;
  std::thread thread_;
};

}  // namespace berth::shim
