// clientgo-shim/metrics/http_server.cc — see http_server.h.
//
// Everything runs on the one I/O thread: the accept loop, every connection's state machine
// ([TLS handshake →] read header → read body → handler → write → idle wait) and the connection
// table, so the table needs no lock. A connection is a Connection<Stream> over a plain tcp_stream
// or a TLS ssl_stream; the table lists them through ConnectionBase. Beast's tcp_stream carries each deadline (expires_after); when it fires, the
// stream closes the socket and the pending operation completes with beast::error::timeout.
#include "clientgo-shim/metrics/http_server.h"

#include <cerrno>
#include <charconv>
#include <exception>
#include <iterator>
#include <list>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>

#include <sys/stat.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "clientgo-shim/base/log.h"
#include "clientgo-shim/metrics/http_server_support.h"

namespace berth::shim {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

using http_server_internal::FileStamp;
using http_server_internal::LoadTlsContext;
using http_server_internal::ParseTarget;
using http_server_internal::Stamp;

constexpr std::string_view kLogger = "http-server";
// After an accept failure other than a client abort (EMFILE, ENFILE, ENOBUFS): a pause, so a full
// descriptor table is not a busy loop.
constexpr auto kAcceptRetryPause = std::chrono::milliseconds(50);
constexpr auto kWarningInterval = std::chrono::seconds(10);
constexpr size_t kReadChunk = 1024;
// How often a new TLS connection checks whether the certificate files changed.
constexpr auto kTlsCheckInterval = std::chrono::seconds(1);

bool IsHttpParseError(const error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

}  // namespace

// ConnectionBase: what the connection table needs of a connection, plain or TLS.
class HttpServer::ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  // Close closes the socket (pending operations complete with operation_aborted) and leaves the
  // table. Idempotent.
  virtual void Close() = 0;
};

struct HttpServer::Impl {
  Impl(HttpServer& s, const HttpServerOptions& o) : server(s), options(o) {}

  void Accept();
  void OnAccept(const error_code& ec, tcp::socket socket);
  // EvictOldest closes the connection that has been waiting longest. Returns whether one was.
  bool EvictOldest();
  void CloseAll();
  // WarnLimited logs at most once per kWarningInterval: an attack must not flood the log.
  void WarnLimited(std::string_view message, log::Fields fields);
  // TlsContext: the context for a new TLS connection. At most once per kTlsCheckInterval it
  // checks the certificate and key files and, when either changed, loads them again; a pair that
  // does not load is logged and the previous context stays (connections keep the context they
  // started with).
  std::shared_ptr<asio::ssl::context> TlsContext();
  // LoadTls loads the files now. Errors: LoadTlsContext's.
  Status LoadTls();

  HttpServer& server;
  const HttpServerOptions options;
  // Open connections, the one waiting longest (for request bytes, or idle) first. Declared before
  // `io`: connections leave it in their destructors, which run while `io` is destroyed.
  std::list<ConnectionBase*> waiting;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_pause{io};
  std::thread thread;
  bool stopping = false;                                 // I/O thread only
  std::chrono::steady_clock::time_point last_warning{};  // I/O thread only
  // TLS (options.tls_cert_file set); I/O thread only after Start.
  std::shared_ptr<asio::ssl::context> tls;
  FileStamp tls_cert_stamp, tls_key_stamp;
  std::chrono::steady_clock::time_point tls_checked{};
  std::atomic<size_t> open{0};
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> evicted{0};
  std::atomic<uint64_t> timed_out{0};
  std::atomic<uint64_t> accept_errors{0};
  std::atomic<uint64_t> tls_reloads{0};
  std::atomic<uint64_t> tls_reload_failures{0};
  std::atomic<uint64_t> tls_handshake_errors{0};
};

