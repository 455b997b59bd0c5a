// bench/resourcepolicy_cost_driver.cc
//
// Measures: berth's resourcepolicy controller over one policy of --pods pods (default 50,000)
//           against an in-process kubesim over HTTPS (the same RestClient, informers and Manager as
//           berth-manager; metrics and probe servers off, kubesim's kubelet off).
//   1. first assignment: time from creating the policy until every pod carries its cost.
//   2. edit: swap the priorities of the first and last of 4 units; the pod writes that follow,
//      against the number of pods whose cost value changed (goal: equal, no extra write).
// Run:      build/bin/resourcepolicy_cost_driver [--pods 50000] [--nodes 200] [--crd PATH]
// Prints:   one JSON line: {"pods":…, "nproc":…, "cpu":"…", "first_assignment_s":…,
//           "first_writes":…, "edit_s":…, "edit_writes":…, "edit_cost_changes":…,
//           "edit_extra_writes":…}
// Method:   pods are created bound (spec.nodeName) in-process before the controller starts; nodes
//           are spread over 4 units (pool=u0..u3). A store listener (called after every commit, in
//           commit order) counts pod MODIFIED commits and compares the cost annotation of each
//           commit with the previous version's.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/bench_support.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/manager/manager.h"
#include "controllers/resourcepolicy/resourcepolicy_controller.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace {

using berth::kubesim::KubesimInstance;
using berth::kubesim::KubesimOptions;
using Clock = std::chrono::steady_clock;
namespace json = berth::json;
using berth::bench::FlagInt;
using berth::bench::FlagString;
using berth::bench::ReadFile;

constexpr char kCostKey[] = "\"controller.kubernetes.io/pod-deletion-cost\":\"";

// CostIn returns the cost annotation's value in a stored pod's JSON ("" when absent).
std::string CostIn(const std::string& j) {
  auto at = j.find(kCostKey);
  if (at == std::string::npos) return "";
  at += sizeof(kCostKey) - 1;
  return j.substr(at, j.find('"', at) - at);
}

struct Recorder {
  std::mutex mu;
  std::condition_variable cv;
  int64_t modified = 0;      // pod MODIFIED commits
  int64_t cost_changes = 0;  // … whose cost differs from the previous version
  int64_t with_cost = 0;     // pods carrying a cost now

  void OnCommit(const berth::kubesim::HistoryEvent& e) {
    if (e.resource != "/pods" || e.type != berth::kubesim::WatchEventType::kModified || !e.object || !e.previous) return;
    std::string before = CostIn(e.previous->json), after = CostIn(e.object->json);
    std::lock_guard lock(mu);
    ++modified;
    if (before != after) ++cost_changes;
    if (before.empty() && !after.empty()) ++with_cost;
    if (!before.empty() && after.empty()) --with_cost;
    cv.notify_all();
  }
  template <class Pred>
  bool WaitUntil(Clock::time_point deadline, Pred pred) {
    std::unique_lock lock(mu);
    return cv.wait_until(lock, deadline, [&] { return pred(); });
  }
};

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string PolicyJson(const std::vector<int>& priorities) {
  std::string units;
  for (size_t u = 0; u < priorities.size(); ++u) {
    if (u) units += ",";
    units += R"({"name":"u)" + std::to_string(u) + R"(","priority":)" + std::to_string(priorities[u]) +
             R"(,"nodeSelector":{"matchLabels":{"pool":"u)" + std::to_string(u) + R"("}}})";
  }
  return R"({"apiVersion":"scheduling.sigs.x-k8s.io/v1alpha1","kind":"ResourcePolicy","metadata":{"name":"bench","namespace":"default"},)"
         R"("spec":{"strategy":"prefer","podSelector":{"matchLabels":{"app":"bench"}},"units":[)" + units + "]}}";
}

}  // namespace

