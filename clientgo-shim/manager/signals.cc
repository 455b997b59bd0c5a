// clientgo-shim/manager/signals.cc — see signals.h.
#include "clientgo-shim/manager/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace berth::shim {
namespace {

int g_pipe[2] = {-1, -1};
struct sigaction g_old_term, g_old_int;

void OnSignal(int) {
  const char b = 's';
  // write(2) is async-signal-safe; a full pipe just drops the extra signal.
  [[maybe_unused]] ssize_t n = ::write(g_pipe[1], &b, 1);
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void()> on_signal) : on_signal_(std::move(on_signal)) {
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGINT, &sa, &g_old_int);
  const int fd = g_pipe[0];
  thread_ = std::thread([this, fd] {
    char b;
    while (::read(fd, &b, 1) == 1) {
      if (b == 'q') return;  // destructor
      if (on_signal_) on_signal_();
    }
  });
}

SignalWatcher::~SignalWatcher() {
  if (g_pipe[1] < 0) return;
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGINT, &g_old_int, nullptr);
  const char q = 'q';
  [[maybe_unused]] ssize_t n = ::write(g_pipe[1], &q, 1);
  if (thread_.joinable()) thread_.join();
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

}  // namespace berth::shim
