// clientgo-shim/events/event_recorder.cc — see event_recorder.h.
#include "clientgo-shim/events/event_recorder.h"

#include <algorithm>
#include <cstdio>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clientgo-shim/base/uuid.h"

namespace berth::shim {
namespace {

TimePoint WallNow() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

constexpr std::string_view kLogger = "events";

// IsRetriable: the server may take the same write later (client-go: "if we can't contact the
// server, then hold everything while we keep trying"); anything else is about the event itself.
bool IsRetriable(const Error& e) {
  if (e.code == ErrorCode::kTransport || e.code == ErrorCode::kTimeout) return true;
  return e.http_status == 429 || e.http_status >= 500;
}

std::string Describe(const ObjectReference& o) {
  return o.kind + " " + (o.ns.empty() ? o.name : o.ns + "/" + o.name);
}

// IsDnsSubdomain: apimachinery's IsDNS1123Subdomain (at most 253 characters of lowercase
// alphanumerics, '-' and '.', each dot-separated label starting and ending alphanumeric).
bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    std::string_view label = name.substr(start, dot - start);
    if (label.empty() || !alnum(label.front()) || !alnum(label.back())) return false;
    for (char c : label) {
      if (!alnum(c) && c != '-') return false;
    }
    start = dot + 1;
  }
  return true;
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* EventTypeName(EventType type) {
  return type == EventType::kWarning ? "Warning" : "Normal";
}

ObjectReference ReferenceOf(const json::Value& object) {
  ObjectReference r;
  r.api_version = std::string(json::GetString(object, {"apiVersion"}));
  r.kind = std::string(json::GetString(object, {"kind"}));
  r.ns = std::string(json::GetString(object, {"metadata", "namespace"}));
  r.name = std::string(json::GetString(object, {"metadata", "name"}));
  r.uid = std::string(json::GetString(object, {"metadata", "uid"}));
  r.resource_version = std::string(json::GetString(object, {"metadata", "resourceVersion"}));
  return r;
}

EventRecorder::EventRecorder(EventRecorderOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : DefaultWaitClock()),
      client_(options_.rest),
      failure_log_(std::chrono::seconds(30), [this] { return clock_.Now(); }) {
  if (options_.max_tries < 1) options_.max_tries = 1;
  if (options_.senders < 1) options_.senders = 1;
  const uint64_t seed = options_.rng_seed != 0 ? options_.rng_seed : std::random_device{}();
  for (int i = 0; i < options_.senders; ++i) {
    senders_.push_back(std::make_unique<Sender>());
    senders_.back()->rng.seed(seed + static_cast<uint64_t>(i));
  }
  // Threads start once every Sender exists: a thread never sees senders_ change.
  for (auto& s : senders_) s->thread = std::thread([this, sender = s.get()] { Loop(*sender); });
  started_ = true;
}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Event(const ObjectReference& object, EventType type, std::string reason,
                          std::string message) {
  // The object decides the sender, so its events stay in order and share one aggregation cache.
  const size_t shard =
      senders_.size() == 1
          ? 0
          : std::hash<std::string>{}(object.kind + '\x1f' + object.ns + '\x1f' + object.name + '\x1f' + object.uid) %
                senders_.size();
  std::lock_guard<std::mutex> l(mu_);
  if (stop_) return;
  if (queued_ >= options_.max_queue) {
    ++stats_.queue_full;
    return;
  }
  senders_[shard]->queue.push_back(Pending{object, type, std::move(reason), std::move(message), WallNow()});
  ++queued_;
  // Every sender waits on cv_: wake them all so the one owning this queue sees it.
  if (senders_.size() == 1) {
    cv_.notify_one();
  } else {
    cv_.notify_all();
  }
}

bool EventRecorder::IdleLocked() const {
  if (queued_ != 0) return false;
  for (const auto& s : senders_) {
    if (s->busy) return false;
  }
  return true;
}

bool EventRecorder::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return idle_cv_.wait_for(l, timeout, [this] { return IdleLocked(); });
}

void EventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_ || !started_) return;
  }
  Flush(options_.stop_flush_timeout);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& s : senders_) {
    if (s->thread.joinable()) s->thread.join();
  }
}

