// bench/extender_driver.cc
//
// kube-scheduler extender latency: filter + prioritize for one pod over N nodes with
// nodeCacheCapable (NodeNames), through ExtenderService (JSON decode, decisions on the
// scheduler's cache, JSON encode; the HTTP hop is not included). The cache holds N nodes, a
// reservation on every 10th node and 10 bound pods per node. Prints one JSON line with p50/p99
// for a non-owner pod and for an owner pod.
//   build/bin/extender_driver --nodes 5000 --iterations 200
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "clientgo-shim/base/json.h"
#include "controllers/extender/extender_server.h"

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

struct Figures {
  double p50_ms, p99_ms, max_ms, filter_p50_ms;
};

Figures Measure(ExtenderService& service, const std::string& body, int iterations) {
  std::vector<double> ms, filter_ms;
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto f = service.Filter(body);
    auto mid = std::chrono::steady_clock::now();
    auto p = service.Prioritize(body);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    filter_ms.push_back(std::chrono::duration<double, std::milli>(mid - start).count());
    if (f.status != 200 || p.status != 200) {
      std::fprintf(stderr, "unexpected status %d/%d: %s\n", f.status, p.status, f.body.substr(0, 200).c_str());
      std::exit(1);
    }
  }
  std::sort(ms.begin(), ms.end());
  std::sort(filter_ms.begin(), filter_ms.end());
  auto at = [&](const std::vector<double>& v, double q) {
    return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
  };
  return {at(ms, 0.50), at(ms, 0.99), ms.back(), at(filter_ms, 0.50)};
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = berth::bench::FlagInt(argc, argv, "--nodes", 5000);
  const int iterations = berth::bench::FlagInt(argc, argv, "--iterations", 200);
  SchedulerCache cache;
  auto selector = berth::json::Parse(R"({"matchLabels":{"app":"owner"}})");
  for (int i = 0; i < nodes; ++i) {
    placement::NodeView n;
    n.name = "node-" + std::to_string(i);
    n.labels = {{"kubernetes.io/hostname", n.name}};
    n.allocatable = {{"cpu", 32000}, {"memory", 128 * 1024 * kMi}, {"pods", 110 * 1000}};
    cache.UpsertNode(n);
    for (int k = 0; k < 10; ++k) {
      placement::PodSpecView pod;
      pod.namespace_name = "default";
      pod.name = n.name + "-pod-" + std::to_string(k);
      pod.uid = "uid-" + pod.name;
      pod.node_name = n.name;
      pod.requests = {{"cpu", 1000}, {"memory", 2048 * kMi}};
      cache.UpsertPod(pod);
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
    }
  }
  ExtenderService service(cache, nullptr, nullptr);
  Figures plain = Measure(service, Body("{}", nodes), iterations);
  Figures owner = Measure(service, Body(R"({"app":"owner"})", nodes), iterations);
  std::printf(
      "{\"nodes\":%d,\"iterations\":%d,\"non_owner_p50_ms\":%.3f,\"non_owner_p99_ms\":%.3f,\"non_owner_max_ms\":%.3f,"
      "\"non_owner_filter_p50_ms\":%.3f,\"owner_p50_ms\":%.3f,\"owner_p99_ms\":%.3f,\"owner_max_ms\":%.3f,"
      "\"owner_filter_p50_ms\":%.3f}\n",
      nodes, iterations, plain.p50_ms, plain.p99_ms, plain.max_ms, plain.filter_p50_ms, owner.p50_ms, owner.p99_ms,
      owner.max_ms, owner.filter_p50_ms);
  return 0;
}
