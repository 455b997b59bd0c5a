// clientgo-shim/transport/rest_client.h
//
// The seam between the runtime (reflectors, leader election, events, controllers) and HTTP.
// RestClient sends one request to the API server and returns the body, or streams a response
// line by line (watch) or chunk by chunk (StreamBytes: protobuf watch frames). Implementations: HttpsRestClient (transport/, Beast + OpenSSL) and fakes
// in unit tests. Non-2xx answers come back as berth::Error decoded from the metav1.Status body
// (code, http_status, reason, message, retry_after).
// A request may carry a WriteFence (set by FencedRestClient for a leader-elected manager): the
// transport checks it right before each attempt of a mutating request is written, so a retry
// after a Retry-After wait is fenced too.
// Thread-safety: Do and Stream may be called from any number of threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// WriteFence: whether a mutating request may be sent now. Implementations: LeaderFence
// (leader/leader_fence.h) and fakes. Thread-safety: CheckWrite from any thread, cheap.
class WriteFence {
 public:
  virtual ~WriteFence() = default;
  // CheckWrite: success when a write may go out now; otherwise an ErrorCode::kFenced error
  // saying why.
  virtual Status CheckWrite() const = 0;
};

// IsMutatingMethod: POST, PUT, PATCH and DELETE change state; everything else only reads.
inline bool IsMutatingMethod(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// RestRequest: one API call. `path` is absolute ("/api/v1/namespaces/default/pods").
struct RestRequest {
  std::string method = "GET";
  std::string path;
  std::map<std::string, std::string> query;  // encoded by the client
  std::string body;
  std::string content_type = "application/json";
  std::string accept = "application/json";
  // Whole-request timeout for Do; for Stream it bounds only connect + headers, never the body.
  // Zero means the client's default.
  std::chrono::milliseconds timeout{0};
  // Checked before every attempt of a mutating request; a closed fence fails the request with
  // kFenced before anything is written. Default: none.
  std::shared_ptr<const WriteFence> fence;
};

// RestResponse: a 2xx answer.
struct RestResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

class RestClient {
 public:
  virtual ~RestClient() = default;
  // Do sends the request and reads the whole body. Errors: kTransport/kTimeout without a
  // response; otherwise the code mapped from the HTTP status with the Status message.
  virtual Result<RestResponse> Do(const RestRequest& request) = 0;
  // Stream sends the request and calls `on_line` for each newline-terminated line of the body
  // until it returns false, the server ends the body, or `*cancel` (if given) becomes true;
  // implementations notice `cancel` within about a second even when no line arrives.
  // Returns the error for a non-2xx answer or a broken connection; a clean end is success.
  virtual Status Stream(const RestRequest& request,
                        const std::function<bool(std::string_view line)>& on_line,
                        const std::atomic<bool>* cancel = nullptr) = 0;
  // StreamBytes is Stream without line splitting, for bodies that are not lines (protobuf watch
  // frames): `on_headers` gets the 2xx answer's headers (lower-case names) before any byte, then
  // `on_bytes` each chunk as it arrives until it returns false. Same errors and cancellation as
  // Stream. The default serves clients that can only stream lines (test fakes): it reports no
  // headers (a JSON stream) and passes each line with its newline.
  virtual Status StreamBytes(
      const RestRequest& request,
      const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
      const std::function<bool(std::string_view bytes)>& on_bytes,
      const std::atomic<bool>* cancel = nullptr) {
    on_headers({});
    std::string buffer;
    return Stream(
        request,
        [&](std::string_view line) {
          buffer.assign(line);
          buffer += '\n';
          return on_bytes(buffer);
        },
        cancel);
  }
  // Server names the API server for log lines ("https://10.0.0.1:6443"); "" when unknown.
  virtual std::string Server() const { return {}; }
};

using RestClientPtr = std::shared_ptr<RestClient>;

}  // namespace berth::shim
