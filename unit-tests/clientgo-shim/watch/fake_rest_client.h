// unit-tests/clientgo-shim/watch/fake_rest_client.h
//
// FakeRestClient: a scripted RestClient for reflector and informer tests. LIST answers come
// from a handler (or a queue of canned responses); each Stream call takes the next scripted
// watch (lines, then an ending status) or, when none is queued, waits until one is pushed or
// the cancel flag is set. Every request is recorded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim::testing {

struct ScriptedWatch {
  std::vector<std::string> lines;
  Status end;                 // returned after the lines (success = clean end)
  bool hold_open = false;     // after the lines, stay open until cancelled
};

inline Error HttpError(ErrorCode code, int status, std::string reason, std::string message) {
  return Error{code, std::move(message), status, std::move(reason), {}};
}

class FakeRestClient : public RestClient {
 public:
  // ListHandler answers Do; default: queued responses, then 500.
  std::function<Result<RestResponse>(const RestRequest&)> list_handler;
  // What Server() answers (log lines name it).
  std::string server_url = "https://fake-apiserver:6443";
  std::string Server() const override { return server_url; }

  void QueueList(Result<RestResponse> response) {
    std::lock_guard lock(mu_);
    lists_.push_back(std::move(response));
  }
  void QueueListBody(std::string body) { QueueList(RestResponse{200, std::move(body), {}}); }
  void PushWatch(ScriptedWatch watch) {
    {
      std::lock_guard lock(mu_);
      watches_.push_back(std::move(watch));
    }
    cv_.notify_all();
  }

  Result<RestResponse> Do(const RestRequest& request) override {
    Result<RestResponse> out = std::unexpected(HttpError(ErrorCode::kInternal, 500, "InternalError",
                                                         "no scripted list"));
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
      if (!list_handler && !lists_.empty()) {
        out = std::move(lists_.front());
        lists_.pop_front();
      }
    }
    if (list_handler) out = list_handler(request);
    cv_.notify_all();
    return out;
  }

  Status Stream(const RestRequest& request,
                const std::function<bool(std::string_view)>& on_line,
                const std::atomic<bool>* cancel) override {
    ScriptedWatch w;
    {
      std::unique_lock lock(mu_);
      requests_.push_back(request);
      ++open_watches_;
      cv_.notify_all();
      // Polls the cancel flag: the real client notices it within ~1 s; 2 ms here.
      while (watches_.empty()) {
        if (cancel && cancel->load()) {
          --open_watches_;
          return {};
        }
        cv_.wait_for(lock, std::chrono::milliseconds(2));
      }
      w = std::move(watches_.front());
      watches_.pop_front();
    }
    Status result = w.end;
    for (const std::string& line : w.lines) {
      if (!on_line(line)) {
        result = {};
        break;
      }
    }
    if (w.hold_open) {
      while (!(cancel && cancel->load())) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::lock_guard lock(mu_);
    --open_watches_;
    cv_.notify_all();
    return result;
  }

  std::vector<RestRequest> Requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  // WatchRequests: the Stream requests, in order.
  std::vector<RestRequest> WatchRequests() const {
    std::vector<RestRequest> out;
    for (auto& r : Requests()) {
      if (r.query.count("watch")) out.push_back(r);
    }
    return out;
  }
  std::vector<RestRequest> ListRequests() const {
    std::vector<RestRequest> out;
    for (auto& r : Requests()) {
      if (!r.query.count("watch")) out.push_back(r);
    }
    return out;
  }
  // WaitUntil polls `pred` (under no lock) until it holds or 5 s pass.
  static bool WaitUntil(const std::function<bool()>& pred,
                        std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return pred();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Result<RestResponse>> lists_;
  std::deque<ScriptedWatch> watches_;
  std::vector<RestRequest> requests_;
  int open_watches_ = 0;
};

// Builders for the JSON the fake serves.
inline std::string PodJson(const std::string& ns, const std::string& name, const std::string& rv,
                           const std::string& node = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"uid-)" + name + R"(","resourceVersion":")" + rv +
         R"(","managedFields":[{"manager":"x"}]},"spec":{"nodeName":")" + node + R"("}})";
}
inline std::string ListJson(const std::vector<std::string>& items, const std::string& rv,
                            const std::string& cont = "") {
  std::string out = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
                    "\"" + (cont.empty() ? "" : R"(,"continue":")" + cont + "\"") + R"(},"items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}
inline std::string EventJson(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}";
}
inline std::string BookmarkJson(const std::string& rv) {
  return EventJson("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                                   rv + R"("}})");
}
inline std::string ExpiredJson() {
  return EventJson("ERROR",
                   R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                   R"j("message":"too old resource version: 5 (20)","reason":"Expired","code":410})j");
}

}  // namespace berth::shim::testing
