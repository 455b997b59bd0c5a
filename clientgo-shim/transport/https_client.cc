// clientgo-shim/transport/https_client.cc
#include "clientgo-shim/transport/https_client.h"

#include <poll.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/beast/http.hpp>

#include "clientgo-shim/base/rate_limited_log.h"
#include "clientgo-shim/transport/api_error.h"
#include "clientgo-shim/transport/connection.h"
#include "clientgo-shim/transport/line_splitter.h"
#include "clientgo-shim/transport/server_url.h"
#include "clientgo-shim/transport/token_bucket.h"

namespace berth::shim {
namespace beast = boost::beast;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxErrorBody = 1 << 20;     // enough for any Status; more is a proxy page
constexpr uint32_t kHeaderLimit = 256 * 1024;
constexpr auto kResetRetryDelay = std::chrono::seconds(1);  // client-go: synthetic Retry-After 1
constexpr std::string_view kLogger = "rest-client";

using Parser = http::response_parser<http::buffer_body>;

bool IsIdempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS";
}

// AttemptResult: one try of a request (one HTTP exchange, or a failure to get one).
struct AttemptResult {
  int status = 0;                // 0 = no response
  std::optional<Error> error;    // unset = success
  bool connection_reset = false; // transport failure that a GET may retry
  std::string tls_failure;       // the TLS handshake failed: why (Connection::TlsFailure)
};

// Exchange: a request written and its response header read, on a connection we own.
struct Exchange {
  std::unique_ptr<Connection> conn;
  std::unique_ptr<Parser> parser;
};

bool IsResetLike(const boost::system::error_code& ec) {
  namespace error = boost::asio::error;
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == error::eof || ec == error::connection_reset || ec == error::broken_pipe ||
         ec == error::connection_aborted || ec == boost::asio::ssl::error::stream_truncated;
}

// HasPendingInput: an idle kept-alive socket that is readable was closed by the server (or sent
// something unexpected); either way it cannot carry a new request.
bool HasPendingInput(Connection& conn) {
  pollfd pfd{};
  pfd.fd = beast::get_lowest_layer(conn.stream()).socket().native_handle();
  pfd.events = POLLIN;
  return ::poll(&pfd, 1, 0) != 0;
}

void SleepFor(Clock::duration d, const std::atomic<bool>* cancel) {
  const Clock::time_point end = Clock::now() + d;
  for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
    if (cancel != nullptr && cancel->load()) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(end - now, std::chrono::milliseconds(50)));
  }
}

}  // namespace

struct HttpsRestClient::Impl {
  HttpsRestClientOptions options;
  ServerUrl server;
  std::string tls_name;
  std::shared_ptr<boost::asio::ssl::context> tls;
  std::unique_ptr<TokenBucket> limiter;
  mutable std::mutex mu;
  std::vector<std::unique_ptr<Connection>> idle;  // guarded by mu; back = most recent
  std::atomic<size_t> opened{0};
  std::unique_ptr<log::RateLimitedLog> failure_log;  // TLS, 401 and 403 failures

  // TakeIdle pops the most recently used live idle connection, dropping expired ones.
  std::unique_ptr<Connection> TakeIdle() {
    std::lock_guard<std::mutex> lock(mu);
    const Clock::time_point now = Clock::now();
    while (!idle.empty()) {
      std::unique_ptr<Connection> c = std::move(idle.back());
      idle.pop_back();
      if (now - c->idle_since < options.idle_connection_timeout && c->buffer().size() == 0 &&
          c->IsOpen() && !HasPendingInput(*c)) {
        return c;
      }
    }
    return nullptr;
  }

  void GiveBack(std::unique_ptr<Connection> c) {
    c->idle_since = Clock::now();
    ++c->uses;
    std::lock_guard<std::mutex> lock(mu);
    if (idle.size() >= options.max_idle_connections) idle.erase(idle.begin());
    if (options.max_idle_connections > 0) idle.push_back(std::move(c));
  }

  std::string Describe(const RestRequest& r) const {
    return r.method + " " + server.ToString() + r.path;
  }