// Connection: one client socket's request/response loop over `Stream` (beast::tcp_stream, or
// beast::ssl_stream<beast::tcp_stream> for TLS). Owned by its pending operation's handler
// (shared_from_this); listed in Impl::waiting while open.
template <class Stream>
class HttpServer::Connection : public ConnectionBase,
                               public std::enable_shared_from_this<HttpServer::Connection<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  // Plain.
  Connection(Impl& impl, tcp::socket socket) : impl_(impl), stream_(std::move(socket)) { Enlist(); }
  // TLS: `context` stays alive as long as the connection, whatever reloads happen meanwhile.
  Connection(Impl& impl, tcp::socket socket, std::shared_ptr<asio::ssl::context> context)
      : impl_(impl), context_(std::move(context)), stream_(std::move(socket), *context_) {
    Enlist();
  }
  ~Connection() override { Close(); }

  // Start reads the first request (after the TLS handshake); its deadline runs from accept, so a
  // silent client is closed.
  void Start() {
    Lowest().expires_after(impl_.options.request_timeout);
    if constexpr (kTls) {
      stream_.async_handshake(asio::ssl::stream_base::server, [self = this->shared_from_this()](const error_code& ec) {
        if (self->closed_) return;
        if (ec) {
          // Not TLS (a plain-HTTP client), an untrusted or aborted client, or the deadline.
          ++self->impl_.tls_handshake_errors;
          if (ec == beast::error::timeout) ++self->impl_.timed_out;
          self->impl_.WarnLimited("TLS handshake failed", {{"error", ec.message()}});
          return self->Close();
        }
        self->ReadHeader();
      });
    } else {
      ReadHeader();
    }
  }

  void Close() override {
    if (closed_) return;
    closed_ = true;
    impl_.waiting.erase(position_);
    impl_.open.store(impl_.waiting.size());
    Lowest().close();
  }

 private:
  void Enlist() {
    impl_.waiting.push_back(this);
    position_ = std::prev(impl_.waiting.end());
    impl_.open.store(impl_.waiting.size());
  }
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  void MarkWaiting() { impl_.waiting.splice(impl_.waiting.end(), impl_.waiting, position_); }

  // ReadHeader parses the next request's header. Beast's parser applies header_limit to each
  // parse window only, so a header arriving in many small pieces could grow without bound; the
  // total is counted here.
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(impl_.options.header_limit);
    parser_->body_limit(impl_.options.body_limit);
    header_bytes_ = 0;
    if (buffer_.size() > 0) return ParseHeader();  // pipelined, or read during the idle wait
    ReadHeaderBytes();
  }

  void ReadHeaderBytes() {
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = this->shared_from_this()](const error_code& ec, size_t n) {
                              if (self->closed_) return;
                              if (ec) return self->OnReadError(ec);
                              self->buffer_.commit(n);
                              self->ParseHeader();
                            });
  }

  void ParseHeader() {
    error_code ec;
    const size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    header_bytes_ += used;
    if (ec == http::error::need_more || (!ec && !parser_->is_header_done())) {
      if (header_bytes_ + buffer_.size() > impl_.options.header_limit) {
        return OnReadError(http::error::header_limit);
      }
      return ReadHeaderBytes();
    }
    if (!ec && header_bytes_ > impl_.options.header_limit) ec = http::error::header_limit;
    OnHeader(ec);
  }

  void OnHeader(const error_code& ec) {
    if (closed_) return;
    if (ec) return OnReadError(ec);
    const http::verb verb = parser_->get().method();
    const bool post_ok = impl_.options.allow_post && verb == http::verb::post;
    if (verb != http::verb::get && verb != http::verb::head && !post_ok) {
      // Answered before any body is read; the connection closes after the reply.
      return Reply(ErrorReply(405, "405 method not allowed\n",
                              {{"Allow", impl_.options.allow_post ? "GET, HEAD, POST" : "GET, HEAD"}}),
                   parser_->get().version(), false, false);
    }
    if (parser_->is_done()) return Respond();
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](const error_code& read_ec, size_t) {
                       if (self->closed_) return;
                       if (read_ec) return self->OnReadError(read_ec);
                       self->Respond();
                     });
  }

  void OnReadError(const error_code& ec) {
    if (ec == beast::error::timeout) {
      ++impl_.timed_out;
      return Close();
    }
    if (ec == http::error::header_limit) {
      return Reply(ErrorReply(431, "431 request header fields too large\n"), 11, false, false);
    }
    if (ec == http::error::body_limit) {
      return Reply(ErrorReply(413, "413 request entity too large\n"), 11, false, false);
    }
    // end_of_stream / partial_message: the client went away; nobody to answer.
    if (ec == asio::error::eof || ec == http::error::end_of_stream ||
        ec == http::error::partial_message || !IsHttpParseError(ec)) {
      return Close();
    }
    Reply(ErrorReply(400, "400 bad request: " + ec.message() + "\n"), 11, false, false);
  }

  static HttpServerReply ErrorReply(int status, std::string body,
                                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    HttpServerReply r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    return r;
  }

  void Respond() {
    const auto& req = parser_->get();
    const bool head = req.method() == http::verb::head;
    HttpServerReply reply;
    try {
      HttpServerRequest request = ParseTarget(std::string(req.method_string()), std::string_view(req.target()));
      if (req.method() == http::verb::post) request.body = req.body();
      request.authorization = std::string(req[http::field::authorization]);
      reply = impl_.server.Dispatch(request);
    } catch (const std::exception& e) {
      impl_.WarnLimited("handler threw", {{"path", std::string(req.target())}, {"error", e.what()}});
      reply = ErrorReply(500, "500 internal server error\n");
    }
    Reply(std::move(reply), req.version(), head, req.keep_alive());
  }

  void Reply(HttpServerReply reply, unsigned version, bool head, bool keep_alive) {
    keep_alive_ = keep_alive;
    response_.emplace();
    auto& res = *response_;
    res.version(version == 10 ? 10 : 11);
    res.result(reply.status >= 100 && reply.status <= 999 ? static_cast<unsigned>(reply.status)
                                                          : 500u);
    res.set(http::field::content_type, reply.content_type);
    for (const auto& [k, v] : reply.headers) res.set(k, v);
    res.keep_alive(keep_alive);
    if (head) {
      res.content_length(reply.body.size());  // what GET would send; no body follows
    } else {
      res.body() = std::move(reply.body);
      res.prepare_payload();
    }
    http::async_write(stream_, res, [self = this->shared_from_this()](const error_code& ec, size_t) {
      self->OnWritten(ec);
    });
  }

  void OnWritten(const error_code& ec) {
    if (closed_) return;
    response_.reset();
    if (ec) {
      if (ec == beast::error::timeout) ++impl_.timed_out;
      return Close();
    }
    if (!keep_alive_) {
      if constexpr (kTls) {
        // close_notify first, bounded by the request deadline still running.
        return stream_.async_shutdown([self = this->shared_from_this()](const error_code&) { self->Close(); });
      } else {
        error_code ignored;
        Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
        return Close();
      }
    }
    MarkWaiting();
    if (buffer_.size() > 0) {  // a pipelined request is already here
      Lowest().expires_after(impl_.options.request_timeout);
      return ReadHeader();
    }
    Lowest().expires_after(impl_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = this->shared_from_this()](const error_code& read_ec, size_t n) {
                              self->OnNextRequestBytes(read_ec, n);
                            });
  }

  // OnNextRequestBytes: the idle wait ended with the first bytes of a request, whose own
  // deadline starts now.
  void OnNextRequestBytes(const error_code& ec, size_t n) {
    if (closed_) return;
    if (ec) {
      if (ec == beast::error::timeout) ++impl_.timed_out;
      return Close();
    }
    buffer_.commit(n);
    MarkWaiting();
    Lowest().expires_after(impl_.options.request_timeout);
    ReadHeader();
  }

  Impl& impl_;
  std::shared_ptr<asio::ssl::context> context_;  // TLS only; before stream_, which uses it
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  std::list<ConnectionBase*>::iterator position_;
  size_t header_bytes_ = 0;  // of the current request, parsed so far
  bool keep_alive_ = false;
  bool closed_ = false;
};

