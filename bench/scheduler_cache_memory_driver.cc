// bench/scheduler_cache_memory_driver.cc
//
// Measures: what the scheduler's cache (controllers/scheduler/SchedulerCache over the
//           ClusterSnapshot) costs per bound pod: heap bytes per pod (malloc's own count, so
//           neither the informer's store nor freed memory is in it) and the time of the informer
//           handler's work per pod: the pod's view read from the cached (packed) pod as the handler
//           does it (WithPodViewJson's filtered decode into a reused buffer, then ReadPodView), the same read from the whole
//           decoded pod (the baseline the filter is measured against, in the same run), ReadPodView
//           alone on a DOM, and UpsertPod.
// Run:      build/bin/scheduler_cache_memory_driver --pods 150000 --nodes 5000
//           Flags: --pods N (150000) --nodes N (5000) --apps N (300: workloads, one label set each)
// Prints:   one JSON line: {"pods":…, "nodes":…, "apps":…, "heap_bytes_per_pod":…,
//           "cached_view_us_per_pod":…, "whole_view_us_per_pod":…, "filtered_speedup":…,
//           "read_view_us_per_pod":…, "upsert_us_per_pod":…, "nproc":…, "loadavg_1m":…}
// Target:   the whole berth-manager ≤ 1 KB per cached pod (issue 16), so this cache ≤ ~250 B.
// Method:   the pods are the shape of bench/peer/bench.mjs's (Deployment pods: four labels shared
//           by a workload's pods, two annotations, an owner, an app container with ports, env, a
//           probe and a mount, a sidecar, a volume, two tolerations), parsed once each into a DOM
//           and packed into the cache's form outside the timed and counted parts.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "bench/bench_support.h"
#include "controllers/scheduler/scheduler_cache.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_support.h"
#include "clientgo-shim/cache/cached_object.h"

using berth::bench::FlagInt;
namespace placement = berth::reconcile::placement;
using Clock = std::chrono::steady_clock;

namespace {

std::string MakePod(int i, int nodes, int apps) {
  const std::string app = "app-" + std::to_string(i % apps);
  const std::string rs = app + "-7d4b9c8f5d";
  const std::string name = rs + "-" + std::to_string(100000 + i);
  char uid[40];
  std::snprintf(uid, sizeof uid, "%08x-1c2d-4e5f-8a9b-%012x", i, i * 7919);
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"ns-)" +
         std::to_string(i % apps % 50) + R"(","uid":")" + uid + R"(","resourceVersion":"1","labels":{"app":")" + app +
         R"(","pod-template-hash":"7d4b9c8f5d","tier":"backend","team":"team-)" + std::to_string(i % apps % 17) +
         R"("},"annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9090"},)"
         R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + rs +
         R"(","uid":"rs-)" + app + R"(","controller":true,"blockOwnerDeletion":true}]},)"
         R"("spec":)" + berth::bench::DeploymentPodSpecJson(app, "node-" + std::to_string(i % nodes)) + "," +
         R"("status":{"phase":"Running","startTime":"2026-11-26T10:00:00Z"}})";
}

size_t HeapInUse() {
  malloc_trim(0);
  return mallinfo2().uordblks;
}

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return one;
}

}  // namespace

