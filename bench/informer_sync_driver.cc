// bench/informer_sync_driver.cc
//
// Measures: wall time for a pod informer and a node informer to sync from an in-process kubesim
//           over HTTPS (paginated LIST, 500 per page), the process RSS growth that the two caches
//           cause, and the bytes per cached pod with the default transform, both from the
//           cache's own accounting (store + interned-string pool) and from the RSS delta.
// Run:      build/bin/informer_sync_driver --pods 150000 --nodes 5000   (quick: --pods 20000)
//           Flags: --pods N (150000) --nodes N (5000) --namespaces N (50) --page-size N (500)
//           --content-type json|protobuf|both (json): what the informers ask for (both: a JSON sync
//           then a protobuf sync against the same kubesim, each its own line; --rounds N repeats
//           the pair); pod_list_content_type says what the server answered (a kubesim without
//           protobuf answers JSON)
// Prints:   one JSON line: {"pods":…, "nodes":…, "sync_s":…, "rss_delta_mb":…,
//           "bytes_per_pod_store":…, "bytes_per_pod_rss":…, "avg_pod_json_bytes":…, "nproc":…}
//           sync_cpu_s is the CPU the client process spent during the sync (kubesim runs in a
//           child process, not counted); on a shared machine it is steadier than the wall time
//           (loadavg_1m shown).
// Targets:  sync of a few seconds, ≤ 1 KB per cached pod (client-go: 10–35 KB per pod).
// Method:   kubesim runs in a forked child process (created before any thread), so the client's
//           RSS holds only the client; pods are created there in-process (DoCreate, 2 threads)
//           with a nodeName, and kubesim's kubelet marks them Running (full status) before
//           anything is measured. RSS is read after malloc_trim(0) on both sides. The RSS delta
//           includes the node cache, the TLS client and the informer threads, so it is an upper
//           bound for the pod cache.
#include <malloc.h>
#include <mutex>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/intern_pool.h"
#include "clientgo-shim/informer/shared_informer_factory.h"
#include "clientgo-shim/transport/https_client.h"
#include "bench/bench_support.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

using berth::bench::FlagInt;

namespace {

using berth::kubesim::KubesimInstance;
using berth::kubesim::KubesimOptions;
using Clock = std::chrono::steady_clock;
namespace shim = berth::shim;
namespace json = berth::json;

// ---- Object generators: the data shape of the benchmark -------------------------------------
// A Deployment-style pod: labels, an owner, two containers with env, ports, probes, requests and
// limits, volume mounts, tolerations. About 1.5 KB of JSON as submitted; the server adds
// defaults and the simulated kubelet adds status (conditions, containerStatuses, IPs).
constexpr int kApps = 300;  // Deployments/ReplicaSets the pods belong to

std::string AppName(int app) { return "app-" + std::to_string(app); }
std::string AppNamespace(int app, int namespaces) { return "ns-" + std::to_string(app % namespaces); }

// The ReplicaSet that owns an app's pods (replicas 0: kubesim runs no ReplicaSet controller,
// and the garbage collector deletes pods whose owner does not exist).
std::string MakeReplicaSet(int app, int namespaces) {
  const std::string name = AppName(app) + "-7d4b9c8f5d";
  return R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":")" + name + R"(","namespace":")" +
         AppNamespace(app, namespaces) + R"("},"spec":{"replicas":0,"selector":{"matchLabels":{"app":")" +
         AppName(app) + R"("}},"template":{"metadata":{"labels":{"app":")" + AppName(app) +
         R"("}},"spec":{"containers":[{"name":"app","image":"registry.example.com/)" + AppName(app) + R"(:1.4.2"}]}}}})";
}

std::string MakePod(int i, int nodes, int namespaces, const std::vector<std::string>& rs_uids) {
  const std::string app = AppName(i % kApps);
  const std::string rs = app + "-7d4b9c8f5d";
  const std::string name = rs + "-" + std::to_string(100000 + i);
  const std::string ns = AppNamespace(i % kApps, namespaces);
  const std::string node = "node-" + std::to_string(i % nodes);
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","labels":{"app":")" + app + R"(","pod-template-hash":"7d4b9c8f5d","tier":"backend","team":"team-)" +
         std::to_string(i % 17) + R"("},"annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9090"},)"
         R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + rs +
         R"(","uid":")" + rs_uids[i % kApps] + R"(","controller":true,"blockOwnerDeletion":true}]},)"
         R"("spec":)" + berth::bench::DeploymentPodSpecJson(app, node) + "}";
}

