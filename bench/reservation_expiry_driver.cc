// bench/reservation_expiry_driver.cc
//
// Measures: how exactly berth's Reservation lifecycle controller expires reservations, against an
//           in-process kubesim over HTTPS (the same RestClient, informers and Manager as
//           berth-manager; metrics and probe servers off).
//   A: --count reservations whose `expires` deadlines are spread evenly over --spread seconds:
//      p50/p99/max lag from each deadline to the commit of its Failed status write.
//   B: --count reservations sharing one deadline: time from the deadline until the last of the
//      controller's writes (every Failed status write and every `Expired` Event) has committed,
//      against a raw baseline measured in the same run that makes the same writes: per
//      reservation one status PUT and one Event POST (the recorder's body), through the same
//      RestClient by --workers threads, before the controller runs.
//   Both: API writes per reservation (status writes from kubesim's commit stream; Events too).
// Run:      build/bin/reservation_expiry_driver                      (10,000 each, 60 s spread)
//           build/bin/reservation_expiry_driver --count 1000 --spread 10   (quick)
//           Flags: --count N (10000) --spread S (60) --workers N (4, --reservation-workers)
//                  --lead S (seconds from loading to the first deadline; default 5 + count/2000)
//                  --scenario a|b|both (both) --crd PATH
// Prints:   one JSON line: {"count":…, "a":{"p50_ms":…,"p99_ms":…,"max_ms":…,"failed":…,
//           "status_writes_per_rsv":…, "events_per_rsv":…}, "b":{"all_failed_s":…,"raw_s":…,
//           "all_written_s":…,"raw_requests_per_s":…,"ratio":…, …}}; all_failed_s: until the last
//           Failed write; all_written_s: until the last Failed write or Event, whichever is later;
//           ratio = all_written_s / raw_s. events_after_s: how long the driver waited after the last
//           Failed write for the Events (the recorder is asynchronous), up to 60 s.
// Targets:  A p99 ≤ 50 ms; B ratio ≤ 1.2; exactly 1 status write and 1 Event per reservation.
// Method:   reservations are created in-process (ApiServer::DoCreate) with `expires` in RFC3339
//           with milliseconds, and GC is off, so the only writes are the controller's. The commit
//           time of a write is taken in a store listener (ObjectStore::Subscribe, called after
//           every commit, in commit order), as system_clock, the clock `expires` is read in.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/transport/https_client.h"
#include "controllers/reservation/reservation_controller.h"
#include "bench/bench_support.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace {

using berth::kubesim::KubesimInstance;
using berth::kubesim::KubesimOptions;
using SysClock = std::chrono::system_clock;
using Clock = std::chrono::steady_clock;
namespace shim = berth::shim;
namespace json = berth::json;
namespace controllers = berth::controllers;
using berth::bench::FlagInt;
using berth::bench::FlagString;
using berth::bench::ReadFile;

constexpr char kResource[] = "scheduling.koordinator.sh/reservations";

double FlagDouble(int argc, char** argv, const std::string& name, double fallback) {
  std::string v = FlagString(argc, argv, name, "");
  if (v.empty()) return fallback;
  if (!v.empty() && v.back() == 's') v.pop_back();  // "10s" reads as 10
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  return end && *end == '\0' ? d : fallback;
}

// RFC3339 UTC with milliseconds: "2026-01-02T03:04:05.678Z".
std::string Rfc3339Millis(SysClock::time_point t) {
  auto ms = std::chrono::time_point_cast<std::chrono::milliseconds>(t);
  std::time_t secs = SysClock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(ms));
  int millis = static_cast<int>((ms.time_since_epoch() % std::chrono::seconds(1)).count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::string ReservationJson(const std::string& name, const std::string& expires, const std::string& ttl) {
  std::string spec = R"("template":{"metadata":{"namespace":"default"},"spec":{"schedulerName":"bench-none",)"
                     R"("containers":[{"name":"main","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}},)"
                     R"("owners":[{"object":{"name":"owner","namespace":"default"}}])";
  if (!expires.empty()) spec += R"(,"expires":")" + expires + "\"";
  if (!ttl.empty()) spec += R"(,"ttl":")" + ttl + "\"";
  return R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1","kind":"Reservation","metadata":{"name":")" + name +
         R"("},"spec":{)" + spec + "}}";
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

