// bench/pod_decode_driver.cc
//
// Measures: the client-side cost per pod of one LIST page (500 pods) decoded from JSON and from
//           protobuf, each through the informer's path: decode the page, DefaultTransform every
//           item, pack it into the cache's form (CachedObject). Prints both and their ratio.
// Run:      build/bin/pod_decode_driver    Flags: --pages N (40) --repeat N (3) --only json|protobuf
// Prints:   one JSON line: {"pods":…, "json_bytes_per_pod":…, "protobuf_bytes_per_pod":…,
//           "json_decode_us_per_pod":…, "protobuf_decode_us_per_pod":…, "decode_ratio":…,
//           "json_total_us_per_pod":…, "protobuf_total_us_per_pod":…, "total_ratio":…,
//           "json_packed_bytes_per_pod":…, "protobuf_packed_bytes_per_pod":…, "nproc":…, "cpu":…}
//           decode = page parse (JSON) or parse + conversion to the same JSON shape (protobuf);
//           total = decode + transform + pack. Thread CPU time, best of --repeat runs, one thread.
//           protobuf_parse_only: libprotobuf's parse of the pages alone (arena freed included);
//           ..._known_fields_only: the same for pages holding only the fields proto/k8s declares.
// Method:   one Running pod as kube-apiserver returns it (~3.3 KB of JSON: managedFields, env,
//           probes, volume mounts, four conditions, container statuses). The protobuf bytes
//           are that JSON encoded with the field tables kubesim reads out of kubectl's compiled
//           k8s.io/api descriptors (e2e/kubesim/protobuf/message_tables), i.e. upstream's wire
//           format, fields berth does not read included; the decoder skips those.
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
#include "e2e/kubesim/protobuf/message_tables.h"
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

// ---- JSON -> protobuf with kubesim's tables (upstream's descriptors) --------------------------
void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void PutKey(std::string& out, uint32_t field, int wire) { PutVarint(out, (uint64_t{field} << 3) | wire); }
void PutBytes(std::string& out, uint32_t field, std::string_view b) {
  PutKey(out, field, 2);
  PutVarint(out, b.size());
  out.append(b);
}

const tables::FieldSpec* FieldNamed(const tables::MessageSpec& m, std::string_view name) {
  for (size_t i = 0; i < m.field_count; ++i) {
    if (name == m.fields[i].json_name) return &m.fields[i];
  }
  return nullptr;
}

std::string EncodeMessage(const Value& v, int message);

std::string EncodeSpecial(const Value& v, const tables::MessageSpec& m) {
  std::string out;
  switch (m.special) {
    case tables::Special::kTime:
    case tables::Special::kMicroTime: {
      if (v.IsNull()) return out;  // Go's zero time: no bytes
      auto t = shim::ParseUnixTime(std::string_view(v.GetString(), v.GetStringLength()));
      if (!t) std::abort();
      PutKey(out, 1, 0);
      PutVarint(out, static_cast<uint64_t>(t->seconds));
      return out;
    }
    case tables::Special::kQuantity:
      PutBytes(out, 1, std::string_view(v.GetString(), v.GetStringLength()));
      return out;
    case tables::Special::kIntOrString:
      if (v.IsInt()) {
        PutKey(out, 1, 0);
        PutVarint(out, 0);
        PutKey(out, 2, 0);
        PutVarint(out, static_cast<uint64_t>(static_cast<int64_t>(v.GetInt())));
      } else {
        PutKey(out, 1, 0);
        PutVarint(out, 1);
        PutBytes(out, 3, std::string_view(v.GetString(), v.GetStringLength()));
      }
      return out;
    case tables::Special::kRawJson:
      PutBytes(out, 1, json::Serialize(v));
      return out;
    default:
      std::abort();
  }
}

void EncodeValue(std::string& out, const tables::FieldSpec& f, tables::FieldKind kind, int message, const Value& v) {
  using K = tables::FieldKind;
  switch (kind) {
    case K::kString:
    case K::kBytes:
      PutBytes(out, f.number, std::string_view(v.GetString(), v.GetStringLength()));
      return;
    case K::kBool:
      PutKey(out, f.number, 0);
      PutVarint(out, v.GetBool() ? 1 : 0);
      return;
    case K::kMessage: {
      const tables::MessageSpec& m = tables::kMessages[message];
      PutBytes(out, f.number, m.special == tables::Special::kNone ? EncodeMessage(v, message) : EncodeSpecial(v, m));
      return;
    }
    default:  // the integers
      PutKey(out, f.number, 0);
      PutVarint(out, static_cast<uint64_t>(v.GetInt64()));
      return;
  }
}

