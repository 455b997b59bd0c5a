// bench/kubesim_scale_driver.cc
//
// Measures: how kubesim holds a large cluster. Loads N nodes and M pods in-process, then over
// HTTPS (the shim's HttpsRestClient, as a controller would) runs a paginated LIST of every pod
// and a dozen concurrent watchers that must each see every one of a burst of updates.
// Run:      build/bin/kubesim_scale_driver --nodes 5000 --pods 150000 --watchers 12 --updates 2000
//           [--protobuf 1]: the LISTs ask for application/vnd.kubernetes.protobuf (pages are walked
//           at the top level only: envelope, ListMeta.continue, item count); watches stay JSON.
//           Two full LISTs run: the second shows kubesim's cached protobuf encodings.
// Prints one JSON line: load time and rate, RSS (and bytes per stored pod), LIST time and rate
// over HTTPS, watch fan-out time; plus the machine (nproc). Figures are for comparison within
// one run and one machine: the LIST rate is also given relative to the in-process load rate.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "bench/bench_support.h"
#include "e2e/kubesim/protobuf/decoder.h"
#include "e2e/kubesim/protobuf/wire_reader.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

using namespace berth;
using Clock = std::chrono::steady_clock;

namespace {

// ---- Object generators: the data shape under test ----
std::string PodJson(int i, int nodes) {
  std::string n = std::to_string(i);
  std::string app = "app-" + std::to_string(i % 100);
  std::string node = "node-" + std::to_string(i % nodes);
  // No ownerReferences: kubesim's garbage collector deletes pods whose owner does not exist.
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-)" + n +
         R"(","namespace":"default","generateName":")" + app + R"(-5d8f7c9b-","labels":{"app":")" + app +
         R"(","tier":"backend","pod-template-hash":"5d8f7c9b)" + std::to_string(i % 10) +
         R"("},"annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9102"}},)"
         R"("spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"app","image":"registry.example.com/team/app:1.2.3",)"
         R"("ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],)"
         R"("env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],)"
         R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},)"
         R"("readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10},)"
         R"("volumeMounts":[{"name":"config","mountPath":"/etc/app"}]}],)"
         R"("volumes":[{"name":"config","configMap":{"name":"app-config"}}]}})";
}

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// ProtobufPage reads a protobuf List body's item count and continue token without decoding items.
Result<std::pair<size_t, std::string>> ProtobufPage(std::string_view body) {
  namespace pb = kubesim::protobuf;
  if (!body.starts_with(pb::kMagic)) return MakeError(ErrorCode::kInvalidArgument, "no protobuf magic");
  auto field = [](std::string_view bytes, std::uint32_t want, auto&& each) -> Status {
    pb::WireReader r(bytes);
    while (!r.AtEnd()) {
      auto key = r.ReadKey();
      if (!key) return std::unexpected(key.error());
      if (key->wire_type != pb::WireType::kLengthDelimited) {
        if (auto s = r.Skip(key->wire_type); !s) return s;
        continue;
      }
      auto value = r.ReadLengthDelimited();
      if (!value) return std::unexpected(value.error());
      if (key->number == want) each(*value);
    }
    return {};
  };
  std::string_view raw;
  if (auto s = field(body.substr(pb::kMagic.size()), 2, [&](std::string_view v) { raw = v; }); !s) {
    return std::unexpected(s.error());
  }
  size_t items = 0;
  std::string cont;
  if (auto s = field(raw, 2, [&](std::string_view) { ++items; }); !s) return std::unexpected(s.error());
  if (auto s = field(raw, 1, [&](std::string_view meta) {
        (void)field(meta, 3, [&](std::string_view c) { cont = std::string(c); });
      });
      !s) {
    return std::unexpected(s.error());
  }
  return std::make_pair(items, cont);
}

struct ListFigures {
  size_t listed = 0, pages = 0, bytes = 0;
  double seconds = 0;
};

// ListAll pages through every pod (limit 500), in JSON (parsed) or protobuf (walked).
Result<ListFigures> ListAll(shim::HttpsRestClient& client, bool protobuf) {
  ListFigures f;
  auto t = Clock::now();
  std::string cont;
  do {
    shim::RestRequest req;
    req.path = "/api/v1/pods";
    req.query["limit"] = "500";
    if (protobuf) req.accept = "application/vnd.kubernetes.protobuf,application/json";
    if (!cont.empty()) req.query["continue"] = cont;
    auto resp = client.Do(req);
    if (!resp) return MakeError(resp.error().code, "LIST page " + std::to_string(f.pages) + ": " + resp.error().message);
    f.bytes += resp->body.size();
    if (protobuf) {
      auto page = ProtobufPage(resp->body);
      if (!page) return std::unexpected(page.error());
      f.listed += page->first;
      cont = page->second;
    } else {
      auto doc = json::Parse(resp->body);
      if (!doc) return std::unexpected(doc.error());
      f.listed += (*doc)["items"].Size();
      cont = std::string(json::GetString(*doc, {"metadata", "continue"}));
    }
    ++f.pages;
  } while (!cont.empty());
  f.seconds = Seconds(Clock::now() - t);
  return f;
}


}  // namespace

