// bench/pod_decode_driver.cc
//
// Measures: the client-side cost per pod of one LIST page (500 pods) decoded from JSON and from
//           protobuf, each through the informer's path: decode the page, DefaultTransform every
//           item, pack it into the cache's form (CachedObject). Prints both and their ratio.
// Run:      build/bin/pod_decode_driver    Flags: --pages N (40) --repeat N (3) --only json|protobuf|parse|pack
// Prints:   one JSON line: {"pods":…, "json_bytes_per_pod":…, "protobuf_bytes_per_pod":…,
//           "json_decode_us_per_pod":…, "protobuf_decode_us_per_pod":…, "decode_ratio":…,
//           "json_total_us_per_pod":…, "protobuf_total_us_per_pod":…, "total_ratio":…,
//           "json_packed_bytes_per_pod":…, "protobuf_packed_bytes_per_pod":…, "nproc":…, "cpu":…}
//           total = decode + DefaultTransform + pack, as the reflector's DecodePage does it.
//           Thread CPU time, best of --repeat runs, one thread. protobuf_parse_only:
//           libprotobuf's parse of the pages alone (arena freed included). Before measuring, the
//           first page's pods must be cached identically from both formats (else exit 1).
// Method:   one Running pod as kube-apiserver returns it (~3.3 KB of JSON: managedFields, env,
//           probes, volume mounts, four conditions, container statuses). The protobuf bytes
//           are that JSON encoded by kubesim's ListEncoder (field tables read out of kubectl's
//           compiled k8s.io/api descriptors), i.e. upstream's wire format.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/cached_object.h"
#include "clientgo-shim/cache/transform.h"
#include "clientgo-shim/watch/watch_event.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "e2e/kubesim/protobuf/encoder.h"
#include "proto/k8s/core_v1.pb.h"
#include "proto/k8s/runtime.pb.h"
#include <google/protobuf/arena.h>

namespace {

namespace shim = berth::shim;
namespace json = berth::json;
namespace tables = berth::kubesim::protobuf;
// The thread's CPU time, not wall time: on a shared machine a wall clock also counts the time
// other processes held the core.
struct Clock {
  using time_point = std::chrono::nanoseconds;
  static time_point now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  }
};
using rapidjson::Value;

constexpr int kPageSize = 500;