void HttpServer::Impl::Accept() {
  acceptor.async_accept([this](const error_code& ec, tcp::socket socket) {
    OnAccept(ec, std::move(socket));
  });
}

void HttpServer::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  if (stopping || ec == asio::error::operation_aborted) return;
  if (ec) {
    ++accept_errors;
    if (ec == asio::error::connection_aborted) return Accept();  // the client gave up; next one
    // Out of descriptors or buffers: free one (the oldest waiting connection) and retry soon.
    WarnLimited("accept failed; closing the oldest connection and retrying",
                {{"error", ec.message()}});
    EvictOldest();
    accept_pause.expires_after(kAcceptRetryPause);
    accept_pause.async_wait([this](const error_code& wait_ec) {
      if (!wait_ec && !stopping) Accept();
    });
    return;
  }
  ++accepted;
  // Responses go out as header and body writes (TLS records): without TCP_NODELAY the second
  // waits for the client's delayed ACK, 40 ms on Linux, per response (Go's clients and servers
  // set it too).
  error_code nodelay_ec;
  socket.set_option(tcp::no_delay(true), nodelay_ec);
  try {
    if (waiting.size() >= options.max_connections) {
      EvictOldest();
      WarnLimited("connection limit reached; closing the connection waiting longest",
                  {{"max_connections", std::to_string(options.max_connections)},
                   {"evicted_total", std::to_string(evicted.load())}});
    }
    if (!options.tls_cert_file.empty() || !options.tls_cert_pem.empty()) {
      std::make_shared<Connection<beast::ssl_stream<beast::tcp_stream>>>(*this, std::move(socket), TlsContext())
          ->Start();
    } else {
      std::make_shared<Connection<beast::tcp_stream>>(*this, std::move(socket))->Start();
    }
  } catch (const std::exception& e) {
    // Only allocation can throw here; the new socket is dropped (closed), the loop goes on.
    WarnLimited("cannot serve a new connection", {{"error", e.what()}});
  }
  Accept();
}

