// Tests for the limits of clientgo-shim/metrics/http_server.h over raw loopback sockets: methods,
// HEAD, header/body limits, the whole-request deadline (slowloris), the keep-alive idle timeout,
// the connection limit, running out of file descriptors, and a handler that throws.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/probes.h"
#include "clientgo-shim/metrics/raw_http_client.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using testing::Clock;
using testing::Exchange;
using testing::GetRequest;
using testing::RawConnection;

constexpr auto kReplyTimeout = 5s;

// WaitFor polls `pred` until it holds or `timeout` passes.
template <typename Pred>
bool WaitFor(Pred pred, Clock::duration timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// CountingServer: an HttpServer on loopback with /healthz and /readyz (one check each) that
// counts how often a handler ran.
struct CountingServer {
  explicit CountingServer(HttpServerOptions options = {}) : server("127.0.0.1:0", options) {
    healthz.AddCheck("ping", [this]() -> Status {
      ++checks_run;
      return {};
    });
    readyz.AddCheck("informer-sync", PingCheck);
    ServeProbes(server, healthz, readyz);
    auto p = server.Start();
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    port = p ? *p : 0;
  }
  HealthChecks healthz, readyz;
  HttpServer server;
  std::atomic<int> checks_run{0};
  uint16_t port = 0;
};

TEST(HttpServerLimitsTest, MethodsOtherThanGetAndHeadAre405WithAllowAndRunNoHandler) {
  CountingServer s;
  for (const char* method : {"DELETE", "TRACE", "POST", "PUT", "PATCH", "OPTIONS"}) {
    testing::RawResponse r = Exchange(s.port, GetRequest("/healthz", method), kReplyTimeout);
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(r.header("allow"), "GET, HEAD") << method;
    EXPECT_EQ(r.header("connection"), "close") << method;
  }
  testing::RawResponse connect = Exchange(
      s.port, "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n", kReplyTimeout);
  EXPECT_EQ(connect.status, 405);
  EXPECT_EQ(connect.header("allow"), "GET, HEAD");
  EXPECT_EQ(s.checks_run.load(), 0) << "no handler runs for a refused method";
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
  EXPECT_EQ(s.checks_run.load(), 1);
}

TEST(HttpServerLimitsTest, PostWithABodyIs405) {
  CountingServer s;
  testing::RawResponse r = Exchange(
      s.port, "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", kReplyTimeout);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(s.checks_run.load(), 0);
}

TEST(HttpServerLimitsTest, HeadAnswersGetsHeadersWithoutABody) {
  CountingServer s;
  auto c = RawConnection::Connect(s.port);
  ASSERT_TRUE(c);
  // Keep-alive: a body sent after HEAD's headers would corrupt the GET response that follows.
  ASSERT_TRUE(c->Send("HEAD /readyz?verbose HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  testing::RawResponse head = c->ReadResponse(kReplyTimeout, /*head=*/true);
  EXPECT_EQ(head.status, 200);
  const std::string verbose = "[+]informer-sync ok\nhealthz check passed\n";
  EXPECT_EQ(head.header("content-length"), std::to_string(verbose.size()));
  EXPECT_EQ(head.body, "");
  testing::RawResponse get = c->ReadResponse(kReplyTimeout);
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "ok");
  EXPECT_TRUE(c->WaitClosed(kReplyTimeout));
  EXPECT_EQ(c->Trailing(), "") << "nothing after the GET response";
}

TEST(HttpServerLimitsTest, OversizedHeadersAre431AndTheServerKeepsServing) {
  HttpServerOptions o;
  o.header_limit = 4096;
  CountingServer s(o);
  const std::string big = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8192, 'a') +
                          "\r\n\r\n";
  EXPECT_EQ(Exchange(s.port, big, kReplyTimeout).status, 431);
  std::string many = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 400; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(Exchange(s.port, many + "\r\n", kReplyTimeout).status, 431);
  EXPECT_EQ(s.checks_run.load(), 0);
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
}

TEST(HttpServerLimitsTest, OversizedBodyIs413AndMalformedRequestIs400) {
  HttpServerOptions o;
  o.body_limit = 16;
  CountingServer s(o);
  EXPECT_EQ(Exchange(s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n",
                     kReplyTimeout)
                .status,
            413);
  testing::RawResponse bad = Exchange(s.port, "GARBAGE \x01\x02\r\n\r\n", kReplyTimeout);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Exchange(s.port, "GET /healthz HTTP/1.1\r\nContent-Length: x\r\n\r\n", kReplyTimeout)
                .status,
            400);
  EXPECT_EQ(s.checks_run.load(), 0);
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
}