std::string EncodeMessage(const Value& v, int message) {
  const tables::MessageSpec& m = tables::kMessages[message];
  std::string out;
  Value inline_source(rapidjson::kObjectType);
  rapidjson::MemoryPoolAllocator<> scratch;
  for (const auto& member : v.GetObject()) {
    const tables::FieldSpec* f = FieldNamed(m, member.name.GetString());
    if (f == nullptr) {
      // Volume embeds VolumeSource inline in JSON (field 2 on the wire).
      if (std::string_view(m.name) == "k8s.io.api.core.v1.Volume") {
        inline_source.AddMember(Value(member.name, scratch), Value(member.value, scratch), scratch);
      }
      continue;
    }
    if (f->kind == tables::FieldKind::kMap) {
      for (const auto& e : member.value.GetObject()) {
        std::string entry;
        PutBytes(entry, 1, e.name.GetString());
        tables::FieldSpec value_field{2, "", f->value_kind, false, false, f->message, f->value_kind};
        EncodeValue(entry, value_field, f->value_kind, f->message, e.value);
        PutBytes(out, f->number, entry);
      }
    } else if (f->repeated) {
      for (const auto& e : member.value.GetArray()) EncodeValue(out, *f, f->kind, f->message, e);
    } else {
      EncodeValue(out, *f, f->kind, f->message, member.value);
    }
  }
  if (inline_source.MemberCount() > 0) {
    const tables::FieldSpec* source = nullptr;
    for (size_t i = 0; i < m.field_count; ++i) {
      if (m.fields[i].number == 2) source = &m.fields[i];
    }
    PutBytes(out, 2, EncodeMessage(inline_source, source->message));
  }
  return out;
}

std::string Enveloped(const std::string& kind, const std::string& raw) {
  std::string type_meta, unknown;
  PutBytes(type_meta, 1, "v1");
  PutBytes(type_meta, 2, kind);
  PutBytes(unknown, 1, type_meta);
  PutBytes(unknown, 2, raw);
  return std::string("k8s\0", 4) + unknown;
}

// ---- measurement ------------------------------------------------------------------------------
struct Cost {
  double decode_s = 1e100;
  double total_s = 1e100;
  size_t packed_bytes = 0;
};

Cost Measure(const std::vector<std::string>& pages, std::string_view content_type, int repeat) {
  Cost best;
  for (int r = 0; r < repeat; ++r) {
    double decode = 0, total = 0;
    size_t packed = 0;
    std::vector<shim::ObjectPtr> cache;
    cache.reserve(pages.size() * kPageSize);
    for (const std::string& body : pages) {
      const Clock::time_point start = Clock::now();
      auto page = shim::DecodeListPageAs(content_type, body);
      if (!page) {
        std::fprintf(stderr, "decode failed: %s\n", page.error().message.c_str());
        std::exit(1);
      }
      const Clock::time_point decoded = Clock::now();
      Value* items = json::FindMutable(page->body, {"items"});
      for (auto& item : items->GetArray()) {
        if (!shim::DefaultTransformFn(item, page->body.GetAllocator())) std::exit(1);
        auto obj = shim::CachedObject::FromJson(item);
        if (!obj) std::exit(1);
        packed += (*obj)->FootprintBytes();
        cache.push_back(std::move(*obj));
      }
      const Clock::time_point end = Clock::now();
      decode += std::chrono::duration<double>(decoded - start).count();
      total += std::chrono::duration<double>(end - start).count();
    }
    if (total < best.total_s) best = {decode, total, packed};
  }
  return best;
}