bool HttpServer::Impl::EvictOldest() {
  if (waiting.empty()) return false;
  ++evicted;
  waiting.front()->Close();
  return true;
}

void HttpServer::Impl::CloseAll() {
  const std::list<ConnectionBase*> all = waiting;  // Close() edits `waiting`
  for (ConnectionBase* c : all) c->Close();
}

Status HttpServer::Impl::LoadTls() {
  if (!options.tls_cert_pem.empty()) {
    auto loaded = LoadTlsContext("", "", options.tls_cert_pem, options.tls_key_pem);
    if (!loaded) return std::unexpected(loaded.error());
    tls = std::move(*loaded);
    return {};
  }
  FileStamp cert = Stamp(options.tls_cert_file);
  FileStamp key = Stamp(options.tls_key_file);
  auto loaded = LoadTlsContext(options.tls_cert_file, options.tls_key_file, "", "");
  if (!loaded) return std::unexpected(loaded.error());
  tls = std::move(*loaded);
  tls_cert_stamp = cert;
  tls_key_stamp = key;
  return {};
}

std::shared_ptr<asio::ssl::context> HttpServer::Impl::TlsContext() {
  if (!options.tls_cert_pem.empty()) return tls;  // in-memory pair: nothing to reload
  const auto now = std::chrono::steady_clock::now();
  if (now - tls_checked >= kTlsCheckInterval) {
    tls_checked = now;
    if (Stamp(options.tls_cert_file) != tls_cert_stamp || Stamp(options.tls_key_file) != tls_key_stamp) {
      if (auto reloaded = LoadTls(); reloaded) {
        ++tls_reloads;
        log::Info(kLogger, "reloaded the TLS certificate",
                  {{"address", server.bind_address_}, {"cert", options.tls_cert_file}});
      } else {
        ++tls_reload_failures;
        // Half-written files (a cert renewed before its key) load on a later check.
        WarnLimited("cannot reload the TLS certificate; serving the previous one",
                    {{"error", reloaded.error().message}});
      }
    }
  }
  return tls;
}

void HttpServer::Impl::WarnLimited(std::string_view message, log::Fields fields) {
  const auto now = std::chrono::steady_clock::now();
  if (last_warning != std::chrono::steady_clock::time_point{} &&
      now - last_warning < kWarningInterval) {
    return;
  }
  last_warning = now;
  fields.insert(fields.begin(), {"address", server.bind_address_});
  log::Warn(kLogger, message, fields);
}

HttpServer::HttpServer(std::string bind_address, HttpServerOptions options)
    : bind_address_(std::move(bind_address)), options_(options) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(std::string path, HttpHandler handler) {
  handlers_[std::move(path)] = std::move(handler);
}