// Recorder: the store listener's view of reservation writes, by name.
struct Recorder {
  struct PerName {
    int modified = 0;              // every MODIFIED commit (all are status writes here)
    int failed_writes = 0;         // MODIFIED commits whose new version is Failed
    SysClock::time_point failed_at{};
  };
  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<std::string, PerName> by_name;
  struct Events {
    int count = 0;                 // Event ADDED/MODIFIED commits naming the object
    SysClock::time_point first_at{};
  };
  std::unordered_map<std::string, Events> events_by_object;  // by involvedObject name
  int failed_total = 0;

  void OnCommit(const berth::kubesim::HistoryEvent& e) {
    auto now = SysClock::now();
    if (e.resource == "/events" || e.resource == "events.k8s.io/events") {
      if (e.type == berth::kubesim::WatchEventType::kDeleted || !e.object) return;
      // involvedObject.name (core) or regarding.name (events.k8s.io); a cheap string search.
      const std::string& j = e.object->json;
      for (const char* key : {"\"involvedObject\":", "\"regarding\":"}) {
        auto at = j.find(key);
        if (at == std::string::npos) continue;
        auto n = j.find("\"name\":\"", at);
        if (n == std::string::npos) continue;
        n += 8;
        auto end = j.find('"', n);
        std::lock_guard lock(mu);
        auto& ev = events_by_object[j.substr(n, end - n)];
        if (ev.count++ == 0) ev.first_at = now;
        return;
      }
      return;
    }
    if (e.resource != kResource || e.type != berth::kubesim::WatchEventType::kModified || !e.object) return;
    bool failed = e.object->json.find(R"("phase":"Failed")") != std::string::npos;
    std::lock_guard lock(mu);
    auto& p = by_name[e.object->name];
    ++p.modified;
    if (failed) {
      if (p.failed_writes++ == 0) {
        p.failed_at = now;
        ++failed_total;
        cv.notify_all();
      }
    }
  }

  bool WaitFailed(int target, SysClock::time_point deadline) {
    std::unique_lock lock(mu);
    return cv.wait_until(lock, deadline, [&] { return failed_total >= target; });
  }
};

struct Created {
  std::vector<std::string> names;
  std::vector<SysClock::time_point> deadlines;
  int failed_creates = 0;
  SysClock::time_point done{};
};

