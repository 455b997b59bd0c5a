#include "e2e/kubesim/server/session.h"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <random>
#include <string>

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "e2e/kubesim/server/admin.h"
#include "e2e/kubesim/server/request_target.h"
#include "e2e/kubesim/server/status_response.h"

namespace berth::kubesim {
namespace {

namespace http = boost::beast::http;
namespace net = boost::asio;
using boost::system::error_code;

constexpr uint32_t kHeaderLimit = 64 * 1024;
// After an early error reply (413) the unread request body is drained so the client, which is
// still writing it, gets to read the reply instead of a connection reset. Bounded both ways.
constexpr size_t kDrainLimitBytes = 64 * 1024 * 1024;
constexpr int kDrainPollMs = 2000;

bool HasPathPrefix(std::string_view path, std::string_view prefix) {
  return path == prefix || (path.size() > prefix.size() && path.starts_with(prefix) &&
                            path[prefix.size()] == '/');
}

std::string NewAuditId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;                   // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string HttpDate() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

template <class Message>
void SetCommonHeaders(Message& m, std::string_view content_type, const std::string& audit_id) {
  m.set(http::field::content_type, content_type);
  m.set(http::field::cache_control, "no-cache, private");
  m.set("Audit-Id", audit_id);
  m.set(http::field::date, HttpDate());
}

unsigned ClampStatus(int status) {
  return status >= 100 && status <= 999 ? static_cast<unsigned>(status) : 500u;
}

// Sink answers one request on the connection; it remembers whether the connection can be reused.
class Sink : public ResponseSink {
 public:
  enum class State { kNone, kSent, kStreaming, kEnded };

  // head: the request was HEAD, so headers (with the GET's Content-Length) go out without a body.
  Sink(TlsStream& stream, const std::atomic<bool>& dropped, bool keep_alive, bool head = false)
      : stream_(stream),
        dropped_(dropped),
        keep_alive_(keep_alive),
        head_(head),
        audit_id_(NewAuditId()) {}

  void Send(HttpResponse response) override {
    if (state_ != State::kNone) return;  // a second answer would corrupt the stream
    state_ = State::kSent;
    if (dropped_.load()) {
      broken_ = true;
      return;
    }
    http::response<http::string_body> res;
    res.version(11);
    res.result(ClampStatus(response.status));
    SetCommonHeaders(res, response.content_type, audit_id_);
    for (auto& [name, value] : response.headers) res.set(name, value);
    res.body() = std::move(response.body);
    res.keep_alive(keep_alive_);
    res.prepare_payload();
    error_code ec;
    if (head_) {
      http::response_serializer<http::string_body> sr(res);
      http::write_header(stream_, sr, ec);
    } else {
      http::write(stream_, res, ec);
    }
    if (ec) broken_ = true;
  }

  bool BeginStream(int status, std::string_view content_type) override {
    if (state_ != State::kNone) return false;
    state_ = State::kStreaming;
    if (dropped_.load() || head_) {
      // A chunked HEAD answer has no framing to end it; refuse and close instead.
      keep_alive_ = false;
      broken_ = true;
      return false;
    }
    http::response<http::empty_body> res;
    res.version(11);
    res.result(ClampStatus(status));
    SetCommonHeaders(res, content_type, audit_id_);
    res.keep_alive(keep_alive_);
    res.chunked(true);
    http::response_serializer<http::empty_body> sr(res);
    error_code ec;
    http::write_header(stream_, sr, ec);
    if (ec) broken_ = true;
    return !broken_;
  }

  bool WriteChunk(std::string_view data) override {
    if (state_ != State::kStreaming || broken_ || dropped_.load()) return false;
    if (data.empty()) return true;  // an empty chunk would end the stream
    char size_line[32];
    int n = std::snprintf(size_line, sizeof(size_line), "%zx\r\n", data.size());
    // One buffer → one TLS record per chunk (when small), written and flushed now.
    std::string frame;
    frame.reserve(static_cast<size_t>(n) + data.size() + 2);
    frame.append(size_line, static_cast<size_t>(n));
    frame.append(data);
    frame.append("\r\n");
    error_code ec;
    net::write(stream_, net::buffer(frame), ec);
    if (ec) broken_ = true;
    return !broken_;
  }

