// clientgo-shim/manager/signals.h
//
// SignalWatcher: turns SIGTERM and SIGINT into a callback on an ordinary thread (a self-pipe),
// so the manager can stop cleanly instead of dying mid-write. Watchers may nest (berth-manager's
// main and Manager::Run each hold one): the innermost live watcher gets the signals, and
// destroying it (in reverse order of construction) hands them back to the previous one.
#pragma once

#include <functional>
#include <thread>

namespace berth::shim {

class SignalWatcher {
 public:
  // Installs handlers; `on_signal` runs once per signal on the watcher's thread.
  explicit SignalWatcher(std::function<void()> on_signal);
  ~SignalWatcher();  // restores the previous handlers and watcher, and joins
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  std::function<void()> on_signal_;
  int pipe_[2] = {-1, -1};
  int previous_fd_ = -1;  // the enclosing watcher's write end, restored on destruction
  std::thread thread_;
};

}  // namespace berth::shim