EventRecorderStats EventRecorder::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void EventRecorder::Loop(Sender& s) {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [&] { return stop_ || !s.queue.empty(); });
    if (stop_) {
      idle_cv_.notify_all();
      return;
    }
    Pending p = std::move(s.queue.front());
    s.queue.pop_front();
    --queued_;
    s.busy = true;
    l.unlock();
    Send(s, p);
    l.lock();
    s.busy = false;
    if (IdleLocked()) idle_cv_.notify_all();
  }
}

bool EventRecorder::Allow(Sender& s, const std::string& spam_key) {
  const SteadyTime now = clock_.Now();
  auto [it, inserted] = s.buckets.try_emplace(spam_key, Bucket{double(options_.burst), now});
  Bucket& b = it->second;
  if (!inserted && options_.refill_period.count() > 0) {
    const double refill = std::chrono::duration<double>(now - b.last).count() /
                          std::chrono::duration<double>(options_.refill_period).count();
    b.tokens = std::min<double>(options_.burst, b.tokens + refill);
    b.last = now;
  }
  if (b.tokens < 1.0) return false;
  b.tokens -= 1.0;
  return true;
}

Status EventRecorder::CreateEvent(Sender& s, const Pending& p, const std::string& key) {
  const std::string ns = p.object.ns.empty() ? "default" : p.object.ns;
  std::string name = p.object.name + "." + Hex(static_cast<uint64_t>(p.at.time_since_epoch().count()));
  if (!IsDnsSubdomain(name)) {
    // client-go (kubernetes PR #129790): a name the API server would reject (an object name near
    // the 253-character limit, or not a DNS subdomain) is replaced by a random UUID, so the Event
    // is not lost to a 422.
    failure_log_.Write(log::Level::kInfo, kLogger, "renamed", "event name is not a valid DNS subdomain; using a UUID",
                       {{"object", Describe(p.object)}, {"length", std::to_string(name.size())}});
    name = UuidV4(s.rng);
  }
  // One Event per scheduled pod: the body is written straight out (no DOM), and the created
  // object in the response is not parsed (only success matters).
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto put = [&](std::string_view k, std::string_view v) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  auto put_nonempty = [&](std::string_view k, const std::string& v) {
    if (!v.empty()) put(k, v);
  };
  const std::string ts = FormatTimestamp(p.at);
  w.StartObject();
  put("apiVersion", "v1");
  put("kind", "Event");
  w.Key("metadata");
  w.StartObject();
  put("name", name);
  put("namespace", ns);
  w.EndObject();
  w.Key("involvedObject");
  w.StartObject();
  put_nonempty("kind", p.object.kind);
  put_nonempty("namespace", p.object.ns);
  put_nonempty("name", p.object.name);
  put_nonempty("uid", p.object.uid);
  put_nonempty("apiVersion", p.object.api_version);
  put_nonempty("resourceVersion", p.object.resource_version);
  put_nonempty("fieldPath", p.object.field_path);
  w.EndObject();
  put("reason", p.reason);
  put("message", p.message);
  w.Key("source");
  w.StartObject();
  put_nonempty("component", options_.component);
  put_nonempty("host", options_.host);
  w.EndObject();
  put("firstTimestamp", ts);
  put("lastTimestamp", ts);
  w.Key("count");
  w.Int(1);
  put("type", EventTypeName(p.type));
  put("reportingComponent", options_.component);
  put("reportingInstance", options_.host);
  w.EndObject();
  RestRequest request;
  request.method = "POST";
  request.path = ResourcePath(ResourceRef{"", "v1", "events", ns, ""});
  request.body.assign(buf.GetString(), buf.GetSize());
  auto created = options_.rest->Do(request);
  if (!created) return std::unexpected(created.error());
  s.lru.push_front(key);
  s.cache[key] = {Aggregate{name, ns, 1, p.at}, s.lru.begin()};
  // Each sender remembers its share of max_aggregated.
  const size_t limit = std::max<size_t>(1, options_.max_aggregated / senders_.size());
  while (s.cache.size() > limit && !s.lru.empty()) {
    s.cache.erase(s.lru.back());
    s.lru.pop_back();
  }
  return {};
}

bool EventRecorder::SleepUnlessStopped(std::chrono::nanoseconds d) {
  std::unique_lock<std::mutex> l(mu_);
  const SteadyTime deadline = clock_.Now() + std::chrono::duration_cast<SteadyTime::duration>(d);
  while (!stop_ && clock_.Now() < deadline) clock_.WaitUntil(cv_, l, deadline);
  return !stop_;
}