// ---- Measurement helpers ---------------------------------------------------------------------
double RssMb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// CpuSeconds: user + system CPU of the whole process (client and in-process server threads).
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? "" : line.substr(colon + 2);
    }
  }
  return "";
}

// Counts LIST response bytes per path, to report the raw JSON size per object.
class CountingClient : public shim::RestClient {
 public:
  explicit CountingClient(shim::RestClientPtr inner) : inner_(std::move(inner)) {}
  berth::Result<shim::RestResponse> Do(const shim::RestRequest& r) override {
    auto out = inner_->Do(r);
    if (out && r.path == "/api/v1/pods") {
      pod_list_bytes += out->body.size();
      ++pod_list_requests;
      std::lock_guard lock(mu_);
      pod_list_content_type = out->headers["content-type"];
    }
    return out;
  }
  berth::Status StreamBytes(
      const shim::RestRequest& r,
      const std::function<void(const std::map<std::string, std::string>&)>& on_headers,
      const std::function<bool(std::string_view)>& on_bytes, const std::atomic<bool>* cancel) override {
    return inner_->StreamBytes(r, on_headers, on_bytes, cancel);
  }
  std::string PodListContentType() const {
    std::lock_guard lock(mu_);
    return pod_list_content_type;
  }
  void ResetCounters() {
    pod_list_bytes = 0;
    pod_list_requests = 0;
    std::lock_guard lock(mu_);
    pod_list_content_type.clear();
  }
  berth::Status Stream(const shim::RestRequest& r,
                       const std::function<bool(std::string_view)>& on_line,
                       const std::atomic<bool>* cancel) override {
    return inner_->Stream(r, on_line, cancel);
  }
  std::atomic<uint64_t> pod_list_bytes{0};
  std::atomic<uint64_t> pod_list_requests{0};

 private:
  shim::RestClientPtr inner_;
  mutable std::mutex mu_;
  std::string pod_list_content_type;
};

}  // namespace