HttpServerReply HttpServer::Dispatch(const HttpServerRequest& request) const {
  auto it = handlers_.find(request.path);
  if (it != handlers_.end()) return it->second(request);
  const HttpHandler* best = nullptr;
  size_t best_len = 0;
  for (const auto& [p, h] : handlers_) {
    if (p.ends_with('/') && request.path.starts_with(p) && p.size() > best_len) {
      best = &h;
      best_len = p.size();
    }
  }
  if (best != nullptr) return (*best)(request);
  return HttpServerReply{404, "text/plain; charset=utf-8", "404 page not found\n", {}};
}

Result<uint16_t> HttpServer::Start() {
  auto bind = ParseBindAddress(bind_address_);
  if (!bind) return std::unexpected(bind.error());
  if (!bind->enabled) return uint16_t{0};
  if (options_.max_connections == 0 || options_.request_timeout.count() <= 0 ||
      options_.idle_timeout.count() <= 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "http server " + bind_address_ +
                         ": max_connections, request_timeout and idle_timeout must be positive");
  }
  if (options_.tls_cert_file.empty() != options_.tls_key_file.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "http server " + bind_address_ + ": tls_cert_file and tls_key_file go together");
  }
  if (options_.tls_cert_pem.empty() != options_.tls_key_pem.empty() ||
      (!options_.tls_cert_pem.empty() && !options_.tls_cert_file.empty())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "http server " + bind_address_ + ": tls_cert_pem and tls_key_pem go together, without the files");
  }
  impl_ = std::make_unique<Impl>(*this, options_);
  if (!options_.tls_cert_file.empty() || !options_.tls_cert_pem.empty()) {
    if (auto loaded = impl_->LoadTls(); !loaded) {
      impl_.reset();
      return std::unexpected(loaded.error());
    }
    impl_->tls_checked = std::chrono::steady_clock::now();
  }
  error_code ec;
  auto addr = asio::ip::make_address(bind->host.empty() ? "0.0.0.0" : bind->host, ec);
  if (ec) {
    impl_.reset();
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + bind_address_ + "\": " + ec.message());
  }
  tcp::endpoint ep(addr, bind->port);
  impl_->acceptor.open(ep.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(ep, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    impl_.reset();
    return MakeError(ErrorCode::kTransport, "listen on " + bind_address_ + ": " + ec.message());
  }
  port_ = impl_->acceptor.local_endpoint(ec).port();
  Impl* impl = impl_.get();
  impl->Accept();
  try {
    impl->thread = std::thread([impl] {
      // A handler that throws unwinds out of run(); the other connections keep being served.
      for (;;) {
        try {
          impl->io.run();
          return;
        } catch (const std::exception& e) {
          log::Error(kLogger, "I/O thread caught an exception; continuing",
                     {{"address", impl->server.bind_address_}, {"error", e.what()}});
        }
      }
    });
  } catch (const std::system_error& e) {
    impl_.reset();
    port_ = 0;
    return MakeError(ErrorCode::kInternal,
                     "http server " + bind_address_ + ": cannot start its thread: " + e.what());
  }
  return port_.load();
}

void HttpServer::Stop() {
  if (!impl_) return;
  Impl* impl = impl_.get();
  if (impl->thread.joinable()) {
    asio::post(impl->io, [impl] {
      impl->stopping = true;
      error_code ignored;
      impl->acceptor.close(ignored);
      impl->accept_pause.cancel();
      impl->CloseAll();
      impl->io.stop();  // handlers still queued are destroyed with io, releasing their connections
    });
    impl->thread.join();
  }
  impl_.reset();
}

HttpServerStats HttpServer::stats() const {
  HttpServerStats s;
  if (!impl_) return s;
  s.open_connections = impl_->open.load();
  s.accepted = impl_->accepted.load();
  s.evicted = impl_->evicted.load();
  s.timed_out = impl_->timed_out.load();
  s.accept_errors = impl_->accept_errors.load();
  s.tls_reloads = impl_->tls_reloads.load();
  s.tls_reload_failures = impl_->tls_reload_failures.load();
  s.tls_handshake_errors = impl_->tls_handshake_errors.load();
  return s;
}

}  // namespace berth::shim
