// unit-tests/clientgo-shim/metrics/raw_http_client.h
//
// Test-side HTTP over raw loopback sockets, for what a client library will not send: partial,
// malformed, oversized and slow requests, and swarms of slow connections (slowloris). Used by the
// http_server tests and bench/probe_server_driver.cc. Header-only; every wait has a deadline.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace berth::shim::testing {

using Clock = std::chrono::steady_clock;

// ConnectLoopback returns a connected blocking TCP socket to 127.0.0.1:port, or -1.
inline int ConnectLoopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// PeerClosed reports, without blocking, whether the peer closed or reset `fd`.
inline bool PeerClosed(int fd) {
  char c;
  const ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;
  return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

// RawResponse: status 0 when no complete response arrived before EOF or the deadline.
struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// RawConnection: one client socket. Move-only; closes on destruction.
class RawConnection {
 public:
  static std::optional<RawConnection> Connect(uint16_t port) {
    const int fd = ConnectLoopback(port);
    if (fd < 0) return std::nullopt;
    return RawConnection(fd);
  }
  RawConnection(RawConnection&& o) noexcept : fd_(o.fd_), pending_(std::move(o.pending_)) {
    o.fd_ = -1;
  }
  RawConnection& operator=(RawConnection&&) = delete;
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // ReadResponse reads one response: headers, then Content-Length bytes of body (none when
  // `head`, the answer to a HEAD). Bytes past it stay for the next call.
  RawResponse ReadResponse(Clock::duration timeout, bool head = false) {
    const Clock::time_point deadline = Clock::now() + timeout;
    for (;;) {
      const size_t end = pending_.find("\r\n\r\n");
      if (end != std::string::npos) {
        RawResponse r = ParseHead(pending_.substr(0, end));
        size_t length = 0;
        if (!head && !r.header("content-length").empty()) {
          length = std::stoul(r.header("content-length"));
        }
        if (pending_.size() >= end + 4 + length) {
          r.body = pending_.substr(end + 4, length);
          pending_.erase(0, end + 4 + length);
          return r;
        }
      }
      if (!ReadMore(deadline)) return {};
    }
  }

  // WaitClosed waits for EOF or a reset, discarding data. Returns whether it came in time.
  bool WaitClosed(Clock::duration timeout) {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (ReadMore(deadline)) {
    }
    return eof_;
  }

  // Trailing returns bytes received after the last response (after WaitClosed: all of them).
  const std::string& Trailing() const { return pending_; }
  int fd() const { return fd_; }

 private:
  explicit RawConnection(int fd) : fd_(fd) {}

  // ReadMore appends what arrives before `deadline`. False on EOF, reset or the deadline.
  bool ReadMore(Clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof_ = true;
        return false;
      }
      pending_.append(buf, static_cast<size_t>(n));
      return true;
    }
  }

  static RawResponse ParseHead(const std::string& head) {
    RawResponse r;
    size_t line_end = head.find("\r\n");
    const std::string status_line = head.substr(0, line_end);
    if (status_line.size() >= 12 && status_line.starts_with("HTTP/1.")) {
      r.status = std::stoi(status_line.substr(9, 3));
    }
    while (line_end != std::string::npos) {
      const size_t start = line_end + 2;
      line_end = head.find("\r\n", start);
      const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos
                                                                                : line_end - start);
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    return r;
  }

  int fd_ = -1;
  std::string pending_;
  bool eof_ = false;
};

// Exchange sends `request` on a new connection and reads one response.
inline RawResponse Exchange(uint16_t port, std::string_view request, Clock::duration timeout,
                            bool head = false) {
  auto c = RawConnection::Connect(port);
  if (!c || !c->Send(request)) return {};
  return c->ReadResponse(timeout, head);
}

// GetRequest is a complete GET for `target` that asks the server to close afterwards.
inline std::string GetRequest(std::string_view target, std::string_view method = "GET") {
  return std::string(method) + " " + std::string(target) +
         " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
}

// RaiseFdLimit raises the soft RLIMIT_NOFILE to `need` (within the hard limit). Returns whether
// the soft limit is now at least `need`.
inline bool RaiseFdLimit(rlim_t need) {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0) return false;
  if (l.rlim_cur >= need) return true;
  l.rlim_cur = std::min<rlim_t>(need, l.rlim_max);
  return ::setrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur >= need;
}