// RunServer is the child process: kubesim, loaded, serving until the parent closes `stop_fd`.
// It sends "port load_s failures server_pods token\n" and the CA PEM through `out_fd`.
[[noreturn]] void RunServer(int pods, int nodes, int namespaces, int out_fd, int stop_fd) {
  KubesimOptions options;
  options.nodes = nodes;
  options.history_window = 1000;  // the benchmark measures LIST + cache, not watch resume
  // The pods belong to replicas:0 ReplicaSets only so they look like real workloads; kubesim's
  // ReplicaSet controller would delete them all.
  options.cluster.workload_controllers = false;
  KubesimInstance sim(options);
  auto port = sim.Start();
  if (!port) {
    std::fprintf(stderr, "kubesim: %s\n", port.error().message.c_str());
    _exit(1);
  }

  // Load namespaces and pods in-process, on two threads.
  const auto load_start = Clock::now();
  auto ns_type = sim.api().TypeOf("", "namespaces");
  auto pod_type = sim.api().TypeOf("", "pods");
  for (int n = 0; n < namespaces; ++n) {
    auto doc = json::Parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns-)" + std::to_string(n) + "\"}}");
    sim.api().DoCreate(*ns_type, "", std::move(*doc), {});
  }
  std::atomic<int> failed{0};
  auto rs_type = sim.api().TypeOf("apps", "replicasets");
  std::vector<std::string> rs_uids;
  for (int app = 0; app < kApps; ++app) {
    auto doc = json::Parse(MakeReplicaSet(app, namespaces));
    auto r = sim.api().DoCreate(*rs_type, AppNamespace(app, namespaces), std::move(*doc), {});
    if (!r.ok()) {
      std::fprintf(stderr, "replicaset %d: create failed\n", app);
      _exit(1);
    }
    auto stored = json::Parse(r.object->json);
    rs_uids.emplace_back(json::GetString(*stored, {"metadata", "uid"}));
  }
  auto load = [&](int first, int step) {
    for (int i = first; i < pods; i += step) {
      auto doc = json::Parse(MakePod(i, nodes, namespaces, rs_uids));
      std::string ns = AppNamespace(i % kApps, namespaces);
      if (!doc || !sim.api().DoCreate(*pod_type, ns, std::move(*doc), {}).ok()) ++failed;
    }
  };
  std::thread t1(load, 0, 2), t2(load, 1, 2);
  t1.join();
  t2.join();
  // Wait for the simulated kubelet to mark every pod Running (status is part of the shape).
  auto not_running = [](const berth::kubesim::StoredObject& o) {
    auto it = o.fields.find("status.phase");
    return it == o.fields.end() || it->second != "Running";
  };
  const auto kubelet_deadline = Clock::now() + std::chrono::minutes(10);
  while (Clock::now() < kubelet_deadline) {
    auto page = sim.store().List("/pods", "", not_running, 0, 1, "");
    if (page && page->items.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double load_s = Seconds(Clock::now() - load_start);
  auto all = sim.store().List("/pods", "", nullptr, 0, 0, "");
  const size_t server_pods = all ? all->items.size() : 0;
  if (all && !all->items.empty() && std::getenv("BENCH_DUMP_POD")) std::fprintf(stderr, "%s\n", all->items[0]->json.c_str());
  all.reset();

  std::string info = std::to_string(*port) + " " + std::to_string(load_s) + " " +
                     std::to_string(failed.load()) + " " + std::to_string(server_pods) + " " +
                     sim.token() + "\n" + sim.ca_pem();
  for (size_t off = 0; off < info.size();) {
    ssize_t n = write(out_fd, info.data() + off, info.size() - off);
    if (n <= 0) _exit(1);
    off += static_cast<size_t>(n);
  }
  close(out_fd);
  char c;
  while (read(stop_fd, &c, 1) > 0) {
  }
  sim.Stop();
  _exit(0);
}

int main(int argc, char** argv) {
  const int pods = FlagInt(argc, argv, "--pods", 150000);
  const int nodes = FlagInt(argc, argv, "--nodes", 5000);
  const int namespaces = FlagInt(argc, argv, "--namespaces", 50);
  const int page_size = FlagInt(argc, argv, "--page-size", 500);
  const std::string content_type_flag = berth::bench::FlagString(argc, argv, "--content-type", "json");
  const int rounds = FlagInt(argc, argv, "--rounds", 1);
  if (pods < 0 || nodes < 1 || namespaces < 1 || page_size < 0 || rounds < 1 ||
      (content_type_flag != "json" && content_type_flag != "protobuf" && content_type_flag != "both")) {
    std::fprintf(stderr, "usage: informer_sync_driver [--pods N] [--nodes N>0] [--namespaces N>0] [--page-size N] "
                         "[--content-type json|protobuf|both] [--rounds N>0]\n");
    return 2;
  }
  // --content-type both: JSON then protobuf against the same kubesim, --rounds times.
  std::vector<std::string> content_types;
  for (int r = 0; r < rounds; ++r) {
    if (content_type_flag != "protobuf") content_types.push_back("json");
    if (content_type_flag != "json") content_types.push_back("protobuf");
  }

  // The server runs in a child process so the client's RSS is not mixed with kubesim's heap
  // (150k stored pods, LIST buffers). Fork before any thread exists.
  int to_parent[2], stop[2];
  if (pipe(to_parent) != 0 || pipe(stop) != 0) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(to_parent[0]);
    close(stop[1]);
    RunServer(pods, nodes, namespaces, to_parent[1], stop[0]);
  }
  close(to_parent[1]);
  close(stop[0]);
  std::string info;
  char buf[4096];
  for (ssize_t n; (n = read(to_parent[0], buf, sizeof buf)) > 0;) info.append(buf, static_cast<size_t>(n));
  close(to_parent[0]);
  std::istringstream header(info.substr(0, info.find('\n')));
  int port = 0, failures = 0;
  double load_s = 0;
  size_t server_pods = 0;
  std::string token;
  header >> port >> load_s >> failures >> server_pods >> token;
  if (port == 0) {
    std::fprintf(stderr, "kubesim child failed\n");
    return 1;
  }
  const std::string ca_pem = info.substr(info.find('\n') + 1);

  shim::HttpsRestClientOptions co;
  co.server = "https://127.0.0.1:" + std::to_string(port);
  co.ca_pem = ca_pem;
  co.token_source = [token] { return token; };
  co.request_timeout = std::chrono::seconds(120);
  auto https = shim::HttpsRestClient::Create(co);
  if (!https) {
    std::fprintf(stderr, "client: %s\n", https.error().message.c_str());
    return 1;
  }
  auto client = std::make_shared<CountingClient>(*https);

  bool all_ok = true;
  for (const std::string& content_type : content_types) {
    client->ResetCounters();
    malloc_trim(0);
    const double rss_before = RssMb();
    const size_t pool_before = shim::GlobalInternPool().FootprintBytes();

    shim::SharedInformerFactoryOptions fo;
    fo.page_size = page_size;
    fo.content_type = content_type == "protobuf" ? std::string(berth::shim::proto::kProtobufContentType)
                                                  : std::string(shim::kJsonContentType);
    shim::SharedInformerFactory factory(client, fo);
    auto pod_informer = factory.InformerFor({"/api/v1/pods"});
    auto node_informer = factory.InformerFor({"/api/v1/nodes"});
    const auto sync_start = Clock::now();
    const double cpu_start = CpuSeconds();
    factory.Start();
    const auto deadline = sync_start + std::chrono::minutes(10);
    const bool pods_ok = pod_informer->WaitForCacheSync(deadline);
    const double pod_sync_s = Seconds(Clock::now() - sync_start);
    const bool nodes_ok = node_informer->WaitForCacheSync(deadline);
    const double sync_s = Seconds(Clock::now() - sync_start);
    const double sync_cpu_s = CpuSeconds() - cpu_start;
    double load1 = 0;
    if (std::ifstream la("/proc/loadavg"); la) la >> load1;
    const double rss_after_raw = RssMb();
    malloc_trim(0);
    const double rss_after = RssMb();

    const size_t cached_pods = pod_informer->store().Size();
    const size_t pod_store = pod_informer->store().FootprintBytes();
    const size_t node_store = node_informer->store().FootprintBytes();
    const size_t pool = shim::GlobalInternPool().FootprintBytes() - pool_before;
    const double per_pod_store = cached_pods ? static_cast<double>(pod_store + pool) / cached_pods : 0;
    const double per_pod_rss =
        cached_pods ? (rss_after - rss_before) * 1024.0 * 1024.0 / static_cast<double>(cached_pods) : 0;
    const double avg_json = client->pod_list_requests
                                ? static_cast<double>(client->pod_list_bytes.load()) / std::max<size_t>(cached_pods, 1)
                                : 0;

    std::printf(
        "{\"pods\":%d,\"nodes\":%d,\"cached_pods\":%zu,\"cached_nodes\":%zu,\"synced\":%s,"
        "\"sync_s\":%.3f,\"pod_sync_s\":%.3f,\"sync_cpu_s\":%.3f,\"page_size\":%d,\"pod_list_requests\":%llu,"
        "\"avg_pod_json_bytes\":%.0f,\"rss_before_mb\":%.1f,\"rss_after_mb\":%.1f,"
        "\"rss_after_untrimmed_mb\":%.1f,\"rss_delta_mb\":%.1f,\"bytes_per_pod_rss\":%.0f,"
        "\"bytes_per_pod_store\":%.0f,\"pod_store_mb\":%.2f,\"node_store_mb\":%.2f,"
        "\"intern_pool_mb\":%.2f,\"intern_pool_strings\":%zu,\"load_s\":%.1f,\"load_failures\":%d,"
        "\"server_pods\":%zu,\"content_type\":\"%s\",\"pod_list_content_type\":\"%s\",\"loadavg_1m\":%.1f,\"nproc\":%u,\"cpu\":\"%s\",\"build\":\"%s\"}\n",
        pods, nodes, cached_pods, node_informer->store().Size(), pods_ok && nodes_ok ? "true" : "false",
        sync_s, pod_sync_s, sync_cpu_s, page_size, static_cast<unsigned long long>(client->pod_list_requests.load()),
        avg_json, rss_before, rss_after, rss_after_raw, rss_after - rss_before, per_pod_rss, per_pod_store,
        pod_store / 1048576.0, node_store / 1048576.0, pool / 1048576.0, shim::GlobalInternPool().Size(),
        load_s, failures, server_pods, content_type.c_str(), client->PodListContentType().c_str(), load1, std::thread::hardware_concurrency(), CpuModel().c_str(),
  #ifdef NDEBUG
        "release"
  #else
        "debug"
  #endif
    );
    factory.Stop();
    all_ok = all_ok && pods_ok && nodes_ok;
  }
  close(stop[1]);  // the child stops serving and exits
  waitpid(child, nullptr, 0);
  return all_ok ? 0 : 1;
}
