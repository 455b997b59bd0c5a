// e2e/kubesim/server/http_types.h
//
// The seam between kubesim's HTTPS transport and its API logic. The transport parses a request,
// applies fault injection and authentication, then calls the ApiHandler on the connection's own
// thread. The handler answers through a ResponseSink: either one whole response, or a chunked
// stream (watch) that it may keep open as long as it likes; WriteChunk returns false once the
// client has gone or the server is dropping connections, and the handler must then return.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::kubesim {

// HttpRequest: one decoded request. Header names are lower-case.
struct HttpRequest {
  std::string method;                         // "GET", "POST", ...
  std::string target;                         // raw request target, with the query string
  std::string path;                           // percent-decoded path, no query
  std::map<std::string, std::string> query;   // percent-decoded; a repeated key keeps the last value
  std::map<std::string, std::string> headers;
  std::string body;

  // Header returns the header value or "" (name must be lower-case).
  std::string_view Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string_view{} : std::string_view(it->second);
  }
  // Query returns the query parameter or "".
  std::string_view Query(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? std::string_view{} : std::string_view(it->second);
  }
};

// HttpResponse: a whole (non-streamed) response.
struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Retry-After
};

// ResponseSink: how a handler answers. Call exactly one of Send or BeginStream.
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  virtual void Send(HttpResponse response) = 0;
  // BeginStream starts a chunked 200-class response. Returns false if the client is gone.
  virtual bool BeginStream(int status, std::string_view content_type) = 0;
  // WriteChunk sends one chunk and flushes it. Returns false if the client is gone or the
  // server is shutting connections down; the handler must stop streaming then.
  virtual bool WriteChunk(std::string_view data) = 0;
  // EndStream sends the terminating chunk.
  virtual void EndStream() = 0;
};

// ApiHandler: the API logic; called on the connection's thread, may block while streaming.
using ApiHandler = std::function<void(const HttpRequest&, ResponseSink&)>;

}  // namespace berth::kubesim