TEST(HttpServerLimitsTest, SlowlorisIsCutOffAtTheWholeRequestDeadline) {
  HttpServerOptions o;
  o.request_timeout = 2s;
  CountingServer s(o);
  auto c = RawConnection::Connect(s.port);
  ASSERT_TRUE(c);
  const auto start = Clock::now();
  ASSERT_TRUE(c->Send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  // One byte per second: every read finishes quickly, so only a deadline on the whole request
  // can end it. Bounded: at most 8 bytes.
  bool closed = false;
  for (int i = 0; i < 8 && !closed; ++i) {
    closed = c->WaitClosed(1s);
    if (!closed) c->Send("a");
  }
  const auto elapsed = Clock::now() - start;
  ASSERT_TRUE(closed) << "still open after 8 s of one byte per second";
  EXPECT_GE(elapsed, 1900ms);
  EXPECT_LE(elapsed, 3500ms);
  // The deadline closes the socket before the server's handler counts it.
  EXPECT_TRUE(WaitFor([&] { return s.server.stats().timed_out == 1; }, 2s));
  EXPECT_EQ(s.checks_run.load(), 0);
}

TEST(HttpServerLimitsTest, SilentConnectionIsClosedAtTheRequestDeadline) {
  HttpServerOptions o;
  o.request_timeout = 500ms;
  CountingServer s(o);
  auto c = RawConnection::Connect(s.port);
  ASSERT_TRUE(c);
  const auto start = Clock::now();
  EXPECT_TRUE(c->WaitClosed(5s));
  EXPECT_GE(Clock::now() - start, 400ms);
}

TEST(HttpServerLimitsTest, KeepAliveServesSeveralRequestsThenClosesWhenIdle) {
  HttpServerOptions o;
  o.idle_timeout = 500ms;
  o.request_timeout = 5s;
  CountingServer s(o);
  auto c = RawConnection::Connect(s.port);
  ASSERT_TRUE(c);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c->Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    testing::RawResponse r = c->ReadResponse(kReplyTimeout);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok");
  }
  const auto idle_start = Clock::now();
  EXPECT_TRUE(c->WaitClosed(5s));
  const auto idle = Clock::now() - idle_start;
  EXPECT_GE(idle, 400ms);
  EXPECT_LE(idle, 3s) << "the idle timeout, not the 5 s request deadline";
  EXPECT_EQ(s.checks_run.load(), 3);
}

TEST(HttpServerLimitsTest, AtTheConnectionLimitTheLongestWaitingConnectionIsClosed) {
  HttpServerOptions o;
  o.max_connections = 4;
  CountingServer s(o);
  std::vector<RawConnection> slow;
  for (int i = 0; i < 4; ++i) {
    auto c = RawConnection::Connect(s.port);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send("GET /healthz HTTP/1.1\r\n"));
    slow.push_back(std::move(*c));
    // Accepted in this order, so slow[0] waits longest. The server counts a connection accepted
    // just before it lists it as open, so wait for both.
    ASSERT_TRUE(WaitFor([&] {
      const HttpServerStats st = s.server.stats();
      return st.accepted == static_cast<uint64_t>(i + 1) && st.open_connections == static_cast<size_t>(i + 1);
    }, 5s));
  }
  EXPECT_EQ(s.server.stats().open_connections, 4u);
  // A fifth client: a probe. It is answered; the oldest slow client is closed to make room.
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
  EXPECT_TRUE(slow[0].WaitClosed(kReplyTimeout));
  for (int i = 1; i < 4; ++i) EXPECT_FALSE(testing::PeerClosed(slow[i].fd())) << i;
  const HttpServerStats st = s.server.stats();
  EXPECT_EQ(st.evicted, 1u);
  EXPECT_LE(st.open_connections, 4u);
  // Many more: never more than the limit open, every probe answered.
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
    EXPECT_LE(s.server.stats().open_connections, 4u);
  }
}