// ParseOnly: libprotobuf's parse of every page into the generated classes, no conversion (the
// floor of the protobuf path).
// With `known_only` the pages are first re-encoded without the fields proto/k8s does not declare,
// which shows what skipping them costs.
double ParseOnly(const std::vector<std::string>& pages_in, int repeat, bool known_only) {
  std::vector<std::string> pages = pages_in;
  if (known_only) {
    for (auto& body : pages) {
      k8s::io::apimachinery::pkg::runtime::Unknown unknown;
      k8s::io::api::core::v1::PodList list;
      unknown.ParseFromArray(body.data() + 4, static_cast<int>(body.size() - 4));
      list.ParseFromString(unknown.raw());
      list.DiscardUnknownFields();
      unknown.set_raw(list.SerializeAsString());
      body = std::string("k8s\0", 4) + unknown.SerializeAsString();
    }
  }
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
  const int pod_message = tables::FindRootMessage("v1", "Pod");
  if (pod_message < 0) return 1;
  std::vector<std::string> json_pages, proto_pages;
  size_t json_bytes = 0, proto_bytes = 0;
  for (int p = 0; p < pages; ++p) {
    std::string json_page = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[)";
    std::string list;
    std::string list_meta;
    PutBytes(list_meta, 2, "9");
    PutBytes(list, 1, list_meta);
    for (int i = 0; i < kPageSize; ++i) {
      const std::string pod = PodJson(p * kPageSize + i);
      auto doc = json::Parse(pod);
      if (!doc) {
        std::fprintf(stderr, "bad pod JSON: %s\n", doc.error().message.c_str());
        return 1;
      }
      json_page += (i ? "," : "") + json::Serialize(*doc);  // compact, as the server writes it
      PutBytes(list, 2, EncodeMessage(*doc, pod_message));
    }
    json_page += "]}";
    json_bytes += json_page.size();
    proto_pages.push_back(Enveloped("PodList", list));
    proto_bytes += proto_pages.back().size();
    json_pages.push_back(std::move(json_page));
  }
  // The two paths must cache the fields berth reads identically.
  {
    auto a = shim::DecodeListPageAs("application/json", json_pages[0]);
    auto b = shim::DecodeListPageAs("application/vnd.kubernetes.protobuf", proto_pages[0]);
    if (!a || !b) {
      std::fprintf(stderr, "sanity decode failed: %s\n", (!a ? a.error() : b.error()).message.c_str());
      return 1;
    }
    for (auto path : {std::initializer_list<std::string_view>{"spec", "nodeName"},
                      std::initializer_list<std::string_view>{"status", "phase"},
                      std::initializer_list<std::string_view>{"metadata", "ownerReferences"},
                      std::initializer_list<std::string_view>{"spec", "tolerations"},
                      std::initializer_list<std::string_view>{"status", "conditions"}}) {
      const Value* x = json::Find(a->Items()[7], path);
      const Value* y = json::Find(b->Items()[7], path);
      if (!x || !y || !(*x == *y)) {
        std::fprintf(stderr, "JSON and protobuf disagree at %s\n", std::string(*path.begin()).c_str());
        return 1;
      }
    }
  }
  // --only json|protobuf measures one path (for a profiler); the other reports zeros.
  const std::string only = berth::bench::FlagString(argc, argv, "--only", "");
  const Cost j = only == "protobuf" ? Cost{0, 0, 0} : Measure(json_pages, "application/json", repeat);
  const Cost p = only == "json" ? Cost{0, 0, 0} : Measure(proto_pages, "application/vnd.kubernetes.protobuf", repeat);
  const double parse_only = only == "json" ? 0 : ParseOnly(proto_pages, repeat, false);
  const double parse_known = only == "json" ? 0 : ParseOnly(proto_pages, repeat, true);
  const double pods = static_cast<double>(pages) * kPageSize;
  std::printf(
      "{\"pods\":%.0f,\"json_bytes_per_pod\":%.0f,\"protobuf_bytes_per_pod\":%.0f,"
      "\"json_decode_us_per_pod\":%.2f,\"protobuf_decode_us_per_pod\":%.2f,\"protobuf_parse_only_us_per_pod\":%.2f,\"protobuf_parse_known_fields_only_us_per_pod\":%.2f,\"decode_ratio\":%.2f,"
      "\"json_total_us_per_pod\":%.2f,\"protobuf_total_us_per_pod\":%.2f,\"total_ratio\":%.2f,"
      "\"json_packed_bytes_per_pod\":%.0f,\"protobuf_packed_bytes_per_pod\":%.0f,\"nproc\":%ld,\"cpu\":\"%s\"}\n",
      pods, json_bytes / pods, proto_bytes / pods, j.decode_s / pods * 1e6, p.decode_s / pods * 1e6, parse_only / pods * 1e6, parse_known / pods * 1e6,
      j.decode_s / p.decode_s, j.total_s / pods * 1e6, p.total_s / pods * 1e6, j.total_s / p.total_s,
      j.packed_bytes / pods, p.packed_bytes / pods, sysconf(_SC_NPROCESSORS_ONLN), CpuModel().c_str());
  return 0;
}
