// bench/probe_server_driver.cc
//
// Measures: /healthz and /readyz?verbose latency of the probe server (clientgo-shim/metrics
//           HttpServer with ServeProbes) on loopback, one fresh connection per probe as kubelet
//           does: with no other client; under a slowloris swarm that reopens every connection the
//           server closes (server at its default limit of 256); and with the whole swarm held
//           open at once (limit raised above it).
// Run:      build/bin/probe_server_driver --slow 2000 --seconds 10
//           Flags: --slow N (2000) --seconds S per phase (10) --period-ms P between probes (10)
// Prints:   one JSON line: {"slow":…, "idle_p50_ms":…, "idle_p99_ms":…, "limited_p50_ms":…,
//           "limited_p99_ms":…, "limited_failures":…, "limited_evicted":…, "held_p50_ms":…,
//           "held_p99_ms":…, "held_failures":…, "threads_max":…, "nproc":…}
//           A failure is a probe not answered 200 within 2 s. threads_max is the process's peak
//           thread count (server, swarm and probing threads included).
// Targets:  no failures; p99 well under kubelet's default 1 s probe timeout.
// Method:   the swarm (unit-tests/clientgo-shim/metrics/raw_http_client.h) sends the start of a
//           request and then one header byte per second on each connection. Client and server
//           run in this process, so the soft RLIMIT_NOFILE is raised to 2*slow+1000.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include "bench/bench_support.h"
#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/probes.h"
#include "unit-tests/clientgo-shim/metrics/raw_http_client.h"

namespace {

namespace shim = berth::shim;
namespace testing = berth::shim::testing;
using namespace std::chrono_literals;

struct Phase {
  testing::ProbeFigures figures;
  uint64_t evicted = 0;
};

Phase RunPhase(size_t slow, bool reopen, size_t max_connections, std::chrono::seconds seconds,
               std::chrono::milliseconds period, int& threads_max) {
  shim::HealthChecks healthz, readyz;
  healthz.AddCheck("ping", shim::PingCheck);
  readyz.AddCheck("informer-sync", shim::PingCheck);
  shim::HttpServerOptions options;
  options.max_connections = max_connections;
  // Held-open phase: no slow connection may end at its deadline while measured.
  if (!reopen) options.request_timeout = seconds + 60s;
  shim::HttpServer server("127.0.0.1:0", options);
  shim::ServeProbes(server, healthz, readyz);
  auto port = server.Start();
  if (!port) {
    std::fprintf(stderr, "start: %s\n", port.error().message.c_str());
    std::exit(1);
  }
  testing::SlowClientSwarm swarm(*port, slow, 1000ms, reopen);
  if (slow > 0) {
    swarm.Start();
    if (!swarm.WaitAllOpened(120s)) {
      std::fprintf(stderr, "swarm opened only %llu of %zu\n",
                   static_cast<unsigned long long>(swarm.opened()), slow);
      std::exit(1);
    }
  }
  Phase p;
  p.figures = testing::ProbeLoop(*port, {"/healthz", "/readyz?verbose"}, seconds, period, 2s,
                                 [&] { threads_max = std::max(threads_max, testing::ThreadCount()); });
  p.evicted = server.stats().evicted;
  swarm.Stop();
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t slow = static_cast<size_t>(berth::bench::FlagInt(argc, argv, "--slow", 2000));
  const auto seconds = std::chrono::seconds(berth::bench::FlagInt(argc, argv, "--seconds", 10));
  const auto period = std::chrono::milliseconds(berth::bench::FlagInt(argc, argv, "--period-ms", 10));
  if (!testing::RaiseFdLimit(static_cast<rlim_t>(2 * slow + 1000))) {
    std::fprintf(stderr, "needs RLIMIT_NOFILE >= %zu (ulimit -n)\n", 2 * slow + 1000);
    return 1;
  }
  int threads_max = 0;
  const Phase idle = RunPhase(0, false, 256, seconds, period, threads_max);
  const Phase limited = RunPhase(slow, true, 256, seconds, period, threads_max);
  const Phase held = RunPhase(slow, false, slow + 256, seconds, period, threads_max);
  auto pct = [](const Phase& p, double q) { return testing::Percentile(p.figures.latencies_ms, q); };
  std::printf(
      "{\"slow\":%zu,\"idle_p50_ms\":%.3f,\"idle_p99_ms\":%.3f,\"limited_p50_ms\":%.3f,"
      "\"limited_p99_ms\":%.3f,\"limited_failures\":%d,\"limited_evicted\":%llu,"
      "\"held_p50_ms\":%.3f,\"held_p99_ms\":%.3f,\"held_failures\":%d,\"probes_per_phase\":%d,"
      "\"threads_max\":%d,\"nproc\":%u}\n",
      slow, pct(idle, 0.5), pct(idle, 0.99), pct(limited, 0.5), pct(limited, 0.99),
      limited.figures.failures, static_cast<unsigned long long>(limited.evicted), pct(held, 0.5),
      pct(held, 0.99), held.figures.failures, held.figures.probes, threads_max,
      std::thread::hardware_concurrency());
  return limited.figures.failures + held.figures.failures + idle.figures.failures == 0 ? 0 : 2;
}