  void EndStream() override {
    if (state_ != State::kStreaming) return;
    state_ = State::kEnded;
    if (broken_ || dropped_.load()) {
      broken_ = true;
      return;
    }
    error_code ec;
    net::write(stream_, net::buffer(std::string_view("0\r\n\r\n")), ec);
    if (ec) broken_ = true;
  }

  State state() const { return state_; }
  // Reusable: the exchange completed cleanly and both sides want keep-alive.
  bool Reusable() const {
    return keep_alive_ && !broken_ && (state_ == State::kSent || state_ == State::kEnded);
  }

 private:
  TlsStream& stream_;
  const std::atomic<bool>& dropped_;
  bool keep_alive_;
  bool head_;
  std::string audit_id_;
  State state_ = State::kNone;
  bool broken_ = false;
};

// DrainThenClose half-closes, then discards what the peer still sends (bounded), so an early
// error response is read rather than lost to a reset.
void DrainThenClose(TlsStream& stream) {
  int fd = stream.next_layer().native_handle();
  ::shutdown(fd, SHUT_WR);
  std::array<char, 16 * 1024> buf;
  size_t total = 0;
  while (total < kDrainLimitBytes) {
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, kDrainPollMs);
    if (r <= 0) break;
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
}

HttpRequest BuildRequest(http::request<http::string_body>& msg, DecodedTarget decoded) {
  HttpRequest req;
  req.method = std::string(msg.method_string());
  req.target = std::string(msg.target());
  req.path = std::move(decoded.path);
  req.query = std::move(decoded.query);
  for (const auto& field : msg) {
    std::string name = ToLower(field.name_string());
    auto [it, inserted] = req.headers.emplace(name, std::string(field.value()));
    if (!inserted) {
      it->second += ", ";
      it->second += std::string(field.value());
    }
  }
  req.body = std::move(msg.body());
  return req;
}

// Dispatch runs auth → admin → faults → handler for one decoded request. Returns true when the
// caller must drop every connection after this exchange (admin restart).
bool Dispatch(const HttpRequest& req, Sink& sink, const SessionEnv& env) {
  const auto& opts = *env.options;
  if (!opts.token.empty()) {
    std::string_view auth = req.Header("authorization");
    bool anonymous_ok = auth.empty() && (req.method == "GET" || req.method == "HEAD") &&
                        IsPublicPath(req.path);
    if (!anonymous_ok && !BearerTokenMatches(auth, opts.token)) {
      sink.Send(StatusResponse(401, "Unauthorized", "Unauthorized"));
      return false;
    }
  }
  if (req.path.starts_with("/kubesim/admin/")) {
    AdminHooks hooks{env.faults, opts.on_history_window, opts.history_window};
    if (auto outcome = HandleAdminRequest(req, hooks)) {
      sink.Send(std::move(outcome->response));
      return outcome->restart;
    }
  }
  if (!FaultInjector::IsExempt(req.path)) {
    std::optional<HttpResponse> fault = env.faults->MaybeFail(req);
    env.faults->ApplyLatency();
    if (fault) {
      sink.Send(std::move(*fault));
      return false;
    }
  }
  try {
    (*env.handler)(req, sink);
  } catch (const std::exception& e) {
    if (sink.state() == Sink::State::kNone) {
      sink.Send(StatusResponse(500, "InternalError",
                               std::string("Internal error occurred: ") + e.what()));
    }
  } catch (...) {
    if (sink.state() == Sink::State::kNone) {
      sink.Send(StatusResponse(500, "InternalError", "Internal error occurred: unknown"));
    }
  }
  if (sink.state() == Sink::State::kNone) {
    sink.Send(StatusResponse(500, "InternalError",
                             "Internal error occurred: the handler sent no response"));
  } else if (sink.state() == Sink::State::kStreaming) {
    sink.EndStream();
  }
  return false;
}

void SendEarlyError(TlsStream& stream, const std::atomic<bool>& dropped, HttpResponse response) {
  Sink sink(stream, dropped, /*keep_alive=*/false);
  sink.Send(std::move(response));
}

void ServeRequests(TlsStream& stream, const std::atomic<bool>& dropped, const SessionEnv& env) {
  const auto& opts = *env.options;
  boost::beast::flat_buffer buffer;
  while (!dropped.load()) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(opts.max_body_bytes);
    error_code ec;
    http::read_header(stream, buffer, parser, ec);
    if (!ec && parser.get()[http::field::expect] == "100-continue" && !parser.is_done()) {
      // curl waits for this before sending a body; Go clients never ask.
      net::write(stream, net::buffer(std::string_view("HTTP/1.1 100 Continue\r\n\r\n")), ec);
    }
    if (!ec && !parser.is_done()) http::read(stream, buffer, parser, ec);
    if (ec) {
      if (dropped.load()) return;
      if (ec == http::error::body_limit) {
        SendEarlyError(stream, dropped,
                       StatusResponse(413, "RequestEntityTooLarge",
                                      "Request entity too large: limit is " +
                                          std::to_string(opts.max_body_bytes)));
        DrainThenClose(stream);
        return;
      }
      // A protocol error with bytes of a request in hand deserves a 400; EOF, resets and TLS
      // errors just end the connection.
      if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
          ec != http::error::end_of_stream && ec != http::error::partial_message) {
        SendEarlyError(stream, dropped,
                       StatusResponse(400, "BadRequest", "malformed HTTP request: " + ec.message()));
      }
      return;
    }
    http::request<http::string_body> msg = parser.release();
    auto decoded = DecodeTarget(msg.target());
    if (!decoded) {
      SendEarlyError(stream, dropped, StatusResponse(400, "BadRequest", decoded.error().message));
      return;
    }
    HttpRequest req = BuildRequest(msg, std::move(*decoded));
    Sink sink(stream, dropped, msg.keep_alive(), msg.method() == http::verb::head);
    bool restart = Dispatch(req, sink, env);
    if (restart) {
      env.drop_all_connections();
      return;
    }
    if (!sink.Reusable()) return;
  }
}

}  // namespace

