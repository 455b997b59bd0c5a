// Micro benchmarks for reconcile::provisioning::DecidePass (issue 10): check-capacity for one
// request of 16,384 pods on 5,000 nodes (goal: decision <= 1 s), and 100 queued requests of 100
// pods each decided serially (goal: all within 2 s). The snapshot is built outside the timing.
#include <benchmark/benchmark.h>

#include <string>

#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/check_capacity.h"

namespace {

namespace placement = berth::reconcile::placement;
namespace prov = berth::reconcile::provisioning;

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;
constexpr int kNodes = 5000;

void AddNodes(placement::ClusterSnapshot& snap) {
  for (int i = 0; i < kNodes; ++i) {
    placement::NodeView n;
    n.name = "node-" + std::to_string(i);
    n.labels = {{"kubernetes.io/hostname", n.name}};
    n.allocatable = {{"cpu", 64000}, {"memory", 256 * kGi}, {"pods", 110000}};
    snap.UpsertNode(n);
  }
}

prov::PodTemplateView Template() {
  prov::PodTemplateView t;
  t.namespace_name = "team";
  t.name = "worker";
  t.containers.push_back({{{"cpu", 4000}, {"memory", 8 * kGi}}, {}});
  return t;
}

prov::ProvisioningRequestView Request(int i, int64_t pods) {
  prov::ProvisioningRequestView r;
  r.namespace_name = "team";
  r.name = "job-" + std::to_string(i);
  r.uid = "uid-" + std::to_string(100000 + i);
  r.creation_time = prov::Time{} + std::chrono::seconds(1800000000 + i);
  r.class_name = std::string(prov::kClassCheckCapacity);
  r.pod_sets = {{"worker", pods}};
  return r;
}

void Run(benchmark::State& state, int requests, int64_t pods_each) {
  const prov::PodTemplateView tmpl = Template();
  prov::PassInput input;
  input.template_lookup = [&](std::string_view, std::string_view) { return &tmpl; };
  input.node_unschedulable = [](std::string_view) -> std::optional<bool> { return false; };
  for (int i = 0; i < requests; ++i) input.requests.push_back(Request(i, pods_each));
  const prov::Time now = prov::Time{} + std::chrono::seconds(1800001000);
  int64_t provisioned = 0;
  for (auto _ : state) {
    state.PauseTiming();
    placement::ClusterSnapshot snap;
    AddNodes(snap);
    state.ResumeTiming();
    auto decisions = prov::DecidePass(input, snap, now, {});
    provisioned = 0;
    for (const auto& d : decisions) provisioned += d.state == prov::RequestState::kProvisioned;
    benchmark::DoNotOptimize(decisions);
  }
  state.counters["requests_provisioned"] = static_cast<double>(provisioned);
  state.counters["pods"] = static_cast<double>(requests * pods_each);
}

// 16,384 pods of 4 cpu / 8Gi on 5,000 nodes of 64 cpu / 256Gi: fits (16 pods per node max).
void BM_CheckCapacity_16384PodsOn5000Nodes(benchmark::State& state) { Run(state, 1, 16384); }
BENCHMARK(BM_CheckCapacity_16384PodsOn5000Nodes)->Unit(benchmark::kMillisecond)->Iterations(3);

// 100 requests of 100 pods each, decided one after another on the same snapshot.
void BM_CheckCapacity_100RequestsOf100Pods(benchmark::State& state) { Run(state, 100, 100); }
BENCHMARK(BM_CheckCapacity_100RequestsOf100Pods)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