int main(int argc, char** argv) {
  const int nodes = berth::bench::FlagInt(argc, argv, "--nodes", 5000);
  const int pods = berth::bench::FlagInt(argc, argv, "--pods", 150000);
  const int watchers = berth::bench::FlagInt(argc, argv, "--watchers", 12);
  const int updates = berth::bench::FlagInt(argc, argv, "--updates", 2000);
  const bool protobuf = berth::bench::FlagInt(argc, argv, "--protobuf", 0) != 0;

  kubesim::KubesimOptions options;
  options.nodes = 0;
  options.cluster.kubelet = false;  // measure the store, not the kubelet's status writes
  options.history_window = 200000;
  kubesim::KubesimInstance sim(options);
  auto port = sim.Start();
  if (!port) {
    std::cerr << "kubesim: " << port.error().message << "\n";
    return 1;
  }
  long rss_start = RssKb();

  // ---- Load ----
  auto t0 = Clock::now();
  for (int i = 0; i < nodes; ++i) {
    if (auto s = sim.CreateNode("node-" + std::to_string(i)); !s) {
      std::cerr << s.error().message << "\n";
      return 1;
    }
  }
  auto pod_type = sim.api().TypeOf("", "pods");
  for (int i = 0; i < pods; ++i) {
    auto doc = json::Parse(PodJson(i, nodes));
    if (!doc) {
      std::cerr << "generator produced invalid JSON: " << doc.error().message << "\n";
      return 1;
    }
    auto r = sim.api().DoCreate(*pod_type, "default", std::move(*doc), kubesim::WriteOptions{"Ignore", false, ""});
    if (!r.ok()) {
      std::cerr << "create pod " << i << " failed: " << r.error->body << "\n";
      return 1;
    }
  }
  double load_s = Seconds(Clock::now() - t0);
  if (std::getenv("BENCH_DEBUG")) std::cerr << "objects in store: " << sim.store().ObjectCount() << " rv " << sim.store().CurrentResourceVersion() << "\n";
  long rss_loaded = RssKb();

  auto client = berth::bench::ClientFor(sim);
  if (!client) {
    std::cerr << client.error().message << "\n";
    return 1;
  }

  // ---- Paginated LIST of every pod, twice ----
  auto first_list = ListAll(**client, protobuf);
  auto second_list = first_list ? ListAll(**client, protobuf) : first_list;
  if (!first_list || !second_list) {
    std::cerr << (first_list ? second_list : first_list).error().message << "\n";
    return 1;
  }
  if (first_list->listed != static_cast<size_t>(pods) || second_list->listed != static_cast<size_t>(pods)) {
    std::cerr << "LIST returned " << first_list->listed << "/" << second_list->listed << " pods, want " << pods << "\n";
    return 1;
  }
  const size_t pages = first_list->pages, bytes = first_list->bytes;
  const double list_s = first_list->seconds, list2_s = second_list->seconds;

  // ---- A dozen watchers, one burst of updates ----
  std::string from_rv = std::to_string(sim.store().CurrentResourceVersion());
  std::atomic<bool> cancel{false};
  std::vector<std::atomic<int>> seen(watchers);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int w = 0; w < watchers; ++w) {
    threads.emplace_back([&, w] {
      shim::RestRequest req;
      req.path = "/api/v1/pods";
      req.query["watch"] = "true";
      req.query["resourceVersion"] = from_rv;
      ready++;
      (void)(*client)->Stream(req, [&](std::string_view line) {
        if (line.find("\"MODIFIED\"") != std::string_view::npos) seen[w]++;
        return seen[w].load() < updates;
      }, &cancel);
    });
  }
  while (ready.load() < watchers) std::this_thread::yield();
  auto t2 = Clock::now();
  for (int i = 0; i < updates; ++i) {
    sim.api().Mutate(*pod_type, "default", "pod-" + std::to_string(i % pods), "", [&](json::Document& d) {
      auto& a = d.GetAllocator();
      json::SetString(json::EnsureObject(json::EnsureObject(d, "metadata", a), "labels", a), "bench", std::to_string(i), a);
      return true;
    });
  }
  auto deadline = Clock::now() + std::chrono::seconds(120);
  auto all_seen = [&] {
    for (auto& s : seen) {
      if (s.load() < updates) return false;
    }
    return true;
  };
  while (!all_seen() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  double watch_s = Seconds(Clock::now() - t2);
  bool watch_ok = all_seen();
  cancel = true;
  for (auto& t : threads) t.join();
  sim.Stop();

  double load_rate = (nodes + pods) / load_s;
  double list_rate = pods / list_s;
  std::printf(
      "{\"bench\":\"kubesim_scale\",\"list_media\":\"%s\",\"nproc\":%ld,\"nodes\":%d,\"pods\":%d,\"load_s\":%.2f,\"load_objects_per_s\":%.0f,"
      "\"rss_mb\":%.1f,\"rss_per_pod_bytes\":%.0f,\"list_pages\":%zu,\"list_s\":%.2f,\"list2_s\":%.2f,\"list_pods_per_s\":%.0f,"
      "\"list_mb\":%.1f,\"list_rate_vs_load_rate\":%.2f,\"watchers\":%d,\"updates\":%d,\"watch_fanout_s\":%.2f,"
      "\"watch_all_seen\":%s}\n",
      protobuf ? "protobuf" : "json", sysconf(_SC_NPROCESSORS_ONLN), nodes, pods, load_s, load_rate, rss_loaded / 1024.0,
      (rss_loaded - rss_start) * 1024.0 / (nodes + pods), pages, list_s, list2_s, list_rate, bytes / 1048576.0,
      list_rate / load_rate, watchers, updates, watch_s, watch_ok ? "true" : "false");
  return watch_ok ? 0 : 1;
}
