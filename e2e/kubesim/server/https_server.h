// e2e/kubesim/server/https_server.h
//
// kubesim's HTTPS transport: TLS, HTTP/1.1 keep-alive, bearer-token authentication, kubesim's admin
// endpoints and fault injection, in front of the ApiHandler. One thread per connection running
// synchronous Boost.Beast, because a watch holds its connection (and thread) for minutes and
// blocking code is the simplest thing that stays correct there. Streams use chunked encoding,
// flushed per chunk, as kubectl -w and client-go read watch events line by line.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/server/faults.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/server/tls.h"

namespace berth::kubesim {

// HttpsServer: start once, stop once. All public methods are thread-safe.
class HttpsServer {
 public:
  struct Options {
    std::string bind_address = "127.0.0.1";
    uint16_t port = 0;                         // 0 = pick a free port; Start() returns it
    std::string token;                         // bearer token; empty disables authentication
    size_t max_body_bytes = 3 * 1024 * 1024;   // the apiserver's request size limit
    size_t max_connections = 1024;             // beyond this, new connections are closed
    // A client that has not completed the TLS handshake by then is disconnected, so silent
    // sockets cannot pin threads forever.
    std::chrono::milliseconds handshake_timeout{10000};
    // historyWindow on the admin endpoint belongs to the store; both may be empty.
    std::function<void(size_t)> on_history_window;
    std::function<size_t()> history_window;
    // Called after DropAllConnections()/Stop() shut the sockets down, so the API layer can wake
    // watch handlers blocked waiting for events; they then see WriteChunk return false.
    std::function<void()> on_connections_dropped;
  };

  // faults may be null: the server then uses its own injector with no faults configured (the
  // admin endpoint can still turn faults on). A non-null injector must outlive the server.
  HttpsServer(Options options, TlsMaterial tls, ApiHandler handler, FaultInjector* faults);
  ~HttpsServer();  // calls Stop()

  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // Start binds, listens and starts the acceptor thread. Returns the bound port.
  // Errors: kInvalidArgument (bad bind address or TLS material), kTransport (bind/listen failed),
  // kInternal (called twice).
  Result<uint16_t> Start();

  // DropAllConnections closes every live connection, streams included, and keeps listening
  // (the "apiserver restart" fault).
  void DropAllConnections();

  // Stop stops accepting, closes all connections and joins every thread. Idempotent. Returns as
  // soon as handlers return, which they must once WriteChunk fails (see on_connections_dropped).
  void Stop();

  // ConnectionCount is the number of connections currently open (for tests and metrics).
  size_t ConnectionCount() const;

  // Faults is the injector in use (the caller's, or the server's own).
  FaultInjector& Faults() { return *faults_; }

 private:
  struct Connection;
  struct Worker;
  struct Impl;  // Asio objects, kept out of this header

  void AcceptLoop();
  void ArmHandshakeTimer(std::shared_ptr<Connection> conn);
  void ServeConnection(Worker* worker);
  void ReapFinishedWorkers();  // requires mu_
  void ShutdownConnections();  // requires !mu_

  Options options_;
  TlsMaterial tls_;
  ApiHandler handler_;
  std::unique_ptr<FaultInjector> owned_faults_;
  FaultInjector* faults_;
  std::unique_ptr<Impl> impl_;

  mutable std::mutex mu_;
  bool started_ = false;
  bool stopping_ = false;
  std::list<std::unique_ptr<Worker>> workers_;
  std::thread accept_thread_;
};

}  // namespace berth::kubesim
