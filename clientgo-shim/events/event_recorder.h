// clientgo-shim/events/event_recorder.h
//
// EventRecorder: writes core/v1 Events the way client-go's record.EventRecorder does.
//   - Event() never blocks: it queues the event (dropping it when the queue is full) and a
//     background thread sends it.
//   - Aggregation: a repeat of the same (object, type, reason, message, source) bumps `count` and
//     `lastTimestamp` of the Event already written, with a merge PATCH, instead of creating a
//     new Event; if that Event is gone (404) a new one is created.
//   - Spam filter: a token bucket per (source, object) — client-go's default burst 25, refilled
//     by one token every 5 minutes; events over the limit are dropped.
//   - Event names are "<object name>.<hex unix nanoseconds>" in the object's namespace
//     ("default" for cluster-scoped objects).
//   - Retries (client-go's recordToSink): a write that fails with no response (connection,
//     TLS, timeout), 429 or 5xx is tried again, up to max_tries (12) in all, sleeping
//     retry_sleep (10 s) between tries, the first sleep randomised in [0, retry_sleep) so that
//     replicas do not all retry at once after an outage. Any other 4xx (422 invalid, 403
//     forbidden, 409 AlreadyExists) is final. client-go retries only the no-response case and
//     leaves 429/5xx to its REST client, which retries a POST only when Retry-After is set; here
//     a 500 or 503 without Retry-After does not lose the Event either. Events queue behind the
//     one being retried, as in client-go. Failures are logged (logger "events", rate-limited).
//   - Senders: `senders` threads (default 1, client-go's one sink goroutine) each own a queue;
//     an event goes to the sender its object hashes to, so one object's events keep their
//     order, aggregation and spam bucket, while a burst over many objects (a mass expiry)
//     is written in parallel. A retry sleep holds back only its sender's queue.
// Fields written: involvedObject, reason, message, type, source.component/host,
// reportingComponent, reportingInstance, firstTimestamp, lastTimestamp, count.
// Thread-safety: Event() from any thread.
// Example:
//   EventRecorder recorder({.rest = rest, .component = "berth-controller"});
//   recorder.Event(ref, EventType::kWarning, "FailedBinding", "no node fits");
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/rate_limited_log.h"
#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/queue/clock.h"

namespace berth::shim {

enum class EventType { kNormal, kWarning };
const char* EventTypeName(EventType type);  // "Normal" / "Warning"

// ObjectReference: core/v1 ObjectReference of the object an Event is about.
struct ObjectReference {
  std::string api_version;  // "v1", "berth.dev/v1alpha1"
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string field_path;
};

// ReferenceOf builds an ObjectReference from an object's apiVersion, kind and metadata.
ObjectReference ReferenceOf(const json::Value& object);

// EventRecorderOptions: each field says its default.
struct EventRecorderOptions {
  RestClientPtr rest;                 // Required.
  std::string component;              // source.component / reportingComponent. Required.
  std::string host;                   // source.host / reportingInstance. Default: "".
  int burst = 25;                     // spam-filter bucket size. Default: 25 (client-go).
  std::chrono::milliseconds refill_period{300000};  // one token per. Default: 5 min (client-go).
  size_t max_queue = 1000;            // pending events before Event() drops. Default: 1000.
  size_t max_aggregated = 4096;       // remembered Events for aggregation (LRU). Default: 4096.
  WaitClock* clock = nullptr;  // rate-limit time and retry sleeps. Default: DefaultWaitClock().
  int max_tries = 12;          // tries per event, first included. Default: 12 (client-go).
  std::chrono::milliseconds retry_sleep{10000};  // between tries. Default: 10 s (client-go).
  uint64_t rng_seed = 0;       // first-sleep jitter; 0 = random. Default: 0.
  std::chrono::milliseconds stop_flush_timeout{5000};  // Stop() sends queued events for. 5 s.
  int senders = 1;             // sender threads, events sharded by object. Default: 1.
};

// EventRecorderStats: counters for tests and logs.
struct EventRecorderStats {
  uint64_t created = 0;
  uint64_t patched = 0;
  uint64_t rate_limited = 0;  // dropped by the spam filter
  uint64_t queue_full = 0;    // dropped because the queue was full
  uint64_t failed = 0;        // the API write failed for good (final error or out of tries)
  uint64_t retries = 0;       // writes tried again after a retriable failure
  std::chrono::nanoseconds last_retry_sleep{0};  // the most recent sleep before a retry
};

class EventRecorder {
 public:
  explicit EventRecorder(EventRecorderOptions options);
  ~EventRecorder();  // Stop()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Event queues one event; returns at once.
  void Event(const ObjectReference& object, EventType type, std::string reason,
             std::string message);
  // Flush waits until every queued event has been handled, or `timeout` passes.
  // Returns whether the queue drained.
  bool Flush(std::chrono::milliseconds timeout);
  // Stop sends what is queued (bounded by Flush(stop_flush_timeout)), ends a retry sleep and
  // joins the sender threads. Idempotent.
  void Stop();
  EventRecorderStats Stats() const;

 private:
  struct Pending {
    ObjectReference object;
    EventType type;
    std::string reason, message;
    TimePoint at;
  };
  struct Aggregate {
    std::string event_name;
    std::string ns;
    int count = 0;
    TimePoint first;
  };
  struct Bucket {
    double tokens;
    SteadyTime last;
  };

  // What one try of writing an event came to.
  enum class Outcome { kDone, kRetry };

  // Sender: one sender thread's queue and the state only that thread touches (the spam
  // buckets and aggregation cache of the objects that hash to it).
  struct Sender {
    std::deque<Pending> queue;  // guarded by mu_
    bool busy = false;          // guarded by mu_
    std::unordered_map<std::string, Bucket> buckets;
    std::list<std::string> lru;  // most recent first
    std::unordered_map<std::string, std::pair<Aggregate, std::list<std::string>::iterator>> cache;
    std::mt19937_64 rng;
    std::thread thread;
  };

  void Loop(Sender& s);
  void Send(Sender& s, const Pending& p);
  Outcome TrySend(Sender& s, const Pending& p, const std::string& key);
  bool Allow(Sender& s, const std::string& spam_key);
  Status CreateEvent(Sender& s, const Pending& p, const std::string& key);
  bool IdleLocked() const;  // every queue empty, no sender busy
  // SleepUnlessStopped waits `d` on the clock; false when Stop() cut it short.
  bool SleepUnlessStopped(std::chrono::nanoseconds d);

  EventRecorderOptions options_;
  WaitClock& clock_;
  ObjectClient client_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  size_t queued_ = 0;  // events in every sender's queue, for max_queue
  bool stop_ = false;
  bool started_ = false;
  EventRecorderStats stats_;
  log::RateLimitedLog failure_log_;
  std::vector<std::unique_ptr<Sender>> senders_;
};

}  // namespace berth::shim
