// bench/extender_driver.cc
//
// kube-scheduler extender latency: filter + prioritize for one pod over N nodes with
// nodeCacheCapable (NodeNames). The cluster: N nodes, 10 bound pods per node and a reservation
// on every 10th node, owned by app=owner pods. Prints one JSON line, for a non-owner pod and
// for an owner pod (which matches N/10 reservations):
//   service_*     filter + prioritize through ExtenderService (JSON decode, decisions on the
//                 scheduler's cache, JSON encode; no HTTP hop), p50/p99/max;
//   batch_*       the decision alone for one verb, ClusterSnapshot::EvaluateOnNodes (the pod
//                 prepared once, then the per-node filters);
//   per_node_*    the same answers the way the extender first computed them, one SchedulePod
//                 pinned to each node, measured in the same run for the ratio;
//   http_*, https_* filter + prioritize as kube-scheduler sends them: POSTs on one keep-alive
//                 connection to the extender's HttpServer on loopback, plain and TLS
//                 (--extender-cert-dir's server, a kubesim-generated certificate); their cpu_*
//                 figures are the client thread's only (the server works on its own thread).
//   build/bin/extender_driver --nodes 5000 --iterations 200 [--parts service,http,https,batch,per_node]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <filesystem>
#include <fstream>
#include <optional>

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "bench/bench_support.h"
#include "clientgo-shim/base/json.h"
#include "controllers/extender/extender_server.h"
#include "e2e/kubesim/server/tls.h"

namespace placement = berth::reconcile::placement;
using berth::controllers::SchedulerCache;
using berth::controllers::extender::ExtenderService;

