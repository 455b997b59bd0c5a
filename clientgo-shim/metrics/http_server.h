// clientgo-shim/metrics/http_server.h
//
// A small HTTP/1.1 server (Boost.Beast, asynchronous, one I/O thread; plain, or TLS with
// HttpServerOptions::tls_cert_file) for the manager's /metrics, /healthz and /readyz endpoints
// and the kube-scheduler extender. It is reachable from the network, so it is built to
// stay up under hostile clients:
//   - no thread per connection: every connection is a state machine on the one I/O thread;
//   - at most `max_connections` open connections; when a new one arrives at the limit, the
//     connection that has been waiting longest (for request bytes, or idle between keep-alive
//     requests) is closed, so a flood of slow clients cannot lock out a probe, which completes
//     in milliseconds;
//   - a deadline on the whole request (first byte to last response byte), not per read, so a
//     client trickling one byte a second is cut off; an idle timeout between keep-alive requests;
//   - headers over `header_limit` bytes → 431, a body over `body_limit` → 413, malformed → 400;
//   - only GET and HEAD (and POST with `allow_post`): any other method → 405 with an Allow
//     header; HEAD sends no body;
//   - running out of file descriptors is survived (the oldest connection is closed, accept is
//     retried after a pause), never a crash.
// Handlers are matched by exact path, then by the longest registered prefix ending in '/'.
// Handlers run on the I/O thread, so they must be quick (the manager runs metrics and probes on
// two servers, so rendering /metrics never delays a probe). A handler that throws yields 500.
// Bind addresses follow controller-runtime:
//   ":8080"         all interfaces, port 8080
//   "127.0.0.1:0"   loopback, a free port (Start() returns it)
//   "0" or ""       disabled: Start() succeeds and serves nothing
// Thread-safety: Handle() before Start(); stats() from any thread.
// Example:
//   HttpServer server(":8081");
//   ServeProbes(server, healthz, readyz);
//   Result<uint16_t> port = server.Start();
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

struct HttpServerRequest {
  std::string method;
  std::string path;                           // without the query string
  std::map<std::string, std::string> query;   // percent-decoded; keys without '=' map to ""
  std::string body;                           // POST only (allow_post), at most body_limit bytes
  std::string authorization;                  // the Authorization header ("" when absent)
};

struct HttpServerReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpServerReply(const HttpServerRequest&)>;

// HttpServerOptions: the limits; each field says its default.
struct HttpServerOptions {
  size_t max_connections = 256;                       // open at once (≥ 1). Default: 256.
  std::chrono::milliseconds request_timeout{10'000};  // first request byte → response sent. 10s.
  std::chrono::milliseconds idle_timeout{30'000};     // keep-alive wait for the next request. 30s.
  uint32_t header_limit = 8 * 1024;                   // request line + headers, bytes. 8 KiB.
  uint64_t body_limit = 4 * 1024;                     // GET/HEAD carry none. 4 KiB.
  // Accept POST (with a body up to body_limit) besides GET/HEAD, e.g. for the kube-scheduler
  // extender. Default: false.
  bool allow_post = false;
  // Serve HTTPS (TLS 1.2 or later) with this PEM certificate chain and private key, both or
  // neither; e.g. kube-scheduler's extender with enableHTTPS. Start() fails when they do not
  // load. New connections check the files at most once a second and load them again when either
  // changed (a renewed Secret takes effect without a restart); a pair that does not load is
  // logged and the previous one kept. Default: plain HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Or serve HTTPS with this PEM certificate chain and key held in memory (both or neither, not
  // with the files; never reloaded), e.g. a self-signed pair made at start. Default: none.
  std::string tls_cert_pem;
  std::string tls_key_pem;
};

// HttpServerStats: counters since Start().
struct HttpServerStats {
  size_t open_connections = 0;
  uint64_t accepted = 0;
  uint64_t evicted = 0;        // closed to admit a newer connection (at max_connections or no fds)
  uint64_t timed_out = 0;      // closed at the request deadline or the idle timeout
  uint64_t accept_errors = 0;  // accept(2) failures (EMFILE, ENFILE, ...)
  uint64_t tls_reloads = 0;           // certificate reloads after a file changed
  uint64_t tls_reload_failures = 0;   // changed files that did not load (the previous pair stays)
  uint64_t tls_handshake_errors = 0;  // TLS handshakes that failed (plain-HTTP clients included)
};

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
  explicit HttpServer(std::string bind_address, HttpServerOptions options = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Handle registers `handler` for `path` (exact), or for every path under it when `path` ends
  // in '/'.
  void Handle(std::string path, HttpHandler handler);
  // Start binds and serves on a background thread. Returns the bound port, or 0 when disabled.
  // Errors: kInvalidArgument for a bad bind address or options; kTransport when the bind fails;
  // kInternal when the thread cannot be created.
  Result<uint16_t> Start();
  // Stop closes the listener and every open connection, and joins the thread. Idempotent.
  void Stop();
  uint16_t port() const { return port_.load(); }
  HttpServerStats stats() const;

 private:
  struct Impl;
  class ConnectionBase;
  template <class Stream>
  class Connection;
  HttpServerReply Dispatch(const HttpServerRequest& request) const;

  std::string bind_address_;
  HttpServerOptions options_;
  std::map<std::string, HttpHandler> handlers_;
  std::atomic<uint16_t> port_{0};
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::shim
