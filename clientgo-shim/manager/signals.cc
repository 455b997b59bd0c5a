// clientgo-shim/manager/signals.cc — see signals.h.
#include "clientgo-shim/manager/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace berth::shim {
namespace {

// The innermost watcher's write end; the handler reads it, so it is a lock-free atomic.
std::atomic<int> g_write_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free);
// The handlers before the outermost watcher, restored when it goes away.
int g_depth = 0;
struct sigaction g_old_term, g_old_int;

void OnSignal(int) {
  const char b = 's';
  const int fd = g_write_fd.load();
  // write(2) is async-signal-safe; a full pipe just drops the extra signal.
  if (fd >= 0) {
    [[maybe_unused]] ssize_t n = ::write(fd, &b, 1);
  }
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void()> on_signal) : on_signal_(std::move(on_signal)) {
  if (::pipe2(pipe_, O_CLOEXEC) != 0) {
    pipe_[0] = pipe_[1] = -1;
    return;
  }
  previous_fd_ = g_write_fd.exchange(pipe_[1]);
  if (g_depth++ == 0) {
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, &g_old_term);
    sigaction(SIGINT, &sa, &g_old_int);
  }
  const int fd = pipe_[0];
  thread_ = std::thread([this, fd] {
    char b;
    while (::read(fd, &b, 1) == 1) {
      if (b == 'q') return;  // destructor
      if (on_signal_) on_signal_();
    }
  });
}

SignalWatcher::~SignalWatcher() {
  if (pipe_[1] < 0) return;
  // Signals go back to the enclosing watcher (or the old handlers) before this one stops reading.
  g_write_fd.store(previous_fd_);
  if (--g_depth == 0) {
    sigaction(SIGTERM, &g_old_term, nullptr);
    sigaction(SIGINT, &g_old_int, nullptr);
  }
  const char q = 'q';
  [[maybe_unused]] ssize_t n = ::write(pipe_[1], &q, 1);
  if (thread_.joinable()) thread_.join();
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

}  // namespace berth::shim