bool IsPublicPath(std::string_view path) {
  return HasPathPrefix(path, "/healthz") || HasPathPrefix(path, "/livez") ||
         HasPathPrefix(path, "/readyz") || path == "/version" || path == "/version/";
}

bool BearerTokenMatches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "bearer";
  if (token.empty() || authorization.size() <= kScheme.size()) return false;
  if (ToLower(authorization.substr(0, kScheme.size())) != kScheme) return false;
  std::string_view rest = authorization.substr(kScheme.size());
  if (rest.front() != ' ') return false;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
  // Compare without an early exit so timing does not reveal the matching prefix length.
  unsigned char diff = rest.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i) {
    unsigned char a = i < rest.size() ? static_cast<unsigned char>(rest[i]) : 0;
    diff |= a ^ static_cast<unsigned char>(token[i]);
  }
  return diff == 0;
}

void ServeSession(TlsStream& stream, const std::atomic<bool>& dropped, const SessionEnv& env) {
  try {
    error_code ec;
    stream.handshake(net::ssl::stream_base::server, ec);
    if (ec) return;
    if (env.handshake_done) env.handshake_done->store(true);
    ServeRequests(stream, dropped, env);
  } catch (const std::exception&) {
    // Nothing may escape a connection thread; the connection just ends.
  } catch (...) {
  }
}

}  // namespace berth::kubesim
