// clientgo-shim/transport/https_client.h
//
// HttpsRestClient: the RestClient that talks HTTP/1.1 over TLS to a real API server (or kubesim),
// built on Boost.Beast/Asio and OpenSSL. It knows nothing of Kubernetes objects: one request in,
// one RestResponse (or a stream of lines) out, non-2xx decoded by api_error.h.
//  - TLS: the server certificate is verified against the CA (PEM data, a file, or the system
//    store) and the host (IP SAN for an IP, DNS SAN for a name; tls_server_name overrides);
//    insecure_skip_tls_verify turns verification off; an optional client certificate.
//  - Auth: `token_source` is asked for the bearer token on every attempt, so rotated tokens
//    (service-account files, exec plugins) are picked up without rebuilding the client.
//  - Keep-alive: finished connections go back to a small idle pool shared by all threads.
//  - Timeouts: Do is bounded by request.timeout (or the default) including retries; Stream's
//    timeout covers connect + headers only, never the body, whose reads poll the cancel flag.
//  - Retries (client-go rest semantics, at most max_retries): a 429/5xx that carries Retry-After
//    is retried for any method after that delay; for GET/HEAD/OPTIONS also a 429/5xx without it
//    (exponential backoff) and connection resets. A stale kept-alive connection that the server
//    closed is replaced transparently.
//  - Optional client-side QPS/burst limiter (off by default).
//  - Failures only the user can fix are logged (JSON lines, logger "rest-client"), at most once
//    per (server, reason) per failure_log_interval with a "suppressed" count: a failed TLS
//    handshake (error; reason = the certificate verify text, e.g. "unable to get local issuer
//    certificate", "Hostname mismatch"), 401 (error) and 403 (warn) with the Status message.
// Thread-safety: Do and Stream may be called concurrently from any threads.
// Example:
//   auto client = HttpsRestClient::Create({.server = "https://127.0.0.1:6443", .ca_pem = ca,
//                                          .token_source = [] { return std::string("t"); }});
//   auto pods = (*client)->Do({.path = "/api/v1/pods"});
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim {

// HttpsRestClientOptions: everything HttpsRestClient needs. Each field says its default.
struct HttpsRestClientOptions {
  std::string server;                    // "https://host:port[/prefix]". Required.
  std::string ca_pem;                    // CA PEM data. Default: "" (then ca_file, then system).
  std::string ca_file;                   // CA PEM file. Default: "".
  bool insecure_skip_tls_verify = false; // Default: false.
  std::string tls_server_name;           // name to verify/SNI. Default: "" = the server's host.
  std::string client_cert_pem;           // client certificate chain. Default: "" = none.
  std::string client_key_pem;            // its key. Default: "".
  // Bearer token, asked on every attempt ("" = no Authorization header). Must be thread-safe.
  // Default: none.
  std::function<std::string()> token_source;
  // Called once on a 401 before the request is retried a single time: exec-plugin credentials
  // drop their cache here (client-go re-execs on 401). Default: none (401 is returned at once).
  std::function<void()> on_unauthorized;
  std::chrono::milliseconds request_timeout{30000};  // Default: 30 s (Do, and Stream headers).
  size_t max_idle_connections = 8;                    // idle pool size. Default: 8.
  std::chrono::milliseconds idle_connection_timeout{90000};  // Go's IdleConnTimeout. 90 s.
  int max_retries = 10;                                  // client-go maxRetries. Default: 10.
  std::chrono::milliseconds max_retry_delay{10000};      // cap on one wait. Default: 10 s.
  std::chrono::milliseconds initial_backoff{200};        // retry without Retry-After. 200 ms.
  double qps = 0;      // client-side limit; <= 0 disables. Default: 0 (off; client-go uses 5).
  int burst = 10;      // bucket size when qps > 0. Default: 10.
  std::string user_agent = "berth/0.1";
  std::chrono::milliseconds cancel_poll_interval{1000};  // Stream cancel latency. Default: 1 s.
  // Called after every attempt (retries included): method, HTTP code (0 = no response), and
  // latency. The metrics layer maps it to rest_client_requests_total. Default: none.
  std::function<void(std::string_view method, int code, std::chrono::duration<double> latency)>
      on_request;
  // One log line per (server, reason) per interval for TLS/401/403 failures; 0 logs each.
  std::chrono::milliseconds failure_log_interval{30000};  // Default: 30 s.
};

class HttpsRestClient : public RestClient {
 public:
  // Create validates the options and builds the TLS context; no connection is opened yet.
  // Errors: kInvalidArgument for a bad server URL, CA or client certificate/key.
  static Result<std::shared_ptr<HttpsRestClient>> Create(HttpsRestClientOptions options);

  ~HttpsRestClient() override;
  HttpsRestClient(const HttpsRestClient&) = delete;
  HttpsRestClient& operator=(const HttpsRestClient&) = delete;

  // Do: see RestClient::Do. Non-2xx → DecodeApiError (the Status message unchanged, as
  // client-go's StatusError); transport errors name the method and URL.
  Result<RestResponse> Do(const RestRequest& request) override;

  // Stream: see RestClient::Stream. Lines exclude the newline; empty lines are skipped.
  Status Stream(const RestRequest& request,
                const std::function<bool(std::string_view line)>& on_line,
                const std::atomic<bool>* cancel = nullptr) override;

  // StreamBytes: see RestClient::StreamBytes (the headers of the 2xx answer, then raw chunks).
  Status StreamBytes(
      const RestRequest& request,
      const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
      const std::function<bool(std::string_view bytes)>& on_bytes,
      const std::atomic<bool>* cancel = nullptr) override;

  // Server: the server URL ("https://host:port[/prefix]").
  std::string Server() const override;

  // IdleConnectionCountForTest: connections waiting in the pool.
  size_t IdleConnectionCountForTest() const;
  // OpenedConnectionCountForTest: connections opened since creation.
  size_t OpenedConnectionCountForTest() const;

 private:
  struct Impl;
  Status StreamBody(
      const RestRequest& request,
      const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
      const std::function<Result<bool>(std::string_view data)>& sink,
      const std::function<void()>& on_end, const std::atomic<bool>* cancel);
  explicit HttpsRestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::shim