std::string PodJson(int i) {
  const std::string name = "app-7-7d4b9c8f5d-" + std::to_string(100000 + i);
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","generateName":"app-7-7d4b9c8f5d-","namespace":"ns-7","uid":"5f0c1a9e-2b7d-4c1e-9a8f-)" +
         std::to_string(100000000000 + i) + R"(","resourceVersion":")" + std::to_string(5000 + i) +
         R"(","creationTimestamp":"2024-05-01T12:00:00Z",
  "labels":{"app":"app-7","pod-template-hash":"7d4b9c8f5d","tier":"backend","team":"team-7"},
  "annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9090"},
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"app-7-7d4b9c8f5d","uid":"0a1b2c3d-0000-4000-8000-000000000007","controller":true,"blockOwnerDeletion":true}],
  "managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-05-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{}},"f:spec":{"f:containers":{}}}},
                   {"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2024-05-01T12:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:podIP":{}}},"subresource":"status"}]},
 "spec":{"volumes":[{"name":"config","configMap":{"name":"app-7-config","defaultMode":420}},{"name":"kube-api-access-x1","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}],"defaultMode":420}}],
  "containers":[{"name":"app","image":"registry.example.com/app-7:1.4.2",
    "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}],
    "env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},{"name":"GOMAXPROCS","value":"2"}],
    "resources":{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":"250m","memory":"256Mi"}},
    "volumeMounts":[{"name":"config","mountPath":"/etc/app"},{"name":"kube-api-access-x1","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],
    "readinessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
    "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"},
   {"name":"sidecar","image":"registry.example.com/proxy:2.1.0","args":["--listen=:15001","--upstream=127.0.0.1:8080"],
    "resources":{"requests":{"cpu":"50m","memory":"64Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
  "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default",
  "nodeName":"node-)" + std::to_string(i % 5000) + R"(","securityContext":{},"schedulerName":"default-scheduler",
  "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
  "priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},
 "status":{"phase":"Running","conditions":[
   {"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:01Z"},
   {"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:05Z"},
   {"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:05Z"},
   {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-01T12:00:00Z"}],
  "hostIP":"10.0.3.17","podIP":"10.244.3.)" + std::to_string(i % 250) + R"(","podIPs":[{"ip":"10.244.3.)" + std::to_string(i % 250) + R"("}],
  "startTime":"2024-05-01T12:00:01Z",
  "containerStatuses":[{"name":"app","state":{"running":{"startedAt":"2024-05-01T12:00:03Z"}},"lastState":{},"ready":true,"restartCount":0,"image":"registry.example.com/app-7:1.4.2","imageID":"registry.example.com/app-7@sha256:8f4c1b2e","containerID":"containerd://1f2e3d4c","started":true},
                       {"name":"sidecar","state":{"running":{"startedAt":"2024-05-01T12:00:03Z"}},"lastState":{},"ready":true,"restartCount":0,"image":"registry.example.com/proxy:2.1.0","imageID":"registry.example.com/proxy@sha256:0a9b8c7d","containerID":"containerd://5a6b7c8d","started":true}],
  "qosClass":"Burstable"}})";
}

// ---- measurement ------------------------------------------------------------------------------
struct Cost {
  double total_s = 1e100;
  size_t footprint_bytes = 0;
};

// CacheJsonPage / CacheProtobufPage: one page through the reflector's decode (DecodePage): both
// decoded item by item (JSON parsed in place), each item transformed and packed while in cache.
void CacheJsonPage(std::string body, std::vector<shim::ObjectPtr>& cache) {
  auto meta = shim::DecodeListItemsInsitu(body, [&](Value& item, rapidjson::Document::AllocatorType& a) -> berth::Status {
    if (auto st = shim::DefaultTransformFn(item, a); !st) return st;
    auto obj = shim::CachedObject::FromJson(item);
    if (!obj) return std::unexpected(obj.error());
    cache.push_back(std::move(*obj));
    return {};
  });
  if (!meta) {
    std::fprintf(stderr, "JSON decode failed: %s\n", meta.error().message.c_str());
    std::exit(1);
  }
}

void CacheProtobufPage(const std::string& body, std::vector<shim::ObjectPtr>& cache) {
  auto meta = shim::proto::DecodeListItems(body, [&](Value& item, rapidjson::Document::AllocatorType& a) -> berth::Status {
    if (auto st = shim::DefaultTransformFn(item, a); !st) return st;
    auto obj = shim::CachedObject::FromJson(item);
    if (!obj) return std::unexpected(obj.error());
    cache.push_back(std::move(*obj));
    return {};
  });
  if (!meta) {
    std::fprintf(stderr, "protobuf decode failed: %s\n", meta.error().message.c_str());
    std::exit(1);
  }
}

Cost Measure(const std::vector<std::string>& pages, bool protobuf, int repeat) {
  Cost best;
  for (int r = 0; r < repeat; ++r) {
    std::vector<shim::ObjectPtr> cache;
    cache.reserve(pages.size() * kPageSize);
    double total = 0;
    for (const std::string& body : pages) {
      std::string copy = body;  // the in-situ parse rewrites it; the copy is not measured
      const Clock::time_point start = Clock::now();
      if (protobuf) {
        CacheProtobufPage(copy, cache);
      } else {
        CacheJsonPage(std::move(copy), cache);
      }
      total += std::chrono::duration<double>(Clock::now() - start).count();
    }
    size_t footprint = 0;
    for (const auto& obj : cache) footprint += obj->FootprintBytes();
    if (total < best.total_s) best = {total, footprint};
  }
  return best;
}

// PackOnly: CachedObject::FromJson alone (the pack into the interned form) over every page's pods,
// decoded and transformed beforehand: the share of `total` that does not depend on the wire format.
double PackOnly(const std::vector<std::string>& json_pages, int repeat) {
  std::vector<std::string> bodies(json_pages);
  std::vector<shim::ListPage> decoded;
  for (std::string& body : bodies) {
    auto page = shim::DecodeListPageInsitu(body);
    if (!page) std::exit(1);
    for (auto& item : json::FindMutable(page->body, {"items"})->GetArray()) {
      if (!shim::DefaultTransformFn(item, page->body.GetAllocator())) std::exit(1);
    }
    decoded.push_back(std::move(*page));
  }
  double best = 1e100;
  for (int r = 0; r < repeat; ++r) {
    std::vector<shim::ObjectPtr> cache;
    cache.reserve(json_pages.size() * kPageSize);
    const Clock::time_point start = Clock::now();
    for (shim::ListPage& page : decoded) {
      for (auto& item : json::FindMutable(page.body, {"items"})->GetArray()) {
        auto obj = shim::CachedObject::FromJson(item);
        if (!obj) std::exit(1);
        cache.push_back(std::move(*obj));
      }
    }
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

// ParseOnly: libprotobuf's parse of every page into the generated classes, no conversion (the
// floor of the protobuf path).
double ParseOnly(const std::vector<std::string>& pages, int repeat) {
  double best = 1e100;
  for (int r = 0; r < repeat; ++r) {
    double total = 0;
    for (const std::string& body : pages) {
      const Clock::time_point start = Clock::now();
      {
        google::protobuf::Arena arena;  // freed inside the measurement, as the decoder's is
        auto* unknown = google::protobuf::Arena::CreateMessage<k8s::io::apimachinery::pkg::runtime::Unknown>(&arena);
        auto* list = google::protobuf::Arena::CreateMessage<k8s::io::api::core::v1::PodList>(&arena);
        if (!unknown->ParseFromArray(body.data() + 4, static_cast<int>(body.size() - 4)) ||
            !list->ParseFromString(unknown->raw())) {
          std::exit(1);
        }
      }
      total += std::chrono::duration<double>(Clock::now() - start).count();
    }
    best = std::min(best, total);
  }
  return best;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const int pages = berth::bench::FlagInt(argc, argv, "--pages", 40);
  const int repeat = berth::bench::FlagInt(argc, argv, "--repeat", 3);
  std::vector<std::string> json_pages, proto_pages;
  size_t json_bytes = 0, proto_bytes = 0;
  for (int p = 0; p < pages; ++p) {
    std::string json_page = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[)";
    auto encoder = tables::ListEncoder::Create("v1", "PodList");
    if (!encoder) return 1;
    encoder->SetMetadata("9", "", 0);
    for (int i = 0; i < kPageSize; ++i) {
      auto doc = json::Parse(PodJson(p * kPageSize + i));
      if (!doc) {
        std::fprintf(stderr, "bad pod JSON: %s\n", doc.error().message.c_str());
        return 1;
      }
      json_page += (i ? "," : "") + json::Serialize(*doc);  // compact, as the server writes it
      if (auto st = encoder->AddItem(*doc); !st) {
        std::fprintf(stderr, "encode failed: %s\n", st.error().message.c_str());
        return 1;
      }
    }
    json_page += "]}";
    json_bytes += json_page.size();
    proto_pages.push_back(encoder->Finish());
    proto_bytes += proto_pages.back().size();
    json_pages.push_back(std::move(json_page));
  }
  // The two paths must cache the same objects (the whole transformed pod, not a few fields).
  {
    std::vector<shim::ObjectPtr> a, b;
    CacheJsonPage(json_pages[0], a);
    CacheProtobufPage(proto_pages[0], b);
    for (size_t i = 0; i < a.size(); ++i) {
      auto x = a[i]->ToJson();
      auto y = b[i]->ToJson();
      if (!x || !y || !(*x == *y)) {
        std::fprintf(stderr, "JSON and protobuf cache pod %zu differently:\n%s\n%s\n", i,
                     x ? json::Serialize(*x).c_str() : "", y ? json::Serialize(*y).c_str() : "");
        return 1;
      }
    }
  }
  // --only json|protobuf|parse|pack measures one path (for a profiler); the others report zeros.
  const std::string only = berth::bench::FlagString(argc, argv, "--only", "");
  const bool all = only.empty();
  const Cost j = all || only == "json" ? Measure(json_pages, false, repeat) : Cost{0, 0};
  const Cost p = all || only == "protobuf" ? Measure(proto_pages, true, repeat) : Cost{0, 0};
  const double parse_only = all || only == "parse" ? ParseOnly(proto_pages, repeat) : 0;
  const double pack_only = all || only == "pack" ? PackOnly(json_pages, repeat) : 0;
  const double pods = static_cast<double>(pages) * kPageSize;
  std::printf(
      "{\"pods\":%.0f,\"json_bytes_per_pod\":%.0f,\"protobuf_bytes_per_pod\":%.0f,"
      "\"json_total_us_per_pod\":%.2f,\"protobuf_total_us_per_pod\":%.2f,\"protobuf_parse_only_us_per_pod\":%.2f,"
      "\"pack_only_us_per_pod\":%.2f,\"json_over_protobuf\":%.2f,\"json_footprint_bytes_per_pod\":%.0f,\"protobuf_footprint_bytes_per_pod\":%.0f,"
      "\"nproc\":%ld,\"cpu\":\"%s\"}\n",
      pods, json_bytes / pods, proto_bytes / pods, j.total_s / pods * 1e6, p.total_s / pods * 1e6,
      parse_only / pods * 1e6, pack_only / pods * 1e6, p.total_s > 0 ? j.total_s / p.total_s : 0, j.footprint_bytes / pods,
      p.footprint_bytes / pods, sysconf(_SC_NPROCESSORS_ONLN), CpuModel().c_str());
  return 0;
}
