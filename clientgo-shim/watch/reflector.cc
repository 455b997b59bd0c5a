#include "clientgo-shim/watch/reflector.h"

#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "clientgo-shim/transport/line_splitter.h"
#include "clientgo-shim/watch/watch_event.h"

namespace berth::shim {
namespace {

uint64_t SeedOf(uint64_t seed) {
  if (seed != 0) return seed;
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

int DefaultListDecodeWorkers() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
}

Reflector::Reflector(RestClientPtr client, std::shared_ptr<Store> store, ReflectorOptions options,
                     const Clock& clock)
    : client_(std::move(client)),
      store_(std::move(store)),
      options_(std::move(options)),
      rng_(SeedOf(options_.rng_seed)),
      machine_(options_.list_watch, clock, rng_),
      error_log_(options_.error_log_interval, [&clock] { return clock.Now(); }) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stop_) return;
  thread_ = std::thread([this] { Run(); });
}

void Reflector::RequestStop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

void Reflector::Stop() {
  RequestStop();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool Reflector::WaitForCacheSync(SteadyTime deadline) const {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [this] { return synced_.load() || stop_.load(); });
  return synced_.load();
}

std::string Reflector::LastSyncResourceVersion() const {
  std::lock_guard lock(mu_);
  return resource_version_;
}

ReflectorStats Reflector::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void Reflector::RecordError(const Error& error, std::string_view op) {
  const bool relist = IsRelistError(error);
  {
    std::lock_guard lock(mu_);
    ++stats_.errors;
    if (relist) ++stats_.relist_errors;
    stats_.last_error = error.message;
    stats_.last_error_op = std::string(op);
  }
  // client-go: a failed list is an error, a failed watch a warning, an expired resourceVersion
  // (answered by a relist) routine.
  const log::Level level = relist         ? log::Level::kDebug
                           : op == "list" ? log::Level::kError
                                          : log::Level::kWarn;
  const ListWatchOptions& lw = options_.list_watch;
  std::string resource = lw.path;
  if (!lw.label_selector.empty()) resource += "?labelSelector=" + lw.label_selector;
  if (!lw.field_selector.empty()) {
    resource += (lw.label_selector.empty() ? "?" : "&") + ("fieldSelector=" + lw.field_selector);
  }
  log::Fields fields = {{"resource", resource}, {"server", client_->Server()},
                        {"error", error.message}, {"errorCode", ErrorCodeName(error.code)}};
  if (error.http_status != 0) fields.emplace_back("code", std::to_string(error.http_status));
  if (!error.reason.empty()) fields.emplace_back("reason", error.reason);
  error_log_.Write(level, "reflector",
                   std::string(op) + "\x1f" + ErrorCodeName(error.code) + "\x1f" +
                       std::to_string(error.http_status),
                   op == "list" ? "failed to list" : "watch ended with an error",
                   std::move(fields));
}

void Reflector::Run() {
  while (!stop_) {
    Action action = machine_.Next();
    switch (action.kind) {
      case Action::kWait: {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, action.wait, [this] { return stop_.load(); });
        break;
      }
      case Action::kList:
        DoList(action.request);
        break;
      case Action::kWatch:
        DoWatch(action.request);
        break;
    }
    PublishResourceVersion();
  }
  list_.reset();  // a list stopped midway: its workers are joined before Stop returns
}

void Reflector::PublishResourceVersion() {
  std::lock_guard lock(mu_);
  resource_version_ = machine_.ResourceVersion();
}

ObjectPtr Reflector::Cache(rapidjson::Value& object,
                           rapidjson::Document::AllocatorType& alloc) const {
  if (options_.transform) {
    if (auto st = options_.transform(object, alloc); !st) return nullptr;
  }
  auto obj = CachedObject::FromJson(object);
  return obj ? *obj : nullptr;
}

Result<DecodedPage> Reflector::DecodePage(std::string& body) const {
  DecodedPage out;
  auto cache_item = [&](rapidjson::Value& item, rapidjson::Document::AllocatorType& alloc) -> Status {
    if (ObjectPtr obj = Cache(item, alloc)) {
      out.objects.push_back(std::move(obj));
    } else {
      ++out.dropped;
    }
    return {};
  };
  // DoList checked the body against its Content-Type: only a protobuf answer starts with the
  // magic (a JSON body starts with '{'). Either way items are cached one by one while their
  // message or small in-place document lives (no page document).
  if (proto::HasProtobufMagic(body)) {
    if (auto meta = proto::DecodeListItems(body, cache_item); !meta) return std::unexpected(meta.error());
  } else if (auto meta = DecodeListItemsInsitu(body, cache_item); !meta) {
    return std::unexpected(meta.error());
  }
  return out;
}

void Reflector::FailList(const Error& error) {
  list_.reset();  // drops the pages in flight, joins the workers
  RecordError(error, "list");
  machine_.OnListFailed(error);
}