namespace {

constexpr int64_t kMi = int64_t{1024} * 1024 * 1000;

std::string Body(const std::string& labels, int nodes) {
  std::string body = R"({"Pod":{"metadata":{"name":"p","namespace":"default","uid":"u","labels":)" + labels +
                     R"(},"spec":{"schedulerName":"default-scheduler","containers":[{"name":"c","resources":)"
                     R"({"requests":{"cpu":"500m","memory":"1Gi"}}}]}},"Nodes":null,"NodeNames":[)";
  for (int i = 0; i < nodes; ++i) body += (i ? ",\"node-" : "\"node-") + std::to_string(i) + "\"";
  return body + "]}";
}

// Figures: wall-clock percentiles, and the thread's CPU time (what the work costs without the
// time other processes took the core, which dominates wall-clock tails on a shared machine).
struct Figures {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  double cpu_p50_ms = 0, cpu_p99_ms = 0;
};

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

Figures Measure(int iterations, const std::function<void()>& run) {
  std::vector<double> ms, cpu;
  ms.reserve(iterations);
  cpu.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    const double cpu_start = ThreadCpuMs();
    auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    cpu.push_back(ThreadCpuMs() - cpu_start);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  auto at = [](const std::vector<double>& v, double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  return {at(ms, 0.50), at(ms, 0.99), ms.back(), at(cpu, 0.50), at(cpu, 0.99)};
}

// Cluster feeds the same objects to the service's cache and to a bare snapshot.
struct Cluster {
  SchedulerCache cache;
  placement::ClusterSnapshot snapshot;
  std::vector<std::string> names;
  std::vector<std::string_view> views;

  explicit Cluster(int nodes) {
    auto selector = berth::json::Parse(R"({"matchLabels":{"app":"owner"}})");
    for (int i = 0; i < nodes; ++i) {
      placement::NodeView n;
      n.name = "node-" + std::to_string(i);
      n.labels = {{"kubernetes.io/hostname", n.name}};
      n.allocatable = {{"cpu", 32000}, {"memory", 128 * 1024 * kMi}, {"pods", 110 * 1000}};
      cache.UpsertNode(n);
      snapshot.UpsertNode(n);
      names.push_back(n.name);
      for (int k = 0; k < 10; ++k) {
        placement::PodSpecView pod;
        pod.namespace_name = "default";
        pod.name = n.name + "-pod-" + std::to_string(k);
        pod.uid = "uid-" + pod.name;
        pod.node_name = n.name;
        pod.requests = {{"cpu", 1000}, {"memory", 2048 * kMi}};
        cache.UpsertPod(pod);
        snapshot.UpsertPod(pod);
      }
      if (i % 10 == 0) {
        placement::ReservationView r;
        r.name = "r-" + std::to_string(i);
        r.uid = "ruid-" + r.name;
        r.phase = berth::reconcile::Phase::kAvailable;
        r.node_name = n.name;
        r.allocatable = {{"cpu", 4000}, {"memory", 8192 * kMi}};
        placement::ReservationOwner owner;
        owner.label_selector = *berth::shim::LabelSelector::FromJson(&*selector);
        r.owners = {owner};
        r.allocate_once = false;
        cache.UpsertReservation(r);
        snapshot.UpsertReservation(r);
      }
    }
    views.assign(names.begin(), names.end());
  }
};

placement::PodSpecView Pod(bool owner) {
  placement::PodSpecView pod;
  pod.namespace_name = "default";
  pod.name = "p";
  pod.uid = "u";
  if (owner) pod.labels = {{"app", "owner"}};
  pod.requests = {{"cpu", 500}, {"memory", 1024 * kMi}};
  return pod;
}

// HopClient: kube-scheduler's side of the hop, POSTs on one keep-alive connection.
template <class Stream>
void Post(Stream& stream, const std::string& target, const std::string& body) {
  namespace http = boost::beast::http;
  http::request<http::string_body> req{http::verb::post, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.keep_alive(true);
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  if (res.result_int() != 200) {
    std::fprintf(stderr, "%s answered %u\n", target.c_str(), res.result_int());
    std::exit(1);
  }
}

// MeasureHop: filter + prioritize through `service` on an HttpServer, plain or (with `tls`) HTTPS.
Figures MeasureHop(ExtenderService& service, const std::string& body, int iterations,
                   const berth::kubesim::TlsMaterial* tls) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  std::filesystem::path dir;
  std::string cert_dir;
  if (tls) {
    dir = std::filesystem::temp_directory_path() / ("berth-extender-driver-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "tls.crt") << tls->cert_pem;
    std::ofstream(dir / "tls.key") << tls->key_pem;
    cert_dir = dir.string();
  }
  berth::shim::HttpServer server("127.0.0.1:0", berth::controllers::extender::ExtenderServerOptions(cert_dir));
  service.Register(server);
  auto port = server.Start();
  if (!port) {
    std::fprintf(stderr, "extender server: %s\n", port.error().message.c_str());
    std::exit(1);
  }
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), *port);
  Figures f;
  if (tls) {
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.add_certificate_authority(asio::buffer(tls->ca_cert_pem));
    ctx.set_verify_mode(asio::ssl::verify_peer);
    beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
    beast::get_lowest_layer(stream).connect(endpoint);
    beast::get_lowest_layer(stream).socket().set_option(asio::ip::tcp::no_delay(true));  // as Go's net does
    stream.handshake(asio::ssl::stream_base::client);
    f = Measure(iterations, [&] {
      Post(stream, "/filter", body);
      Post(stream, "/prioritize", body);
    });
  } else {
    beast::tcp_stream stream(io);
    stream.connect(endpoint);
    stream.socket().set_option(asio::ip::tcp::no_delay(true));
    f = Measure(iterations, [&] {
      Post(stream, "/filter", body);
      Post(stream, "/prioritize", body);
    });
  }
  server.Stop();
  if (tls) std::filesystem::remove_all(dir);
  return f;
}

struct Case {
  Figures service, batch, per_node, http, https;
  int passed = 0, through_reservation = 0;
};

Case Run(Cluster& cluster, ExtenderService& service, bool owner, int iterations, const std::string& parts) {
  Case out;
  auto wanted = [&](std::string_view part) { return ("," + parts + ",").find("," + std::string(part) + ",") != std::string::npos; };
  const std::string body = Body(owner ? R"({"app":"owner"})" : "{}", static_cast<int>(cluster.names.size()));
  if (wanted("service")) out.service = Measure(iterations, [&] {
    auto f = service.Filter(body);
    auto p = service.Prioritize(body);
    if (f.status != 200 || p.status != 200) {
      std::fprintf(stderr, "unexpected status %d/%d: %s\n", f.status, p.status, f.body.substr(0, 200).c_str());
      std::exit(1);
    }
  });
  if (wanted("http")) out.http = MeasureHop(service, body, iterations, nullptr);
  if (wanted("https")) {
    auto tls = berth::kubesim::GenerateTlsMaterial();
    if (!tls) std::exit(1);
    out.https = MeasureHop(service, body, iterations, &*tls);
  }
  const placement::PodSpecView pod = Pod(owner);
  if (wanted("batch")) out.batch = Measure(iterations, [&] {
    auto evaluations = cluster.snapshot.EvaluateOnNodes(pod, cluster.views);
    if (evaluations.size() != cluster.views.size()) std::exit(1);
  });
  // The previous computation, at a tenth of the iterations (it is slow).
  if (wanted("per_node")) out.per_node = Measure(std::max(5, iterations / 10), [&] {
    placement::PodSpecView pinned = pod;
    int passed = 0;
    for (const std::string& name : cluster.names) {
      pinned.node_name = name;
      passed += cluster.snapshot.SchedulePod(pinned).has_value();
    }
    if (passed < 0) std::exit(1);
  });
  // The two computations must agree (same nodes pass, same reservations nominated).
  auto evaluations = cluster.snapshot.EvaluateOnNodes(pod, cluster.views);
  placement::PodSpecView pinned = pod;
  for (size_t i = 0; i < cluster.names.size(); ++i) {
    pinned.node_name = cluster.names[i];
    auto decision = cluster.snapshot.SchedulePod(pinned);
    const bool same = decision.has_value() == evaluations[i].fits &&
                      (!decision || decision->reservation == evaluations[i].reservation);
    if (!same) {
      std::fprintf(stderr, "batch and per-node decisions differ on %s\n", cluster.names[i].c_str());
      std::exit(1);
    }
    out.passed += evaluations[i].fits;
    out.through_reservation += evaluations[i].reservation.has_value();
  }
  return out;
}

std::string Json(const Figures& f) {
  char buf[256];
  std::snprintf(buf, sizeof buf, R"({"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,"cpu_p50_ms":%.3f,"cpu_p99_ms":%.3f})",
                f.p50_ms, f.p99_ms, f.max_ms, f.cpu_p50_ms, f.cpu_p99_ms);
  return buf;
}