  Error TransportError(const RestRequest& r, std::string_view step, const Connection::Outcome& o,
                       std::chrono::milliseconds timeout) const {
    if (o.stop == Connection::Stop::kDeadline) {
      Error e = MakeError(ErrorCode::kTimeout, Describe(r) + ": " + std::string(step) +
                                                   ": timed out after " +
                                                   std::to_string(timeout.count()) + "ms")
                    .error();
      return e;
    }
    const std::string why =
        o.stop == Connection::Stop::kCancelled ? "cancelled" : o.ec.message();
    return MakeError(ErrorCode::kTransport, Describe(r) + ": " + std::string(step) + ": " + why)
        .error();
  }

  http::request<http::string_body> BuildRequest(const RestRequest& r) const {
    http::request<http::string_body> req;
    const http::verb verb = http::string_to_verb(r.method);
    if (verb == http::verb::unknown) {
      req.method_string(r.method);
    } else {
      req.method(verb);
    }
    req.target(BuildTarget(server, r.path, r.query));
    req.version(11);
    req.set(http::field::host, server.HostHeader());
    req.set(http::field::user_agent, options.user_agent);
    if (!r.accept.empty()) req.set(http::field::accept, r.accept);
    if (options.token_source) {
      const std::string token = options.token_source();
      if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    }
    if (!r.body.empty()) {
      if (!r.content_type.empty()) req.set(http::field::content_type, r.content_type);
      req.body() = r.body;
    }
    req.prepare_payload();
    return req;
  }

  // SendAndReadHeader writes the request and reads the response header. A pooled connection
  // that turns out to be dead before answering is replaced by a fresh one (Go's transport does
  // the same for idempotent requests, and for any request whose write failed).
  Result<Exchange> SendAndReadHeader(const RestRequest& r, Clock::time_point deadline,
                                     std::chrono::milliseconds timeout,
                                     const std::atomic<bool>* cancel, bool* reset,
                                     std::string* tls_failure) {
    const http::request<http::string_body> req = BuildRequest(r);
    for (size_t tries = 0;; ++tries) {
      Exchange ex;
      bool reused = false;
      if (tries <= options.max_idle_connections) ex.conn = TakeIdle();
      if (ex.conn) {
        reused = true;
      } else {
        ex.conn = std::make_unique<Connection>(tls);
        Status st = ex.conn->Open(server, tls_name, !options.insecure_skip_tls_verify, deadline,
                                  cancel);
        if (!st) {
          *tls_failure = ex.conn->TlsFailure();
          st.error().message = r.method + " " + r.path + ": " + st.error().message;
          return std::unexpected(st.error());
        }
        opened.fetch_add(1);
      }
      // The fence is checked as late as possible: after connecting (which can take a TLS
      // handshake), right before the first byte of a write is sent.
      if (r.fence && IsMutatingMethod(r.method)) {
        if (Status open = r.fence->CheckWrite(); !open) {
          GiveBack(std::move(ex.conn));
          return std::unexpected(open.error());
        }
      }
      Connection::Outcome o = ex.conn->RunUntil(
          [&](auto handler) { http::async_write(ex.conn->stream(), req, handler); }, deadline,
          cancel);
      if (o.ec || o.stop != Connection::Stop::kNone) {
        if (reused && o.stop == Connection::Stop::kNone) continue;  // nothing reached the server
        *reset = IsResetLike(o.ec);
        return std::unexpected(TransportError(r, "write", o, timeout));
      }
      ex.parser = std::make_unique<Parser>();
      ex.parser->header_limit(kHeaderLimit);
      ex.parser->body_limit(boost::none);
      if (r.method == "HEAD") ex.parser->skip(true);
      o = ex.conn->RunUntil(
          [&](auto handler) {
            http::async_read_header(ex.conn->stream(), ex.conn->buffer(), *ex.parser, handler);
          },
          deadline, cancel);
      if (o.ec || o.stop != Connection::Stop::kNone) {
        if (reused && o.stop == Connection::Stop::kNone && !ex.parser->got_some() &&
            IsResetLike(o.ec) && IsIdempotent(r.method)) {
          continue;  // the server closed the idle connection as we reused it
        }
        *reset = IsResetLike(o.ec);
        return std::unexpected(TransportError(r, "read response header", o, timeout));
      }
      return ex;
    }
  }