void Reflector::DoList(const RestRequest& request) {
  if (machine_.Page() == 1 || !list_) {
    const int workers = std::max(0, options_.list_decode_workers);
    list_ = std::make_unique<ListPipeline>(
        workers, workers + 1, [this](std::string& body) { return DecodePage(body); });
    list_timings_ = ListTimings{std::chrono::steady_clock::now()};
  } else if (std::optional<Error> failed = list_->FirstError()) {
    FailList(*failed);  // an earlier page did not decode: stop fetching, restart the list
    return;
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.list_requests;
  }
  const auto fetch_start = std::chrono::steady_clock::now();
  auto response = client_->Do(request);
  list_timings_.fetch += std::chrono::steady_clock::now() - fetch_start;
  ++list_timings_.pages;
  if (!response) return FailList(response.error());
  // Only the metadata is read here; the items are decoded by the pipeline's workers. The answer's
  // Content-Type says the format: a server that ignores the protobuf offer answers JSON.
  auto content_type = response->headers.find("content-type");
  Result<ListMetadata> meta = ScanListMetadataAs(
      content_type == response->headers.end() ? "" : content_type->second, response->body);
  if (!meta) return FailList(meta.error());
  const bool last = machine_.EndsList(meta->continue_token);
  const auto submit_start = std::chrono::steady_clock::now();
  list_->Submit(std::move(response->body));
  list_timings_.submit += std::chrono::steady_clock::now() - submit_start;
  if (!last) {
    machine_.OnListPage(meta->resource_version, meta->continue_token);
    return;
  }
  const auto finish_start = std::chrono::steady_clock::now();
  Result<DecodedPage> all = list_->Finish();
  list_.reset();
  list_timings_.finish = std::chrono::steady_clock::now() - finish_start;
  if (!all) return FailList(all.error());
  if (all->dropped) {
    std::lock_guard lock(mu_);
    stats_.dropped_objects += all->dropped;
  }
  machine_.OnListPage(meta->resource_version, meta->continue_token);
  const std::string& rv = meta->resource_version;
  const size_t objects = all->objects.size();
  const ReplaceTimings replaced = store_->Replace(std::move(all->objects), rv);
  if (!synced_ && log::Enabled(log::Level::kDebug)) {
    auto ms = [](std::chrono::nanoseconds d) {
      return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
    };
    std::string handlers, handlers_cpu;
    for (auto d : replaced.per_handler) handlers += (handlers.empty() ? "" : ",") + ms(d);
    for (auto d : replaced.per_handler_cpu) handlers_cpu += (handlers_cpu.empty() ? "" : ",") + ms(d);
    log::Debug("reflector", "initial list stored",
               {{"resource", options_.list_watch.path}, {"objects", std::to_string(objects)},
                {"pages", std::to_string(list_timings_.pages)},
                {"list_ms", ms(std::chrono::steady_clock::now() - list_timings_.start)},
                {"fetch_ms", ms(list_timings_.fetch)}, {"submit_wait_ms", ms(list_timings_.submit)},
                {"finish_wait_ms", ms(list_timings_.finish)}, {"store_build_ms", ms(replaced.build)},
                {"handlers_ms", ms(replaced.dispatch)}, {"per_handler_ms", handlers},
                {"per_handler_cpu_ms", handlers_cpu}});
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.lists_completed;
    resource_version_ = rv;
    synced_ = true;
  }
  cv_.notify_all();
}

void Reflector::DoWatch(const RestRequest& request) {
  {
    std::lock_guard lock(mu_);
    ++stats_.watch_requests;
  }
  std::optional<Error> stream_error;
  uint64_t events = 0, bookmarks = 0, dropped = 0;
  auto on_event = [&](Result<WatchEvent> ev) -> bool {
    if (stop_) return false;
    if (!ev) {
      stream_error = ev.error();
      return false;
    }
    switch (ev->type) {
      case WatchEventType::kError:
        stream_error = ErrorFromStatusObject(ev->object);
        return false;
      case WatchEventType::kBookmark:
        ++bookmarks;
        machine_.OnWatchEvent(ev->ResourceVersion());
        PublishResourceVersion();
        return true;
      default:
        break;
    }
    const std::string rv = ev->ResourceVersion();
    const DeltaType delta = ev->type == WatchEventType::kAdded      ? DeltaType::kAdded
                            : ev->type == WatchEventType::kModified ? DeltaType::kModified
                                                                    : DeltaType::kDeleted;
    if (ObjectPtr obj = Cache(ev->object, ev->object.GetAllocator())) {
      store_->ApplyEvent(delta, std::move(obj));
      ++events;
    } else {
      ++dropped;
    }
    machine_.OnWatchEvent(rv);
    PublishResourceVersion();
    return true;
  };
  // The answer's Content-Type says how the body is framed: length-delimited protobuf frames, or
  // JSON lines (also what a server without protobuf sends when asked for it).
  bool protobuf = false;
  LineSplitter lines;
  proto::FrameReader frames;
  auto on_line = [&](std::string_view line) { return on_event(DecodeWatchEvent(line)); };
  auto on_frame = [&](std::string_view frame) { return on_event(DecodeProtobufWatchEvent(frame)); };
  Status result = client_->StreamBytes(
      request,
      [&](const std::map<std::string, std::string>& headers) {
        auto it = headers.find("content-type");
        protobuf = it != headers.end() && proto::IsProtobufContentType(it->second);
      },
      [&](std::string_view bytes) -> bool {
        Result<bool> go_on = protobuf ? frames.Feed(bytes, on_frame) : lines.Feed(bytes, on_line);
        if (!go_on) {
          stream_error = go_on.error();
          return false;
        }
        return *go_on;
      },
      &stop_);
  // A clean end (not stopped, no error): deliver an unterminated last line; a frame cut short
  // is an error.
  if (result && !stream_error && !stop_) {
    if (protobuf) {
      if (Status st = frames.Finish(); !st) stream_error = st.error();
    } else {
      lines.Finish(on_line);
    }
  }
  if (stream_error) result = std::unexpected(*stream_error);
  {
    std::lock_guard lock(mu_);
    stats_.watch_events += events;
    stats_.bookmarks += bookmarks;
    stats_.dropped_objects += dropped;
  }
  if (stop_) return;
  if (!result) RecordError(result.error(), "watch");
  machine_.OnWatchEnded(result);
}

}  // namespace berth::shim
