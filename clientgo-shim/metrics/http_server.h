// clientgo-shim/metrics/http_server.h
//
// A tiny plain-HTTP/1.1 server (Boost.Beast, synchronous, one thread per connection) for the
// manager's /metrics, /healthz and /readyz endpoints. Handlers are matched by exact path, then by
// the longest registered prefix ending in '/'. Bind addresses follow controller-runtime:
//   ":8080"         all interfaces, port 8080
//   "127.0.0.1:0"   loopback, a free port (Start() returns it)
//   "0" or ""       disabled: Start() succeeds and serves nothing
// Thread-safety: Handle() before Start(); handlers run on connection threads concurrently.
// Example:
//   HttpServer server(":8081");
//   ServeProbes(server, healthz, readyz);
//   Result<uint16_t> port = server.Start();
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

struct HttpServerRequest {
  std::string method;
  std::string path;                           // without the query string
  std::map<std::string, std::string> query;   // percent-decoded; keys without '=' map to ""
};

struct HttpServerReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpServerReply(const HttpServerRequest&)>;

// BindAddress: a parsed bind address. `enabled` false for "0" / "".
struct BindAddress {
  bool enabled = false;
  std::string host;  // "" = all interfaces (0.0.0.0)
  uint16_t port = 0;
};
// ParseBindAddress reads "host:port", ":port", "0" or "".
// Errors: kInvalidArgument naming the address ("invalid bind address \"x\": ...").
Result<BindAddress> ParseBindAddress(std::string_view text);

class HttpServer {
 public:
  explicit HttpServer(std::string bind_address);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Handle registers `handler` for `path` (exact), or for every path under it when `path` ends
  // in '/'.
  void Handle(std::string path, HttpHandler handler);
  // Start binds and serves on a background thread. Returns the bound port, or 0 when disabled.
  // Errors: kInvalidArgument for a bad bind address; kTransport when the bind fails.
  Result<uint16_t> Start();
  // Stop closes the listener and every open connection, and joins all threads. Idempotent.
  void Stop();
  uint16_t port() const { return port_.load(); }

 private:
  struct Impl;
  HttpServerReply Dispatch(const HttpServerRequest& request) const;

  std::string bind_address_;
  std::map<std::string, HttpHandler> handlers_;
  std::atomic<uint16_t> port_{0};
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::shim