  // ReadBody streams the rest of the body into `sink` (which returns false to stop).
  // Returns true when the body ended, false when the sink stopped or `cancel` was set.
  Result<bool> ReadBody(const RestRequest& r, Exchange& ex, Clock::time_point deadline,
                        std::chrono::milliseconds timeout, const std::atomic<bool>* cancel,
                        const std::function<Result<bool>(std::string_view)>& sink,
                        bool* reset) {
    std::vector<char> chunk(kReadChunk);
    while (!ex.parser->is_done()) {
      ex.parser->get().body().data = chunk.data();
      ex.parser->get().body().size = chunk.size();
      Connection::Outcome o = ex.conn->ReadSomeUntil(
          [&](boost::system::error_code& ec) {
            return http::read_some(ex.conn->stream(), ex.conn->buffer(), *ex.parser, ec);
          },
          deadline, cancel, options.cancel_poll_interval);
      if (o.stop == Connection::Stop::kCancelled) return false;
      if (o.ec == http::error::need_buffer) o.ec = {};
      if (o.ec || o.stop != Connection::Stop::kNone) {
        *reset = IsResetLike(o.ec);
        return std::unexpected(TransportError(r, "read response body", o, timeout));
      }
      const size_t got = chunk.size() - ex.parser->get().body().size;
      if (got > 0) {
        Result<bool> go_on = sink(std::string_view(chunk.data(), got));
        if (!go_on) return std::unexpected(go_on.error());
        if (!*go_on) return false;
      }
    }
    return true;
  }

