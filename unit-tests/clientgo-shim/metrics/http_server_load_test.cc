// Acceptance tests for clientgo-shim/metrics/http_server.h under a slowloris swarm: 2,000 slow
// loopback connections, and /healthz and /readyz?verbose still answer within a deadline, with no
// thread per connection. Each test is bounded (a few seconds of probes after the swarm is up).
// Needs RLIMIT_NOFILE ≥ 5000 (client and server ends share this process); the soft limit is
// raised up to the hard limit, and the test is skipped, saying so, when the hard limit is lower.
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/probes.h"
#include "clientgo-shim/metrics/raw_http_client.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using testing::Clock;

constexpr size_t kSlowConnections = 2000;
constexpr rlim_t kFdsNeeded = 2 * kSlowConnections + 1000;
constexpr auto kProbeTimeout = 2s;  // a probe slower than this counts as failed

struct ProbedServer {
  explicit ProbedServer(HttpServerOptions options) : server("127.0.0.1:0", options) {
    healthz.AddCheck("ping", PingCheck);
    readyz.AddCheck("informer-sync", PingCheck);
    ServeProbes(server, healthz, readyz);
    auto p = server.Start();
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    port = p ? *p : 0;
  }
  HealthChecks healthz, readyz;
  HttpServer server;
  uint16_t port = 0;
};

void PrintFigures(const char* name, const testing::ProbeFigures& f) {
  std::printf("%s: probes=%d failures=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", name, f.probes,
              f.failures, testing::Percentile(f.latencies_ms, 0.50),
              testing::Percentile(f.latencies_ms, 0.99),
              f.latencies_ms.empty() ? 0.0 : f.latencies_ms.back());
}

// At the default limit (256), a swarm of 2,000 that reopens every connection the server closes
// keeps the server at its limit the whole time; probes are answered because a new connection
// displaces the one waiting longest.
TEST(HttpServerLoadTest, TwoThousandSlowConnectionsAtTheDefaultLimitDoNotStopProbes) {
  if (!testing::RaiseFdLimit(kFdsNeeded)) {
    GTEST_SKIP() << "needs RLIMIT_NOFILE >= " << kFdsNeeded << " (ulimit -n)";
  }
  const int threads_before = testing::ThreadCount();
  ProbedServer s(HttpServerOptions{});
  ASSERT_NE(s.port, 0);
  testing::SlowClientSwarm swarm(s.port, kSlowConnections, 1000ms, /*reopen=*/true);
  swarm.Start();
  ASSERT_TRUE(swarm.WaitAllOpened(60s)) << "opened " << swarm.opened();
  size_t max_open = 0;
  int max_threads = 0;
  testing::ProbeFigures f = testing::ProbeLoop(
      s.port, {"/healthz", "/readyz?verbose"}, 6s, 20ms, kProbeTimeout, [&] {
        max_open = std::max(max_open, s.server.stats().open_connections);
        max_threads = std::max(max_threads, testing::ThreadCount());
      });
  const HttpServerStats st = s.server.stats();
  swarm.Stop();
  PrintFigures("default limit, 2000 slow clients reopening", f);
  std::printf("evicted=%llu swarm_reconnects=%llu\n", static_cast<unsigned long long>(st.evicted),
              static_cast<unsigned long long>(swarm.closed_by_server()));
  EXPECT_GE(f.probes, 100);
  EXPECT_EQ(f.failures, 0);
  EXPECT_LE(max_open, HttpServerOptions{}.max_connections);
  EXPECT_GE(st.evicted, kSlowConnections - HttpServerOptions{}.max_connections);
  EXPECT_GT(swarm.closed_by_server(), 0u) << "the swarm kept reconnecting";
  // The server's one I/O thread and the swarm's thread; nothing per connection.
  EXPECT_LE(max_threads, threads_before + 2);
}

// With a limit above the swarm, all 2,000 slow connections are held open at once, and probes are
// still answered: an idle or trickling connection costs the server a few KB, not a thread.
TEST(HttpServerLoadTest, TwoThousandSlowConnectionsHeldOpenAtOnceDoNotStopProbes) {
  if (!testing::RaiseFdLimit(kFdsNeeded)) {
    GTEST_SKIP() << "needs RLIMIT_NOFILE >= " << kFdsNeeded << " (ulimit -n)";
  }
  const int threads_before = testing::ThreadCount();
  HttpServerOptions o;
  o.max_connections = 4096;
  o.request_timeout = 30s;  // longer than the test: no slow connection ends on its own
  ProbedServer s(o);
  ASSERT_NE(s.port, 0);
  testing::SlowClientSwarm swarm(s.port, kSlowConnections, 1000ms, /*reopen=*/false);
  swarm.Start();
  ASSERT_TRUE(swarm.WaitAllOpened(60s)) << "opened " << swarm.opened();
  const auto deadline = Clock::now() + 30s;
  while (s.server.stats().open_connections < kSlowConnections && Clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_GE(s.server.stats().open_connections, kSlowConnections);
  size_t min_open = kSlowConnections;
  int max_threads = 0;
  testing::ProbeFigures f = testing::ProbeLoop(
      s.port, {"/healthz", "/readyz?verbose"}, 3s, 20ms, kProbeTimeout, [&] {
        min_open = std::min(min_open, s.server.stats().open_connections);
        max_threads = std::max(max_threads, testing::ThreadCount());
      });
  swarm.Stop();
  PrintFigures("2000 slow clients held open", f);
  EXPECT_GE(f.probes, 50);
  EXPECT_EQ(f.failures, 0);
  EXPECT_GE(min_open, kSlowConnections) << "the slow connections stayed open while probed";
  EXPECT_EQ(s.server.stats().evicted, 0u);
  EXPECT_LE(max_threads, threads_before + 2);
}

}  // namespace
}  // namespace berth::shim