// RestoreFdLimit puts RLIMIT_NOFILE back when the test ends.
struct RestoreFdLimit {
  RestoreFdLimit() { ::getrlimit(RLIMIT_NOFILE, &saved); }
  ~RestoreFdLimit() { ::setrlimit(RLIMIT_NOFILE, &saved); }
  rlimit saved{};
};

int OpenFdCount() {
  int n = 0;
  for (int fd = 0; fd < 65536; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1) ++n;
  }
  return n;
}

TEST(HttpServerLimitsTest, RunningOutOfFileDescriptorsIsSurvived) {
  RestoreFdLimit restore;
  CountingServer s;
  std::vector<RawConnection> slow;
  for (int i = 0; i < 3; ++i) {
    auto c = RawConnection::Connect(s.port);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send("GET /healthz HTTP/1.1\r\n"));
    slow.push_back(std::move(*c));
  }
  ASSERT_TRUE(WaitFor([&] { return s.server.stats().open_connections == 3; }, 5s));
  // Fill the descriptor table (the process's, shared with the server) with /dev/null.
  rlimit tight = restore.saved;
  tight.rlim_cur = static_cast<rlim_t>(OpenFdCount() + 16);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
  std::vector<int> fillers;
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fillers.push_back(fd);
  ASSERT_EQ(errno, EMFILE);
  // One slot for the client's socket; the server's accept(2) then fails with EMFILE.
  ::close(fillers.back());
  fillers.pop_back();
  auto probe = RawConnection::Connect(s.port);
  ASSERT_TRUE(probe);
  ASSERT_TRUE(probe->Send(GetRequest("/healthz")));
  // The server frees a descriptor by closing the connection waiting longest, and accepts.
  testing::RawResponse r = probe->ReadResponse(kReplyTimeout);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(slow[0].WaitClosed(kReplyTimeout));
  EXPECT_GE(s.server.stats().accept_errors, 1u);
  for (int fd : fillers) ::close(fd);
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), kReplyTimeout).status, 200);
}

TEST(HttpServerLimitsTest, HandlerThatThrowsIs500AndServingGoesOn) {
  HttpServer server("127.0.0.1:0");
  server.Handle("/boom", [](const HttpServerRequest&) -> HttpServerReply {
    throw std::runtime_error("boom");
  });
  server.Handle("/ok", [](const HttpServerRequest&) { return HttpServerReply{}; });
  auto port = server.Start();
  ASSERT_TRUE(port);
  EXPECT_EQ(Exchange(*port, GetRequest("/boom"), kReplyTimeout).status, 500);
  EXPECT_EQ(Exchange(*port, GetRequest("/ok"), kReplyTimeout).status, 200);
}

TEST(HttpServerLimitsTest, StopClosesSlowConnectionsPromptly) {
  CountingServer s;
  std::vector<RawConnection> slow;
  for (int i = 0; i < 50; ++i) {
    auto c = RawConnection::Connect(s.port);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send("GET /healthz HTTP/1.1\r\n"));
    slow.push_back(std::move(*c));
  }
  ASSERT_TRUE(WaitFor([&] { return s.server.stats().open_connections == 50; }, 5s));
  const auto start = Clock::now();
  s.server.Stop();
  EXPECT_LE(Clock::now() - start, 2s);
  for (auto& c : slow) EXPECT_TRUE(c.WaitClosed(1s));
  EXPECT_EQ(Exchange(s.port, GetRequest("/healthz"), 1s).status, 0) << "nothing listens";
}

TEST(HttpServerLimitsTest, InvalidOptionsAreRejectedAtStart) {
  HttpServerOptions o;
  o.max_connections = 0;
  HttpServer server("127.0.0.1:0", o);
  auto p = server.Start();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(p.error().message.find("max_connections"), std::string::npos);
}

}  // namespace
}  // namespace berth::shim