void Print(const char* name, const Case& c, bool last) {
  std::printf(R"("%s":{"service":%s,"http":%s,"https":%s,"batch":%s,"per_node":%s,"decision_speedup_p50":%.1f,)"
              R"("decision_speedup_cpu_p50":%.1f,"passed":%d,"through_reservation":%d}%s)",
              name, Json(c.service).c_str(), Json(c.http).c_str(), Json(c.https).c_str(), Json(c.batch).c_str(),
              Json(c.per_node).c_str(),
              c.per_node.p50_ms / std::max(c.batch.p50_ms, 1e-6), c.per_node.cpu_p50_ms / std::max(c.batch.cpu_p50_ms, 1e-6),
              c.passed, c.through_reservation, last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = berth::bench::FlagInt(argc, argv, "--nodes", 5000);
  const int iterations = berth::bench::FlagInt(argc, argv, "--iterations", 200);
  // --parts limits what is measured (for profiling one part): service, http, https, batch, per_node.
  const std::string parts = berth::bench::FlagString(argc, argv, "--parts", "service,http,https,batch,per_node");
  Cluster cluster(nodes);
  ExtenderService service(cluster.cache, nullptr, nullptr);
  Case plain = Run(cluster, service, /*owner=*/false, iterations, parts);
  Case owner = Run(cluster, service, /*owner=*/true, iterations, parts);
  std::printf("{\"nodes\":%d,\"iterations\":%d,", nodes, iterations);
  Print("non_owner", plain, false);
  Print("owner", owner, true);
  std::printf("}\n");
  return 0;
}
