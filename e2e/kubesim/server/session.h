// e2e/kubesim/server/session.h
//
// Internal to the server folder: the request loop of one TLS connection (handshake, read, auth,
// admin, faults, handler, keep-alive). Split from https_server.cc, which owns sockets and threads.
#pragma once

#include <atomic>
#include <functional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>

#include "e2e/kubesim/server/faults.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/server/https_server.h"

namespace berth::kubesim {

using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

// SessionEnv: what a connection needs from its server.
struct SessionEnv {
  const HttpsServer::Options* options = nullptr;
  FaultInjector* faults = nullptr;
  const ApiHandler* handler = nullptr;
  std::function<void()> drop_all_connections;  // for POST /kubesim/admin/restart
  std::atomic<bool>* handshake_done = nullptr;  // set once TLS is up (stops the handshake timer)
};

// ServeSession performs the TLS handshake and serves requests until the peer closes, a request
// asks for Connection: close, an error occurs, or `dropped` is set (the server then also shuts
// the socket down to wake blocking calls). Never throws. Does not close the socket.
void ServeSession(TlsStream& stream, const std::atomic<bool>& dropped, const SessionEnv& env);

// IsPublicPath: paths the default RBAC lets anonymous users GET (system:public-info-viewer).
bool IsPublicPath(std::string_view path);

// BearerTokenMatches checks an Authorization header value against the expected token.
bool BearerTokenMatches(std::string_view authorization, std::string_view token);

}  // namespace berth::kubesim
