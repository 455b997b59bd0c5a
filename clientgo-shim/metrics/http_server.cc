// clientgo-shim/metrics/http_server.cc — see http_server.h.
#include "clientgo-shim/metrics/http_server.h"

#include <sys/socket.h>

#include <charconv>
#include <list>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace berth::shim {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (r.ec == std::errc() && r.ptr == s.data() + i + 3) {
        out += static_cast<char>(v);
        i += 2;
        continue;
      }
    }
    out += s[i] == '+' ? ' ' : s[i];
  }
  return out;
}

HttpServerRequest ParseTarget(std::string method, std::string_view target) {
  HttpServerRequest r;
  r.method = std::move(method);
  const size_t q = target.find('?');
  r.path = PercentDecode(target.substr(0, q));
  if (q == std::string_view::npos) return r;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    const size_t eq = part.find('=');
    if (!part.empty()) {
      r.query[PercentDecode(part.substr(0, eq))] =
          eq == std::string_view::npos ? "" : PercentDecode(part.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return r;
}

}  // namespace

Result<BindAddress> ParseBindAddress(std::string_view text) {
  BindAddress b;
  if (text.empty() || text == "0") return b;
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + std::string(text) + "\": missing port");
  }
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned value = 0;
  auto r = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || r.ec != std::errc() || r.ptr != port.data() + port.size() || value > 65535) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + std::string(text) + "\": invalid port \"" +
                         std::string(port) + "\"");
  }
  b.enabled = true;
  b.host = std::string(host);
  b.port = static_cast<uint16_t>(value);
  return b;
}

struct HttpServer::Impl {
  asio::io_context io;
  std::optional<tcp::acceptor> acceptor;
  std::thread accept_thread;
  std::mutex mu;
  bool stopping = false;
  struct Conn {
    std::shared_ptr<tcp::socket> socket;
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::list<Conn> conns;
};

HttpServer::HttpServer(std::string bind_address) : bind_address_(std::move(bind_address)) {}

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
  impl_ = std::make_unique<Impl>();
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(bind->host.empty() ? "0.0.0.0" : bind->host, ec);
  if (ec) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + bind_address_ + "\": " + ec.message());
  }
  tcp::endpoint ep(addr, bind->port);
  impl_->acceptor.emplace(impl_->io);
  impl_->acceptor->open(ep.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(ep, ec);
  if (!ec) impl_->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    impl_.reset();
    return MakeError(ErrorCode::kTransport,
                     "listen on " + bind_address_ + ": " + ec.message());
  }
  port_ = impl_->acceptor->local_endpoint(ec).port();
  Impl* impl = impl_.get();
  impl_->accept_thread = std::thread([this, impl] {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(impl->io);
      boost::system::error_code aec;
      impl->acceptor->accept(*socket, aec);
      std::lock_guard<std::mutex> l(impl->mu);
      if (impl->stopping) return;
      if (aec) continue;
      // Reads time out so an idle keep-alive client cannot pin a thread forever.
      timeval tv{30, 0};
      ::setsockopt(socket->native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      // Reap finished connections.
      for (auto it = impl->conns.begin(); it != impl->conns.end();) {
        if (it->done->load()) {
          if (it->thread.joinable()) it->thread.join();
          it = impl->conns.erase(it);
        } else {
          ++it;
        }
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      impl->conns.push_back({socket, done, {}});
      impl->conns.back().thread = std::thread([this, socket, done] {
        beast::flat_buffer buffer;
        for (;;) {
          http::request<http::string_body> req;
          boost::system::error_code rec;
          http::read(*socket, buffer, req, rec);
          if (rec) break;
          HttpServerReply reply = Dispatch(ParseTarget(std::string(req.method_string()),
                                                       std::string_view(req.target())));
          http::response<http::string_body> res{static_cast<http::status>(reply.status),
                                                req.version()};
          res.set(http::field::content_type, reply.content_type);
          for (const auto& [k, v] : reply.headers) res.set(k, v);
          res.keep_alive(req.keep_alive());
          if (req.method() != http::verb::head) res.body() = std::move(reply.body);
          res.prepare_payload();
          http::write(*socket, res, rec);
          if (rec || !req.keep_alive()) break;
        }
        // Only shut down here; the socket is closed when the accept thread or Stop() reaps it,
        // so Stop() never races a close.
        ::shutdown(socket->native_handle(), SHUT_RDWR);
        done->store(true);
      });
    }
  });
  return port_.load();
}

void HttpServer::Stop() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->stopping = true;
    // shutdown(2) wakes the blocked accept() and reads; it is safe from another thread.
    ::shutdown(impl_->acceptor->native_handle(), SHUT_RDWR);
    for (auto& c : impl_->conns) ::shutdown(c.socket->native_handle(), SHUT_RDWR);
  }
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  for (auto& c : impl_->conns) {
    if (c.thread.joinable()) c.thread.join();
  }
  boost::system::error_code ignored;
  impl_->acceptor->close(ignored);
  impl_.reset();
}

}  // namespace berth::shim
