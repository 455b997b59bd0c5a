// WATCH for ApiServer: a chunked stream of newline-delimited WatchEvents from a resourceVersion.
// Rules as kube-apiserver's watch cache has them:
// - resourceVersion unset or "0": synthetic ADDED events for the current state first;
// - an RV older than the retained history: one ERROR event with a 410 Expired Status;
// - sendInitialEvents=true: the initial state, then a BOOKMARK annotated initial-events-end;
// - selectors are applied to both the old and new object, so objects that stop matching are
//   sent as DELETED and ones that start matching as ADDED;
// - allowWatchBookmarks: periodic BOOKMARKs; timeoutSeconds ends the stream cleanly.
#include <algorithm>
#include <random>

#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/list_filter.h"
#include "e2e/kubesim/api/request_body.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/server/faults.h"

namespace berth::kubesim {
namespace {

// Bounds of one batched chunk: a burst still reaches the client in pieces, never held back.
constexpr int kMaxWatchBatchEvents = 256;
constexpr size_t kMaxWatchBatchBytes = 256 * 1024;

}  // namespace

void ApiServer::HandleWatch(const HttpRequest& request, const ResourceType& type,
                            const ParsedPath& path, ResponseMedia media, ResponseSink& sink) {
  auto filter = BuildListFilter(request, type);
  if (!filter.ok()) {
    sink.Send(*filter.error);
    return;
  }
  std::string rv_param(request.Query("resourceVersion"));
  bool send_initial = false, bookmarks = false;
  for (auto [param, out] : {std::pair{"sendInitialEvents", &send_initial}, {"allowWatchBookmarks", &bookmarks}}) {
    std::string_view text = request.Query(param);
    if (text.empty()) continue;
    auto value = ParseGoBool(text);
    if (!value) {
      sink.Send(BadRequest(std::string("invalid value for ") + param + ": strconv.ParseBool: parsing \"" +
                           std::string(text) + "\": invalid syntax"));
      return;
    }
    *out = *value;
  }
  if (send_initial && (!bookmarks || request.Query("resourceVersionMatch") != "NotOlderThan")) {
    sink.Send(Invalid("meta.k8s.io", "ListOptions", "",
                      {{"FieldValueForbidden",
                        "Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is "
                        "set to NotOlderThan and allowWatchBookmarks is set",
                        "sendInitialEvents"}}));
    return;
  }
  std::chrono::seconds timeout{0};
  if (auto t = request.Query("timeoutSeconds"); !t.empty()) {
    try {
      timeout = std::chrono::seconds(std::max<long long>(0, std::stoll(std::string(t))));
    } catch (...) {
      sink.Send(BadRequest("invalid timeoutSeconds"));
      return;
    }
  }
  if (timeout.count() == 0) {
    // The apiserver picks a random duration in [minRequestTimeout, 2*minRequestTimeout) = 30–60 min.
    static thread_local std::mt19937 rng{std::random_device{}()};
    timeout = std::chrono::seconds(1800 + rng() % 1800);
  }
  bool initial_state = rv_param.empty() || rv_param == "0" || send_initial;
  uint64_t from_rv = 0;
  if (!rv_param.empty() && rv_param != "0") {
    try {
      from_rv = std::stoull(rv_param);
    } catch (...) {
      sink.Send(BadRequest("invalid resource version \"" + rv_param + "\""));
      return;
    }
  }
  bool as_table = media != ResponseMedia::kProtobuf && WantsTable(request);
  if (!sink.BeginStream(200, WatchContentType(media))) return;

  std::vector<ObjectPtr> initial;
  WatcherPtr watcher;
  if (initial_state) {
    // Take the snapshot and subscribe at the same RV, retrying if a write slipped between.
    for (;;) {
      auto page = store_.List(type.StorageKey(), path.ns, nullptr, 0, 0, "");
      watcher = store_.Watch(type.StorageKey(), path.ns, page->resource_version);
      if (watcher) {
        initial = std::move(page->items);
        from_rv = page->resource_version;
        break;
      }
    }
  } else {
    uint64_t current = store_.CurrentResourceVersion();
    watcher = from_rv > current ? nullptr : store_.Watch(type.StorageKey(), path.ns, from_rv);
    if (!watcher) {
      std::string message = from_rv > current
                                ? "Too large resource version: " + rv_param + ", current: " + std::to_string(current)
                                : "too old resource version: " + rv_param + " (" +
                                      std::to_string(store_.OldestRetainedResourceVersion() + 1) + ")";
      int code = from_rv > current ? 504 : 410;
      sink.WriteChunk(ErrorEventLine(code, code == 410 ? "Expired" : "Timeout", message, media));
      sink.EndStream();
      return;
    }
  }

  bool first_table = true;
  // Events already queued when the loop wakes go out as one chunk (one write, one wake-up of
  // the client's reader) instead of one chunk each; `batching` is off for the initial list.
  bool batching = false;
  std::string batch;
  auto send = [&](std::string_view type_name, const StoredObject& obj) {
    std::string line = WatchEventLine(request, type, type_name, obj, as_table, first_table, media);
    first_table = false;
    if (batching) {
      batch += line;
      return true;
    }
    return sink.WriteChunk(line);
  };
  bool alive = true;
  for (const auto& obj : initial) {
    if (filter.filter && !filter.filter(*obj)) continue;
    if (!(alive = send("ADDED", *obj))) break;
  }
  if (alive && send_initial) alive = sink.WriteChunk(BookmarkLine(type, from_rv, true, media));

  auto start = std::chrono::steady_clock::now();
  auto end = start + timeout;
  std::chrono::seconds drop_every{0};
  if (options_.faults) drop_every = options_.faults->WatchDropEvery();
  if (drop_every.count() > 0) end = std::min(end, start + drop_every);
  auto next_bookmark = start + options_.bookmark_interval;
  uint64_t last_rv = from_rv;
  while (alive && !shutting_down_) {
    auto now = std::chrono::steady_clock::now();
    if (now >= end) break;
    auto wake = std::min(end, bookmarks ? next_bookmark : end);
    // Wake at least every second to notice a client that went away.
    wake = std::min(wake, now + std::chrono::seconds(1));
    auto event = watcher->Next(wake);
    if (!event) {
      if (watcher->closed()) break;
      now = std::chrono::steady_clock::now();
      if (bookmarks && now >= next_bookmark) {
        alive = sink.WriteChunk(BookmarkLine(type, std::max(last_rv, store_.CurrentResourceVersion()), false, media));
        next_bookmark = now + options_.bookmark_interval;
      } else if (!bookmarks && now < end) {
        // An empty chunk would end the stream; probe liveness only through real writes.
      }
      continue;
    }
    // Drain what is already queued (without waiting) into one chunk, within bounds.
    batching = true;
    for (int batched = 1; event && alive; ++batched) {
      last_rv = event->resource_version;
      const StoredObject* now_obj = event->object.get();
      const StoredObject* old_obj = event->previous.get();
      bool matches_new = now_obj && (!filter.filter || filter.filter(*now_obj));
      bool matches_old = old_obj && (!filter.filter || filter.filter(*old_obj));
      switch (event->type) {
        case WatchEventType::kAdded:
          if (matches_new) alive = send("ADDED", *now_obj);
          break;
        case WatchEventType::kModified:
          if (matches_new && matches_old) {
            alive = send("MODIFIED", *now_obj);
          } else if (matches_new) {
            alive = send("ADDED", *now_obj);
          } else if (matches_old) {
            alive = send("DELETED", *now_obj);
          }
          break;
        case WatchEventType::kDeleted:
          if (matches_old || matches_new) alive = send("DELETED", *now_obj);
          break;
      }
      if (batched >= kMaxWatchBatchEvents || batch.size() >= kMaxWatchBatchBytes) break;
      event = watcher->Next(std::chrono::steady_clock::time_point{});  // a past deadline: no wait
    }
    batching = false;
    if (alive && !batch.empty()) alive = sink.WriteChunk(batch);
    batch.clear();
  }
  store_.StopWatch(watcher);
  if (alive) sink.EndStream();
}

}  // namespace berth::kubesim