// CreateReservations: DoCreate in-process, `threads` at a time.
Created CreateReservations(KubesimInstance& sim, const std::string& prefix, int count,
                           const std::function<SysClock::time_point(int)>& deadline_of, const std::string& ttl) {
  Created c;
  c.names.resize(count);
  c.deadlines.resize(count);
  auto type = sim.api().TypeOf("scheduling.koordinator.sh", "reservations");
  std::atomic<int> next{0}, failed{0};
  auto work = [&] {
    for (int i = next++; i < count; i = next++) {
      char name[64];
      std::snprintf(name, sizeof name, "%s-%05d", prefix.c_str(), i);
      c.names[i] = name;
      std::string expires;
      if (deadline_of) {
        auto d = std::chrono::time_point_cast<std::chrono::milliseconds>(deadline_of(i));
        c.deadlines[i] = d;
        expires = Rfc3339Millis(d);
      }
      auto doc = json::Parse(ReservationJson(name, expires, ttl));
      if (!doc || !sim.api().DoCreate(*type, "", std::move(*doc), {}).ok()) ++failed;
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  c.failed_creates = failed;
  c.done = SysClock::now();
  return c;
}

struct WriteCounts {
  double status_writes_per_rsv = 0;
  double events_per_rsv = 0;
  int max_status_writes = 0;
  int failed_twice = 0;
};

WriteCounts CountWrites(Recorder& rec, const Created& c) {
  WriteCounts w;
  std::lock_guard lock(rec.mu);
  long writes = 0, events = 0;
  for (const auto& name : c.names) {
    auto it = rec.by_name.find(name);
    int m = it == rec.by_name.end() ? 0 : it->second.modified;
    writes += m;
    w.max_status_writes = std::max(w.max_status_writes, m);
    if (it != rec.by_name.end() && it->second.failed_writes > 1) ++w.failed_twice;
    auto ev = rec.events_by_object.find(name);
    events += ev == rec.events_by_object.end() ? 0 : ev->second.count;
  }
  w.status_writes_per_rsv = static_cast<double>(writes) / static_cast<double>(c.names.size());
  w.events_per_rsv = static_cast<double>(events) / static_cast<double>(c.names.size());
  return w;
}

// WaitEvents polls (50 ms) until every reservation of `c` has an Event or `limit` passes; the
// recorder posts Events asynchronously, after the status writes. Returns the seconds waited.
double WaitEvents(Recorder& rec, const Created& c, std::chrono::seconds limit) {
  auto start = Clock::now();
  while (Clock::now() - start < limit) {
    if (CountWrites(rec, c).events_per_rsv >= 1.0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Ms(SysClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int count = static_cast<int>(FlagDouble(argc, argv, "--count", 10000));
  const double spread_s = FlagDouble(argc, argv, "--spread", 60);
  const int workers = static_cast<int>(FlagDouble(argc, argv, "--workers", 4));
  const double lead_s = FlagDouble(argc, argv, "--lead", 5 + count / 2000.0);
  const std::string scenario = FlagString(argc, argv, "--scenario", "both");
  if (count < 1 || spread_s < 0 || workers < 1 || lead_s <= 0 ||
      (scenario != "a" && scenario != "b" && scenario != "both")) {
    std::fprintf(stderr, "usage: reservation_expiry_driver [--count N] [--spread S] [--workers N] [--lead S] "
                         "[--scenario a|b|both] [--crd PATH]\n");
    return 2;
  }
  berth::log::SetLevel(berth::log::Level::kWarn);

  KubesimOptions options;
  options.nodes = 3;
  options.history_window = static_cast<size_t>(count) * 8 + 10000;
  KubesimInstance sim(options);
  auto port = sim.Start();
  if (!port) {
    std::fprintf(stderr, "kubesim: %s\n", port.error().message.c_str());
    return 1;
  }
  std::string crd_path = std::string(BERTH_SOURCE_DIR) + "/crds/scheduling.koordinator.sh_reservations.yaml";
  crd_path = FlagString(argc, argv, "--crd", crd_path);
  if (auto s = sim.LoadObjects(ReadFile(crd_path)); !s) {
    std::fprintf(stderr, "loading the CRD %s: %s\n", crd_path.c_str(), s.error().message.c_str());
    return 1;
  }
  Recorder rec;
  sim.store().Subscribe([&rec](const berth::kubesim::HistoryEvent& e) { rec.OnCommit(e); });

  auto https = berth::bench::ClientFor(sim);
  if (!https) {
    std::fprintf(stderr, "client: %s\n", https.error().message.c_str());
    return 1;
  }
  shim::RestClientPtr rest = *https;

  // ---- Raw baseline: the controller's writes per expiry (one status PUT, then one Event POST
  // with the recorder's body), through the same RestClient, `workers` threads. ----
  double raw_s = 0;
  int raw_errors = 0;
  if (scenario != "a") {
    Created raw = CreateReservations(sim, "raw", count, nullptr, "0s");
    const std::string expired_at = "2026-01-01T00:00:00Z";
    const std::string message = "expired at " + expired_at + " (ttl 1h)";
    std::vector<std::string> bodies(count), events(count);
    for (int i = 0; i < count; ++i) {
      auto obj = sim.store().Get(std::string(kResource), "", raw.names[i]);
      auto doc = obj ? json::Parse(obj->json) : berth::Result<json::Document>(std::unexpected(berth::MakeError(berth::ErrorCode::kNotFound, "x")));
      if (!doc) continue;
      auto& a = doc->GetAllocator();
      auto status = json::Parse(R"j({"phase":"Failed","conditions":[{"type":"Ready","status":"False","reason":"Expired",)j"
                                R"j("message":")j" + message + R"j(","lastProbeTime":")j" + expired_at + R"j(",)j"
                                R"j("lastTransitionTime":")j" + expired_at + R"j("}]})j");
      rapidjson::Value v;
      v.CopyFrom(*status, a);
      json::SetMember(*doc, "status", std::move(v), a);
      bodies[i] = json::Serialize(*doc);
      // The fields EventRecorder::CreateEvent writes, in its order.
      const std::string uid(json::GetString(*doc, {"metadata", "uid"}));
      events[i] = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")" + raw.names[i] + ".18a1b2c3d4e5f6a7" +
                  R"(","namespace":"default"},"involvedObject":{"kind":"Reservation","name":")" + raw.names[i] +
                  R"(","uid":")" + uid + R"(","apiVersion":"scheduling.koordinator.sh/v1alpha1"},"reason":"Expired",)"
                  R"("message":")" + message + R"(","source":{"component":"berth-manager"},"firstTimestamp":")" + expired_at +
                  R"(","lastTimestamp":")" + expired_at + R"(","count":1,"type":"Warning","reportingComponent":"berth-manager",)"
                  R"("reportingInstance":""})";
    }
    shim::ObjectClient client(rest);
    std::atomic<int> next{0}, errors{0};
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < workers; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < count; i = next++) {
          auto doc = json::Parse(bodies[i]);
          if (!doc) {
            ++errors;
            continue;
          }
          auto r = client.UpdateStatus(shim::ResourceRef{"scheduling.koordinator.sh", "v1alpha1", "reservations", "", raw.names[i]}, *doc);
          if (!r) ++errors;
          shim::RestRequest post;
          post.method = "POST";
          post.path = "/api/v1/namespaces/default/events";
          post.body = events[i];
          if (!rest->Do(post)) ++errors;
        }
      });
    }
    for (auto& t : threads) t.join();
    raw_s = std::chrono::duration<double>(Clock::now() - start).count();
    raw_errors = errors;
  }

  // ---- The controller, wired as berth-manager wires it (GC off: only expiry writes). ----
  auto manager = berth::bench::MakeManager(rest);
  if (!manager) {
    std::fprintf(stderr, "manager: %s\n", manager.error().message.c_str());
    return 1;
  }
  controllers::ReservationControllerOptions ro;
  ro.gc_duration = std::chrono::nanoseconds(0);
  ro.workers = workers;
  ro.scheduler_names = {"bench-none"};  // the reservations' schedulerName: managed, and no scheduler places them
  auto controller = controllers::ReservationController::Setup(**manager, rest, ro);
  if (!controller) {
    std::fprintf(stderr, "controller: %s\n", controller.error().message.c_str());
    return 1;
  }
  if (auto s = berth::bench::StartManager(**manager); !s) {
    std::fprintf(stderr, "manager start: %s\n", s.error().message.c_str());
    return 1;
  }

  std::string out = "{\"count\":" + std::to_string(count) + ",\"workers\":" + std::to_string(workers) +
                    ",\"nproc\":" + std::to_string(std::thread::hardware_concurrency());
  auto fmt = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", v);
    return std::string(b);
  };

  // ---- Scenario A: deadlines spread evenly over spread_s, the first lead_s from now. ----
  if (scenario != "b") {
    auto first = SysClock::now() + std::chrono::duration_cast<SysClock::duration>(std::chrono::duration<double>(lead_s));
    auto step = std::chrono::duration<double>(count > 1 ? spread_s / (count - 1) : 0);
    Created a = CreateReservations(sim, "rsv-a", count, [&](int i) {
      return first + std::chrono::duration_cast<SysClock::duration>(step * i);
    }, "");
    int late_creates = 0;
    for (auto d : a.deadlines) late_creates += d <= a.done ? 1 : 0;
    int target = rec.failed_total + count;
    bool all = rec.WaitFailed(target, a.deadlines.back() + std::chrono::seconds(60));
    // Let duplicate writes (if any) land before counting: bounded settle, not synchronisation.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::vector<double> lags;
    int early = 0;
    {
      std::lock_guard lock(rec.mu);
      for (int i = 0; i < count; ++i) {
        auto it = rec.by_name.find(a.names[i]);
        if (it == rec.by_name.end() || it->second.failed_writes == 0) continue;
        double lag = Ms(it->second.failed_at - a.deadlines[i]);
        if (lag < 0) ++early;
        lags.push_back(lag);
      }
    }
    double events_wait_s = WaitEvents(rec, a, std::chrono::seconds(60));
    WriteCounts w = CountWrites(rec, a);
    out += ",\"a\":{\"spread_s\":" + fmt(spread_s) + ",\"failed\":" + std::to_string(lags.size()) +
           ",\"all_failed\":" + (all ? "true" : "false") + ",\"p50_ms\":" + fmt(Percentile(lags, 0.5)) +
           ",\"p99_ms\":" + fmt(Percentile(lags, 0.99)) + ",\"max_ms\":" + fmt(lags.empty() ? 0 : *std::max_element(lags.begin(), lags.end())) +
           ",\"early\":" + std::to_string(early) + ",\"created_after_deadline\":" + std::to_string(late_creates) +
           ",\"create_failures\":" + std::to_string(a.failed_creates) +
           ",\"status_writes_per_rsv\":" + fmt(w.status_writes_per_rsv) + ",\"max_status_writes\":" +
           std::to_string(w.max_status_writes) + ",\"failed_written_twice\":" + std::to_string(w.failed_twice) +
           ",\"events_per_rsv\":" + fmt(w.events_per_rsv) + ",\"events_after_s\":" + fmt(events_wait_s) + "}";
  }

  // ---- Scenario B: one shared deadline lead_s from now. ----
  if (scenario != "a") {
    auto deadline = std::chrono::time_point_cast<std::chrono::milliseconds>(
        SysClock::now() + std::chrono::duration_cast<SysClock::duration>(std::chrono::duration<double>(lead_s)));
    Created b = CreateReservations(sim, "rsv-b", count, [&](int) { return deadline; }, "");
    int target = rec.failed_total + count;
    bool all = rec.WaitFailed(target, deadline + std::chrono::seconds(300));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // bounded settle for duplicate writes
    double events_wait_s = WaitEvents(rec, b, std::chrono::seconds(60));
    SysClock::time_point last{}, last_any{}, first_write = SysClock::time_point::max();
    int done = 0, early = 0;
    {
      std::lock_guard lock(rec.mu);
      for (const auto& name : b.names) {
        auto it = rec.by_name.find(name);
        if (it == rec.by_name.end() || it->second.failed_writes == 0) continue;
        ++done;
        last = std::max(last, it->second.failed_at);
        first_write = std::min(first_write, it->second.failed_at);
        if (it->second.failed_at < deadline) ++early;
        last_any = std::max(last_any, it->second.failed_at);
        if (auto ev = rec.events_by_object.find(name); ev != rec.events_by_object.end()) {
          last_any = std::max(last_any, ev->second.first_at);
        }
      }
    }
    WriteCounts w = CountWrites(rec, b);
    double all_s = done ? std::chrono::duration<double>(last - deadline).count() : 0;
    double all_written_s = done ? std::chrono::duration<double>(last_any - deadline).count() : 0;
    out += ",\"b\":{\"failed\":" + std::to_string(done) + ",\"all_failed\":" + (all ? "true" : "false") +
           ",\"all_failed_s\":" + fmt(all_s) + ",\"first_write_ms\":" + fmt(done ? Ms(first_write - deadline) : 0) +
           ",\"all_written_s\":" + fmt(all_written_s) + ",\"raw_s\":" + fmt(raw_s) +
           ",\"raw_requests_per_s\":" + fmt(raw_s > 0 ? 2.0 * count / raw_s : 0) +
           ",\"raw_errors\":" + std::to_string(raw_errors) + ",\"ratio\":" + fmt(raw_s > 0 ? all_written_s / raw_s : 0) +
           ",\"early\":" + std::to_string(early) + ",\"created_after_deadline\":" +
           std::to_string(b.done >= deadline ? 1 : 0) + ",\"create_failures\":" + std::to_string(b.failed_creates) +
           ",\"status_writes_per_rsv\":" + fmt(w.status_writes_per_rsv) + ",\"max_status_writes\":" +
           std::to_string(w.max_status_writes) + ",\"failed_written_twice\":" + std::to_string(w.failed_twice) +
           ",\"events_per_rsv\":" + fmt(w.events_per_rsv) + ",\"events_after_s\":" + fmt(events_wait_s) + "}";
  }
  out += "}";
  (*manager)->Stop();
  std::printf("%s\n", out.c_str());
  std::fflush(stdout);
  sim.Stop();
  return 0;
}