int main(int argc, char** argv) {
  berth::log::SetLevel(berth::log::Level::kWarn);
  const int pods = FlagInt(argc, argv, "--pods", 50000);
  const int nodes = FlagInt(argc, argv, "--nodes", 200);
  std::string crd_path = std::string(BERTH_SOURCE_DIR) + "/crds/scheduling.sigs.x-k8s.io_resourcepolicies.yaml";
  crd_path = FlagString(argc, argv, "--crd", crd_path);

  KubesimOptions options;
  options.cluster.kubelet = false;
  options.cluster.workload_controllers = false;
  options.history_window = static_cast<size_t>(pods) * 4 + 10000;
  KubesimInstance sim(options);
  if (auto port = sim.Start(); !port) {
    std::fprintf(stderr, "kubesim: %s\n", port.error().message.c_str());
    return 1;
  }
  const std::string crd_text = ReadFile(crd_path);
  if (crd_text.empty()) {
    std::fprintf(stderr, "cannot read the CRD %s (run from the repository root or pass --crd)\n", crd_path.c_str());
    return 1;
  }
  if (auto s = sim.LoadObjects(crd_text); !s) {
    std::fprintf(stderr, "loading the CRD %s: %s\n", crd_path.c_str(), s.error().message.c_str());
    return 1;
  }
  auto& api = sim.api();
  for (const char* ns : {"default"}) {
    auto doc = json::Parse(std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + ns + "\"}}");
    (void)api.DoCreate(*api.TypeOf("", "namespaces"), "", std::move(*doc), {});
  }
  for (int n = 0; n < nodes; ++n) {
    auto doc = json::Parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n)" + std::to_string(n) +
                           R"(","labels":{"pool":"u)" + std::to_string(n % 4) + R"("}}})");
    if (!api.DoCreate(*api.TypeOf("", "nodes"), "", std::move(*doc), {}).ok()) {
      std::fprintf(stderr, "creating node %d failed\n", n);
      return 1;
    }
  }
  {
    auto type = api.TypeOf("", "pods");
    std::atomic<int> next{0}, failed{0};
    auto work = [&] {
      for (int i = next++; i < pods; i = next++) {
        auto doc = json::Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p)" + std::to_string(i) +
                               R"(","labels":{"app":"bench"}},"spec":{"nodeName":"n)" + std::to_string(i % nodes) +
                               R"(","containers":[{"name":"c","image":"nginx"}]}})");
        if (!doc || !api.DoCreate(*type, "default", std::move(*doc), {}).ok()) ++failed;
      }
    };
    std::thread t1(work), t2(work);
    t1.join();
    t2.join();
    if (failed) {
      std::fprintf(stderr, "%d pod creates failed\n", failed.load());
      return 1;
    }
  }
  Recorder rec;
  sim.store().Subscribe([&rec](const berth::kubesim::HistoryEvent& e) { rec.OnCommit(e); });

  auto rest = berth::bench::ClientFor(sim);
  if (!rest) {
    std::fprintf(stderr, "client: %s\n", rest.error().message.c_str());
    return 1;
  }
  // The CRD is served once kubesim has established it; wait for discovery (startup only).
  for (int i = 0; i < 500 && !berth::controllers::ResourcePoliciesServed(**rest); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto manager = berth::bench::MakeManager(*rest);
  if (!manager) return 1;
  auto controller = berth::controllers::ResourcePolicyController::Setup(**manager, *rest, {});
  if (!controller) {
    std::fprintf(stderr, "controller: %s\n", controller.error().message.c_str());
    return 1;
  }
  if (auto s = berth::bench::StartManager(**manager); !s) {
    std::fprintf(stderr, "manager start: %s\n", s.error().message.c_str());
    return 1;
  }

  // 1. First full assignment.
  auto policy_type = api.TypeOf("scheduling.sigs.x-k8s.io", "resourcepolicies");
  auto start = Clock::now();
  if (!api.DoCreate(*policy_type, "default", std::move(*json::Parse(PolicyJson({1, 2, 3, 4}))), {}).ok()) {
    std::fprintf(stderr, "creating the policy failed\n");
    return 1;
  }
  bool all = rec.WaitUntil(start + std::chrono::minutes(10), [&] { return rec.with_cost == pods; });
  double first_s = std::chrono::duration<double>(Clock::now() - start).count();
  // Bounded settle so late duplicate writes (if any) are counted, not synchronisation.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  int64_t first_writes, edit_base_modified, edit_base_changes;
  {
    std::lock_guard lock(rec.mu);
    first_writes = rec.modified;
    edit_base_modified = rec.modified;
    edit_base_changes = rec.cost_changes;
  }

  // 2. Swap the priorities of u0 and u3: the pods on u0 and u3 change cost, u1 and u2 keep theirs.
  start = Clock::now();
  bool edited = api.Mutate(*policy_type, "default", "bench", "", [&](rapidjson::Document& d) {
    auto& units = d["spec"]["units"];
    units[0]["priority"].SetInt(4);
    units[3]["priority"].SetInt(1);
    return true;
  }).ok();
  if (!edited) {
    std::fprintf(stderr, "editing the policy failed\n");
    return 1;
  }
  const int64_t expected = pods / 2;  // pods are spread evenly over the 4 units' nodes
  bool edit_done = rec.WaitUntil(start + std::chrono::minutes(10),
                                 [&] { return rec.cost_changes - edit_base_changes >= expected; });
  double edit_s = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // bounded settle, as above
  int64_t edit_writes, edit_changes;
  {
    std::lock_guard lock(rec.mu);
    edit_writes = rec.modified - edit_base_modified;
    edit_changes = rec.cost_changes - edit_base_changes;
  }
  (*manager)->Stop();
  auto fmt = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", v);
    return std::string(b);
  };
  std::printf("{\"pods\":%d,\"nodes\":%d,\"nproc\":%u,\"cpu\":\"%s\",\"first_assignment_s\":%s,\"all_assigned\":%s,"
              "\"first_writes\":%lld,\"edit_s\":%s,\"edit_done\":%s,\"edit_writes\":%lld,\"edit_cost_changes\":%lld,"
              "\"edit_expected_changes\":%lld,\"edit_extra_writes\":%lld}\n",
              pods, nodes, std::thread::hardware_concurrency(), CpuModel().c_str(), fmt(first_s).c_str(),
              all ? "true" : "false", static_cast<long long>(first_writes), fmt(edit_s).c_str(),
              edit_done ? "true" : "false", static_cast<long long>(edit_writes), static_cast<long long>(edit_changes),
              static_cast<long long>(expected), static_cast<long long>(edit_writes - edit_changes));
  std::fflush(stdout);
  sim.Stop();
  return 0;
}
