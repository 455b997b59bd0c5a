#include "e2e/kubesim/server/https_server.h"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <optional>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "e2e/kubesim/server/session.h"

namespace berth::kubesim {

namespace net = boost::asio;
using boost::system::error_code;
using net::ip::tcp;

// Connection: what DropAllConnections needs to reach a connection from another thread.
struct HttpsServer::Connection {
  int fd = -1;
  bool closed = false;  // guarded by mu_: once true, fd may be reused by the OS
  std::atomic<bool> dropped{false};
  std::atomic<bool> handshake_done{false};
};

struct HttpsServer::Worker {
  std::thread thread;
  std::shared_ptr<Connection> conn = std::make_shared<Connection>();
  std::optional<tcp::socket> socket;  // moved into the thread's session
  std::atomic<bool> done{false};
};

struct HttpsServer::Impl {
  net::io_context io;
  net::ssl::context ssl{net::ssl::context::tls_server};
  std::optional<tcp::acceptor> acceptor;
  net::steady_timer retry_timer{io};
};

HttpsServer::HttpsServer(Options options, TlsMaterial tls, ApiHandler handler,
                         FaultInjector* faults)
    : options_(std::move(options)),
      tls_(std::move(tls)),
      handler_(std::move(handler)),
      owned_faults_(faults ? nullptr : std::make_unique<FaultInjector>()),
      faults_(faults ? faults : owned_faults_.get()) {}

HttpsServer::~HttpsServer() { Stop(); }

Result<uint16_t> HttpsServer::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return MakeError(ErrorCode::kInternal, "HttpsServer::Start called twice");
    started_ = true;
  }
  try {
    impl_ = std::make_unique<Impl>();
    error_code ec;
    impl_->ssl.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                               net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                               net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use,
                           ec);
    if (!ec) impl_->ssl.use_certificate_chain(net::buffer(tls_.cert_pem), ec);
    if (!ec) impl_->ssl.use_private_key(net::buffer(tls_.key_pem), net::ssl::context::pem, ec);
    if (ec) return MakeError(ErrorCode::kInvalidArgument, "TLS material: " + ec.message());

    auto address = net::ip::make_address(options_.bind_address, ec);
    if (ec) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "bind address " + options_.bind_address + ": " + ec.message());
    }
    tcp::endpoint endpoint(address, options_.port);
    auto& acceptor = impl_->acceptor.emplace(impl_->io);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return MakeError(ErrorCode::kTransport, "listen on " + options_.bind_address + ":" +
                                                  std::to_string(options_.port) + ": " +
                                                  ec.message());
    }
    uint16_t port = acceptor.local_endpoint(ec).port();
    if (ec) return MakeError(ErrorCode::kTransport, "local endpoint: " + ec.message());
    AcceptLoop();
    accept_thread_ = std::thread([this] {
      try {
        impl_->io.run();
      } catch (...) {
        // An exception here would come from a handler bug; the acceptor just stops.
      }
    });
    return port;
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("start HTTPS server: ") + e.what());
  }
}

void HttpsServer::AcceptLoop() {
  impl_->acceptor->async_accept([this](error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors and similar: back off briefly instead of spinning.
      impl_->retry_timer.expires_after(std::chrono::milliseconds(50));
      impl_->retry_timer.async_wait([this](error_code tec) {
        if (!tec) AcceptLoop();
      });
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ReapFinishedWorkers();
      if (stopping_ || workers_.size() >= options_.max_connections) {
        error_code ignored;
        socket.close(ignored);
      } else {
        // Go's net package turns Nagle off on every TCP connection, so kube-apiserver answers
        // without it; with it, the last partial segment of a response could wait for the peer's
        // delayed ACK (~40 ms on loopback), which stalled 3 in 5 LIST pages by that much.
        error_code nodelay_ignored;
        socket.set_option(tcp::no_delay(true), nodelay_ignored);
        auto worker = std::make_unique<Worker>();
        Worker* w = worker.get();
        w->conn->fd = socket.native_handle();
        ArmHandshakeTimer(w->conn);
        w->socket.emplace(std::move(socket));
        workers_.push_back(std::move(worker));
        try {
          w->thread = std::thread([this, w] { ServeConnection(w); });
        } catch (const std::exception&) {
          error_code ignored;
          w->socket->close(ignored);
          workers_.pop_back();
        }
      }
    }
    AcceptLoop();
  });
}

void HttpsServer::ArmHandshakeTimer(std::shared_ptr<Connection> conn) {
  auto timer = std::make_shared<net::steady_timer>(impl_->io, options_.handshake_timeout);
  timer->async_wait([this, timer, conn](error_code ec) {
    if (ec || conn->handshake_done.load()) return;
    std::lock_guard<std::mutex> lock(mu_);
    // Not dropped: this connection never became a session, so nothing else needs to know.
    if (!conn->closed && !conn->handshake_done.load()) ::shutdown(conn->fd, SHUT_RDWR);
  });
}

void HttpsServer::ServeConnection(Worker* w) {
  {
    TlsStream stream(std::move(*w->socket), impl_->ssl);
    SessionEnv env{&options_, faults_, &handler_, [this] { DropAllConnections(); },
                   &w->conn->handshake_done};
    ServeSession(stream, w->conn->dropped, env);
    {
      // Mark closed before the fd is released so a concurrent drop never shuts down a reused fd.
      std::lock_guard<std::mutex> lock(mu_);
      w->conn->closed = true;
    }
    error_code ignored;
    stream.next_layer().shutdown(tcp::socket::shutdown_both, ignored);
    stream.next_layer().close(ignored);
  }
  w->done.store(true);
}

void HttpsServer::ReapFinishedWorkers() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if ((*it)->done.load()) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void HttpsServer::ShutdownConnections() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& w : workers_) {
      if (w->conn->closed || w->conn->fd < 0) continue;
      w->conn->dropped.store(true);
      // shutdown(2), not close: it wakes the owning thread's blocking read/write while the fd
      // stays valid until that thread closes it.
      ::shutdown(w->conn->fd, SHUT_RDWR);
    }
  }
  if (options_.on_connections_dropped) options_.on_connections_dropped();
}

void HttpsServer::DropAllConnections() { ShutdownConnections(); }

void HttpsServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return;
    stopping_ = true;
  }
  if (impl_ && impl_->acceptor) {
    net::post(impl_->io, [this] {
      error_code ignored;
      impl_->acceptor->close(ignored);
      impl_->retry_timer.cancel();
      impl_->io.stop();  // pending handshake timers must not keep the acceptor thread alive
    });
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  ShutdownConnections();
  std::list<std::unique_ptr<Worker>> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (auto& w : workers) {
    if (w->thread.joinable()) w->thread.join();
  }
}

size_t HttpsServer::ConnectionCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& w : workers_) n += w->conn->closed ? 0 : 1;
  return n;
}

}  // namespace berth::kubesim
