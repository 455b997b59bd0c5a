// clientgo-shim/watch/reflector.h
//
// Reflector: the only I/O of the watch path. It drives a ListWatchMachine over a RestClient on
// its own thread: LIST pages (RestClient::Do) are handed to a ListPipeline as they arrive (the
// next page is requested at once, with the continue token a cheap scan finds, while workers
// parse in place, transform and pack), swapped into the Store with Replace in page order once
// the last page is decoded, then WATCH lines (RestClient::Stream)
// are decoded, transformed and applied with ApplyEvent. Errors never stop it: the machine backs
// off and relists or resumes (see list_watch_machine.h). Errors are logged (logger
// "reflector", with the resource, server and error; a failed list at error, a failed watch at
// warn, an expired resourceVersion at debug), at most once per (verb, code) per
// error_log_interval, and the last one is kept for /readyz.
// Generic over any resource: give it the collection path ("/api/v1/pods",
// "/apis/scheduling.koordinator.sh/v1alpha1/reservations") and optional selectors.
// Memory: at most list_decode_workers + 1 raw pages (≤500 objects each) wait or are decoded
// while one more is received; the
// store's previous contents and the new list (both packed) coexist during Replace.
// Thread-safety: Start/Stop from one owner thread; HasSynced/WaitForCacheSync/Stats from any.
// Example:
//   auto store = std::make_shared<Store>();
//   Reflector r(client, store, {.list_watch = {.path = "/api/v1/pods"}});
//   r.Start();  r.WaitForCacheSync(std::chrono::steady_clock::now() + 30s);
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "clientgo-shim/base/rate_limited_log.h"
#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/cache/transform.h"
#include "clientgo-shim/transport/rest_client.h"
#include "clientgo-shim/watch/backoff.h"
#include "clientgo-shim/watch/list_pipeline.h"
#include "clientgo-shim/watch/list_watch_machine.h"

namespace berth::shim {

// DefaultListDecodeWorkers: std::thread::hardware_concurrency(), between 1 and 4.
int DefaultListDecodeWorkers();

// ReflectorOptions: each field says its default.
struct ReflectorOptions {
  ListWatchOptions list_watch;               // path (required), selectors, paging, backoff
  // Runs on the list decode workers, several at once: it must be thread-safe (pure).
  Transform transform = DefaultTransform();  // Default: DefaultTransform().
  // Threads that decode LIST pages while the next is fetched; 0 decodes each page on the
  // reflector's thread before requesting the next. Default: the hardware threads, at most 4.
  int list_decode_workers = DefaultListDecodeWorkers();
  uint64_t rng_seed = 0;                     // 0: seeded from the clock. Default: 0.
  // One log line per (list|watch, HTTP code) per interval; 0 logs every error. Default: 30 s.
  std::chrono::milliseconds error_log_interval{30000};
};

// ReflectorStats: counters for tests, benchmarks and metrics.
struct ReflectorStats {
  uint64_t list_requests = 0;   // LIST requests sent (pages count one each)
  uint64_t lists_completed = 0; // full lists swapped into the store (1 + relists)
  uint64_t watch_requests = 0;  // WATCH streams opened
  uint64_t watch_events = 0;    // ADDED/MODIFIED/DELETED applied
  uint64_t bookmarks = 0;
  uint64_t errors = 0;          // failed requests, ERROR events, decode errors
  uint64_t relist_errors = 0;   // errors that forced a relist (410/Expired/too-large RV)
  uint64_t dropped_objects = 0; // objects a transform rejected or that could not be cached
  std::string last_error;
  std::string last_error_op;    // "list" or "watch": what last_error came from
};

class Reflector {
 public:
  // `store` receives everything; `clock` must outlive the reflector.
  Reflector(RestClientPtr client, std::shared_ptr<Store> store, ReflectorOptions options,
            const Clock& clock = SystemClock());
  ~Reflector();  // Stop()
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Start launches the list/watch thread. A second call does nothing.
  void Start();
  // Stop cancels the watch, wakes any backoff wait and joins the thread (within about the
  // RestClient's cancel latency). Idempotent.
  void Stop();
  // RequestStop is Stop without the join: stopping many reflectors, ask them all first so their
  // cancel latencies overlap instead of adding up. Stop joins later.
  void RequestStop();

  // HasSynced: the first full list has been applied to the store.
  bool HasSynced() const { return synced_.load(); }
  // WaitForCacheSync blocks until HasSynced or `deadline`. Returns HasSynced().
  bool WaitForCacheSync(SteadyTime deadline) const;
  // LastSyncResourceVersion: the resume point (last list RV, event or bookmark).
  std::string LastSyncResourceVersion() const;
  ReflectorStats Stats() const;
  const ListWatchOptions& list_watch() const { return options_.list_watch; }

 private:
  void Run();
  void DoList(const RestRequest& request);
  void FailList(const Error& error);
  Result<DecodedPage> DecodePage(std::string& body) const;
  void DoWatch(const RestRequest& request);
  void RecordError(const Error& error, std::string_view op);
  void PublishResourceVersion();
  ObjectPtr Cache(rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc) const;

  RestClientPtr client_;
  std::shared_ptr<Store> store_;
  ReflectorOptions options_;
  SeededRng rng_;
  ListWatchMachine machine_;  // touched only by the run thread (and under mu_ for the RV)

  std::unique_ptr<ListPipeline> list_;  // the list in progress (run thread only)
  // Where the list in progress spends its wall time (run thread only), logged once synced.
  struct ListTimings {
    SteadyTime start{};
    std::chrono::nanoseconds fetch{0}, submit{0}, finish{0};
    size_t pages = 0;
  } list_timings_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // sync and stop
  ReflectorStats stats_;
  log::RateLimitedLog error_log_;
  std::string resource_version_;
};

}  // namespace berth::shim