  static std::map<std::string, std::string> HeadersOf(const Parser& parser) {
    std::map<std::string, std::string> out;
    for (const auto& field : parser.get()) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto [it, inserted] = out.emplace(name, std::string(field.value()));
      if (!inserted) it->second += ", " + std::string(field.value());
    }
    return out;
  }

  // ReadError reads a non-2xx body (bounded) and decodes it.
  Error ReadError(const RestRequest& r, Exchange& ex, Clock::time_point deadline,
                  std::chrono::milliseconds timeout) {
    std::string body;
    bool reset = false;
    Result<bool> done = ReadBody(
        r, ex, deadline, timeout, nullptr,
        [&](std::string_view data) -> Result<bool> {
          body.append(data.substr(0, kMaxErrorBody - std::min(body.size(), kMaxErrorBody)));
          return body.size() < kMaxErrorBody;
        },
        &reset);
    const int status = static_cast<int>(ex.parser->get().result_int());
    Error e = DecodeApiError(status, body, ex.parser->get()[http::field::retry_after]);
    if (done && *done && ex.parser->keep_alive()) GiveBack(std::move(ex.conn));
    return e;
  }

  // LogFailure writes the failures a user must see to fix the configuration (wrong CA, wrong
  // host name, bad or missing credentials, missing RBAC), at most once per (server, reason) per
  // failure_log_interval: without a line these only show up as objects that never change.
  void LogFailure(const RestRequest& r, const AttemptResult& result) {
    const Error& e = *result.error;
    const std::string url = server.ToString();
    if (!result.tls_failure.empty()) {
      failure_log->Write(log::Level::kError, kLogger, url + "\x1ftls\x1f" + result.tls_failure,
                         "TLS handshake with the API server failed",
                         {{"server", url},
                          {"reason", result.tls_failure},
                          {"request", r.method + " " + r.path},
                          {"error", e.message}});
    } else if (result.status == 401 || result.status == 403) {
      const bool unauthorized = result.status == 401;
      failure_log->Write(
          unauthorized ? log::Level::kError : log::Level::kWarn, kLogger,
          url + "\x1f" + std::to_string(result.status) + "\x1f" + e.message,
          unauthorized ? "the API server rejected the client's credentials"
                       : "the API server forbade a request",
          {{"server", url},
           {"code", std::to_string(result.status)},
           {"reason", e.message},
           {"statusReason", e.reason},
           {"request", r.method + " " + r.path}});
    }
  }

  // WithRetries runs `attempt` until it succeeds or the retry rules say stop (see the header).
  template <class Attempt>
  std::optional<Error> WithRetries(const RestRequest& r, Clock::time_point deadline,
                                   const std::atomic<bool>* cancel, Attempt&& attempt) {
    bool reauthenticated = false;
    for (int retries = 0;; ++retries) {
      if (limiter) limiter->Wait();
      const Clock::time_point start = Clock::now();
      AttemptResult result = attempt();
      if (options.on_request) {
        options.on_request(r.method, result.status,
                           std::chrono::duration<double>(Clock::now() - start));
      }
      if (!result.error) return std::nullopt;
      Error& e = *result.error;
      if (cancel != nullptr && cancel->load()) return std::nullopt;
      if (result.status == 401 && options.on_unauthorized && !reauthenticated) {
        reauthenticated = true;
        options.on_unauthorized();
        --retries;  // the credential refresh is not a retry of a server failure
        continue;
      }
      std::optional<Clock::duration> wait;
      if (result.status == 429 || result.status >= 500) {
        if (e.retry_after) {
          wait = *e.retry_after;
        } else if (IsIdempotent(r.method)) {
          wait = options.initial_backoff * (1LL << std::min(retries, 16));
        }
      } else if (result.status == 0 && result.connection_reset && IsIdempotent(r.method)) {
        wait = kResetRetryDelay;
      }
      if (!wait || retries >= options.max_retries) {
        LogFailure(r, result);
        return std::move(e);
      }
      wait = std::min<Clock::duration>(*wait, options.max_retry_delay);
      if (Clock::now() + *wait >= deadline) {
        LogFailure(r, result);
        return std::move(e);
      }
      SleepFor(*wait, cancel);
    }
  }

  std::chrono::milliseconds TimeoutOf(const RestRequest& r) const {
    return r.timeout.count() > 0 ? r.timeout : options.request_timeout;
  }
};

HttpsRestClient::HttpsRestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpsRestClient::~HttpsRestClient() = default;

Result<std::shared_ptr<HttpsRestClient>> HttpsRestClient::Create(HttpsRestClientOptions options) {
  auto impl = std::make_unique<Impl>();
  auto server = ParseServerUrl(options.server);
  if (!server) return std::unexpected(server.error());
  impl->server = *server;
  impl->tls_name = options.tls_server_name.empty() ? server->host : options.tls_server_name;
  auto tls = MakeTlsContext({options.ca_pem, options.ca_file, options.insecure_skip_tls_verify,
                             options.client_cert_pem, options.client_key_pem});
  if (!tls) return std::unexpected(tls.error());
  impl->tls = *tls;
  if (options.qps > 0) impl->limiter = std::make_unique<TokenBucket>(options.qps, options.burst);
  if (options.request_timeout.count() <= 0) options.request_timeout = std::chrono::seconds(30);
  if (options.cancel_poll_interval.count() <= 0) {
    options.cancel_poll_interval = std::chrono::seconds(1);
  }
  impl->failure_log = std::make_unique<log::RateLimitedLog>(options.failure_log_interval);
  impl->options = std::move(options);
  return std::shared_ptr<HttpsRestClient>(new HttpsRestClient(std::move(impl)));
}