int main(int argc, char** argv) {
  const int pods = FlagInt(argc, argv, "--pods", 150000);
  const int nodes = FlagInt(argc, argv, "--nodes", 5000);
  const int apps = FlagInt(argc, argv, "--apps", 300);
  if (pods < 1 || nodes < 1 || apps < 1) {
    std::fprintf(stderr, "scheduler_cache_memory_driver: --pods, --nodes and --apps must be >= 1\n");
    return 2;
  }
  berth::controllers::SchedulerCache cache;
  for (int n = 0; n < nodes; ++n) {
    placement::NodeView node;
    node.name = "node-" + std::to_string(n);
    node.labels = {{"kubernetes.io/hostname", node.name}, {"topology.kubernetes.io/zone", "z" + std::to_string(n % 3)}};
    node.allocatable = {{"cpu", 64'000}, {"memory", 256LL * 1024 * 1024 * 1024 * 1000}, {"pods", 110'000}};
    cache.UpsertNode(node);
  }
  // The DOMs and cached objects are made first, so neither their memory nor their parse is counted.
  std::vector<rapidjson::Document> docs(pods);
  std::vector<berth::shim::ObjectPtr> cached(pods);
  for (int i = 0; i < pods; ++i) {
    docs[i].Parse(MakePod(i, nodes, apps).c_str());
    auto object = berth::shim::CachedObject::FromJson(docs[i]);
    if (!object) {
      std::fprintf(stderr, "scheduler_cache_memory_driver: pod %d: %s\n", i, object.error().message.c_str());
      return 1;
    }
    cached[i] = std::move(*object);
  }
  // The view from the cached pod as the handler reads it, and from the whole decoded pod.
  Clock::duration cached_time{};
  Clock::duration whole_time{};
  size_t checksum = 0;  // keeps the views from being optimised away, and the two reads honest
  for (int i = 0; i < pods; ++i) {
    // Alternating which read goes first, so neither always finds the pod already in cache.
    placement::PodSpecView from_filtered, from_whole;
    for (int pass = 0; pass < 2; ++pass) {
      const auto t0 = Clock::now();
      if ((i + pass) % 2 == 0) {
        from_filtered = berth::controllers::scheduler_support::WithPodViewJson(
            *cached[i], [](const rapidjson::Document& doc) { return berth::controllers::ReadPodView(doc); });
        cached_time += Clock::now() - t0;
      } else {
        auto whole = cached[i]->ToJson();
        from_whole = berth::controllers::ReadPodView(*whole);
        whole_time += Clock::now() - t0;
      }
    }
    if (from_filtered.requests != from_whole.requests || from_filtered.container_images != from_whole.container_images) {
      std::fprintf(stderr, "scheduler_cache_memory_driver: pod %d reads differently through the filter\n", i);
      return 1;
    }
    checksum += from_filtered.requests.size();
  }
  const size_t before = HeapInUse();
  Clock::duration read_time{};
  Clock::duration upsert_time{};
  for (int i = 0; i < pods; ++i) {
    auto t0 = Clock::now();
    placement::PodSpecView view = berth::controllers::ReadPodView(docs[i]);
    auto t1 = Clock::now();
    cache.UpsertPod(view);
    read_time += t1 - t0;
    upsert_time += Clock::now() - t1;
  }
  const size_t after = HeapInUse();
  if (cache.Usage("node-0") == std::nullopt) {
    std::fprintf(stderr, "scheduler_cache_memory_driver: node-0 unknown to the cache\n");
    return 1;
  }
  auto us_per_pod = [&](Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count() / pods; };
  if (checksum == 0) {
    std::fprintf(stderr, "scheduler_cache_memory_driver: no pod read any request\n");
    return 1;
  }
  std::printf(
      "{\"pods\":%d,\"nodes\":%d,\"apps\":%d,\"heap_bytes_per_pod\":%.0f,\"cached_view_us_per_pod\":%.2f,"
      "\"whole_view_us_per_pod\":%.2f,\"filtered_speedup\":%.2f,\"read_view_us_per_pod\":%.2f,"
      "\"upsert_us_per_pod\":%.2f,\"nproc\":%ld,\"loadavg_1m\":%.2f}\n",
      pods, nodes, apps, (static_cast<double>(after) - static_cast<double>(before)) / pods, us_per_pod(cached_time),
      us_per_pod(whole_time), std::chrono::duration<double>(whole_time) / std::chrono::duration<double>(cached_time),
      us_per_pod(read_time), us_per_pod(upsert_time), sysconf(_SC_NPROCESSORS_ONLN), LoadAverage());
  return 0;
}