// SlowClientSwarm: `count` loopback connections that each send the start of a request and then
// one header byte per `interval`, never finishing it (slowloris). With `reopen`, a connection the
// server closes is reopened on the next tick, so the pressure stays at `count`. Runs on its own
// thread from Start() until Stop() (or destruction).
class SlowClientSwarm {
 public:
  SlowClientSwarm(uint16_t port, size_t count, std::chrono::milliseconds interval, bool reopen)
      : port_(port), count_(count), interval_(interval), reopen_(reopen) {}
  ~SlowClientSwarm() { Stop(); }

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // WaitAllOpened waits until every one of the `count` connections has been opened once.
  bool WaitAllOpened(Clock::duration timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [this] { return initial_done_; }) && opened_ >= count_;
  }
  uint64_t opened() const { return opened_.load(); }          // connects that succeeded
  uint64_t closed_by_server() const { return closed_by_server_.load(); }
  uint64_t connect_failures() const { return connect_failures_.load(); }

 private:
  int OpenOne() {
    const int fd = ConnectLoopback(port_);
    if (fd < 0) {
      ++connect_failures_;
      return -1;
    }
    static constexpr std::string_view kStart = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
    ::send(fd, kStart.data(), kStart.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ++opened_;
    return fd;
  }

  void Run() {
    std::vector<int> fds;
    fds.reserve(count_);
    for (size_t i = 0; i < count_ && !Stopping(); ++i) fds.push_back(OpenOne());
    {
      std::lock_guard<std::mutex> l(mu_);
      initial_done_ = true;
    }
    cv_.notify_all();
    while (!WaitTick()) {
      for (int& fd : fds) {
        if (fd >= 0 && PeerClosed(fd)) {
          ++closed_by_server_;
          ::close(fd);
          fd = -1;
        }
        if (fd < 0) {
          if (reopen_) fd = OpenOne();
          continue;
        }
        ::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      }
    }
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }

  bool Stopping() {
    std::lock_guard<std::mutex> l(mu_);
    return stop_;
  }
  // WaitTick waits one interval. Returns true when stopped.
  bool WaitTick() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, interval_, [this] { return stop_; });
  }

  const uint16_t port_;
  const size_t count_;
  const std::chrono::milliseconds interval_;
  const bool reopen_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool initial_done_ = false;
  std::atomic<uint64_t> opened_{0};
  std::atomic<uint64_t> closed_by_server_{0};
  std::atomic<uint64_t> connect_failures_{0};
};

// ProbeFigures: what ProbeLoop measured.
struct ProbeFigures {
  std::vector<double> latencies_ms;  // of probes answered 200, ascending
  int probes = 0;
  int failures = 0;                   // no answer within the timeout, or not 200
};

// ProbeLoop sends one probe (a fresh connection, as kubelet does) every `period` for `duration`,
// cycling through `targets`, each with `timeout`. `after_each` runs after every probe (sampling).
template <typename AfterEach>
ProbeFigures ProbeLoop(uint16_t port, const std::vector<std::string>& targets,
                       Clock::duration duration, Clock::duration period, Clock::duration timeout,
                       AfterEach after_each) {
  ProbeFigures f;
  const Clock::time_point end = Clock::now() + duration;
  for (Clock::time_point next = Clock::now(); next < end; next += period) {
    std::this_thread::sleep_until(next);
    const auto start = Clock::now();
    const RawResponse r = Exchange(port, GetRequest(targets[f.probes % targets.size()]), timeout);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    ++f.probes;
    if (r.status == 200) {
      f.latencies_ms.push_back(ms);
    } else {
      ++f.failures;
    }
    after_each();
  }
  std::sort(f.latencies_ms.begin(), f.latencies_ms.end());
  return f;
}

// ThreadCount is the number of threads of this process (/proc/self/status), or -1.
inline int ThreadCount() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  int n = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "Threads: %d", &n) == 1) break;
  }
  std::fclose(f);
  return n;
}

// Percentile of `sorted` (ascending), p in [0, 1].
inline double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return sorted[i];
}

}  // namespace berth::shim::testing