void EventRecorder::Send(Sender& s, const Pending& p) {
  const ObjectReference& o = p.object;
  const std::string spam_key = options_.component + "\x1f" + options_.host + "\x1f" + o.kind +
                               "\x1f" + o.ns + "\x1f" + o.name + "\x1f" + o.uid + "\x1f" +
                               o.api_version;
  if (!Allow(s, spam_key)) {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.rate_limited;
    return;
  }
  const std::string key = spam_key + "\x1f" + o.field_path + "\x1f" + EventTypeName(p.type) +
                          "\x1f" + p.reason + "\x1f" + p.message;
  for (int tries = 1;; ++tries) {
    if (TrySend(s, p, key) == Outcome::kDone) return;
    const bool out_of_tries = tries >= options_.max_tries;
    // client-go randomises only the first sleep, so replicas spread out after an outage.
    const auto sleep =
        tries == 1 ? std::chrono::duration_cast<std::chrono::nanoseconds>(
                         options_.retry_sleep *
                         std::uniform_real_distribution<double>(0.0, 1.0)(s.rng))
                   : std::chrono::nanoseconds(options_.retry_sleep);
    if (!out_of_tries) {
      std::lock_guard<std::mutex> l(mu_);
      stats_.last_retry_sleep = sleep;
    }
    if (out_of_tries || !SleepUnlessStopped(sleep)) {
      failure_log_.Write(log::Level::kError, kLogger, "gave up",
                         out_of_tries ? "unable to write event (retry limit exceeded)"
                                      : "unable to write event (stopping)",
                         {{"object", Describe(o)},
                          {"reason", p.reason},
                          {"tries", std::to_string(tries)}});
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.failed;
      return;
    }
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.retries;
  }
}

EventRecorder::Outcome EventRecorder::TrySend(Sender& s, const Pending& p, const std::string& key) {
  // A failure is retried, or final: counted and logged here.
  auto failed = [&](const Error& e) {
    if (IsRetriable(e)) {
      failure_log_.Write(log::Level::kWarn, kLogger,
                         std::string("retry\x1f") + ErrorCodeName(e.code),
                         "unable to write event (may retry after sleeping)",
                         {{"object", Describe(p.object)},
                          {"reason", p.reason},
                          {"error", e.message}});
      return Outcome::kRetry;
    }
    // AlreadyExists: the same Event is there (client-go logs it at V(5)); not worth a warning.
    const log::Level level =
        e.code == ErrorCode::kAlreadyExists ? log::Level::kDebug : log::Level::kError;
    failure_log_.Write(level, kLogger, std::string("rejected\x1f") + ErrorCodeName(e.code),
                       "server rejected event (will not retry)",
                       {{"object", Describe(p.object)},
                        {"reason", p.reason},
                        {"code", std::to_string(e.http_status)},
                        {"error", e.message}});
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.failed;
    return Outcome::kDone;
  };
  auto it = s.cache.find(key);
  if (it != s.cache.end()) {
    Aggregate& agg = it->second.first;
    json::Document patch;
    patch.SetObject();
    json::SetMember(patch, "count", json::Value(agg.count + 1), patch.GetAllocator());
    json::SetString(patch, "lastTimestamp", FormatTimestamp(p.at), patch.GetAllocator());
    json::SetString(patch, "message", p.message, patch.GetAllocator());
    auto patched =
        client_.MergePatch(ResourceRef{"", "v1", "events", agg.ns, agg.event_name}, patch);
    if (patched) {
      ++agg.count;
      s.lru.splice(s.lru.begin(), s.lru, it->second.second);
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.patched;
      return Outcome::kDone;
    }
    // Any failure but 404 keeps the aggregate: the Event still exists.
    if (patched.error().code != ErrorCode::kNotFound) return failed(patched.error());
    // The Event was deleted (or expired by TTL): forget it and create a fresh one.
    s.lru.erase(it->second.second);
    s.cache.erase(it);
  }
  Status created = CreateEvent(s, p, key);
  if (!created) return failed(created.error());
  std::lock_guard<std::mutex> l(mu_);
  ++stats_.created;
  return Outcome::kDone;
}

}  // namespace berth::shim