Result<RestResponse> HttpsRestClient::Do(const RestRequest& request) {
  Impl& im = *impl_;
  const std::chrono::milliseconds timeout = im.TimeoutOf(request);
  const Clock::time_point deadline = Clock::now() + timeout;
  RestResponse response;
  std::optional<Error> error = im.WithRetries(request, deadline, nullptr, [&]() {
    AttemptResult result;
    bool reset = false;
    Result<Exchange> ex =
        im.SendAndReadHeader(request, deadline, timeout, nullptr, &reset, &result.tls_failure);
    if (!ex) {
      result.error = ex.error();
      result.connection_reset = reset;
      return result;
    }
    result.status = static_cast<int>(ex->parser->get().result_int());
    if (result.status < 200 || result.status > 299) {
      result.error = im.ReadError(request, *ex, deadline, timeout);
      return result;
    }
    std::string body;
    if (auto length = ex->parser->content_length()) body.reserve(*length);
    Result<bool> done = im.ReadBody(
        request, *ex, deadline, timeout, nullptr,
        [&body](std::string_view data) -> Result<bool> {
          body.append(data);
          return true;
        },
        &reset);
    if (!done) {
      result.error = done.error();
      result.status = 0;  // the exchange failed; nothing usable arrived
      result.connection_reset = reset;
      return result;
    }
    response.status = result.status;
    response.headers = Impl::HeadersOf(*ex->parser);
    response.body = std::move(body);
    if (ex->parser->keep_alive()) im.GiveBack(std::move(ex->conn));
    return result;
  });
  if (error) return std::unexpected(std::move(*error));
  return response;
}

// StreamBody: one streamed request. `on_headers` sees the 2xx answer's headers, `sink` each chunk
// (false stops), `on_end` runs when the server ended the body cleanly.
Status HttpsRestClient::StreamBody(
    const RestRequest& request,
    const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
    const std::function<Result<bool>(std::string_view data)>& sink, const std::function<void()>& on_end,
    const std::atomic<bool>* cancel) {
  Impl& im = *impl_;
  const std::chrono::milliseconds timeout = im.TimeoutOf(request);
  std::optional<Error> body_error;  // a failure after the 2xx header is not retried
  std::optional<Error> error =
      im.WithRetries(request, Clock::time_point::max(), cancel, [&]() {
        AttemptResult result;
        bool reset = false;
        const Clock::time_point header_deadline = Clock::now() + timeout;
        Result<Exchange> ex = im.SendAndReadHeader(request, header_deadline, timeout, cancel,
                                                   &reset, &result.tls_failure);
        if (!ex) {
          result.error = ex.error();
          result.connection_reset = reset;
          return result;
        }
        result.status = static_cast<int>(ex->parser->get().result_int());
        if (result.status < 200 || result.status > 299) {
          result.error = im.ReadError(request, *ex, header_deadline, timeout);
          return result;
        }
        on_headers(Impl::HeadersOf(*ex->parser));
        Result<bool> done =
            im.ReadBody(request, *ex, Clock::time_point::max(), timeout, cancel, sink, &reset);
        if (!done) {
          body_error = done.error();
        } else if (*done) {
          on_end();
          if (ex->parser->keep_alive()) im.GiveBack(std::move(ex->conn));
        }
        return result;  // the stream itself succeeded; a body error is reported below
      });
  if (error) return std::unexpected(std::move(*error));
  if (body_error) return std::unexpected(std::move(*body_error));
  return {};
}

Status HttpsRestClient::Stream(const RestRequest& request,
                               const std::function<bool(std::string_view line)>& on_line,
                               const std::atomic<bool>* cancel) {
  LineSplitter splitter;
  return StreamBody(
      request, [](const std::map<std::string, std::string>&) {},
      [&](std::string_view data) { return splitter.Feed(data, on_line); },
      [&] { splitter.Finish(on_line); }, cancel);
}

Status HttpsRestClient::StreamBytes(
    const RestRequest& request,
    const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
    const std::function<bool(std::string_view bytes)>& on_bytes, const std::atomic<bool>* cancel) {
  return StreamBody(
      request, on_headers, [&](std::string_view data) -> Result<bool> { return on_bytes(data); }, [] {},
      cancel);
}

std::string HttpsRestClient::Server() const { return impl_->server.ToString(); }

size_t HttpsRestClient::IdleConnectionCountForTest() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->idle.size();
}

size_t HttpsRestClient::OpenedConnectionCountForTest() const { return impl_->opened.load(); }

}  // namespace berth::shim
