// clientgo-shim/transport/connection.cc
#include "clientgo-shim/transport/connection.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <cerrno>

#include <boost/asio/ip/tcp.hpp>

namespace berth::shim {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;

namespace {

std::unexpected<Error> Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

// CountPemCertificates: add_certificate_authority accepts an empty buffer silently, so check that
// the PEM holds at least one certificate ourselves.
int CountPemCertificates(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return 0;
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_free(cert);
    ++n;
  }
  ERR_clear_error();
  BIO_free(bio);
  return n;
}

std::string Describe(const boost::system::error_code& ec) {
  std::string text = ec.message();
  if (ec.category() == asio::error::get_ssl_category()) {
    // OpenSSL's reason string is more useful than the generic category text.
    if (const char* reason = ERR_reason_error_string(static_cast<unsigned long>(ec.value()))) {
      text = reason;
    }
  }
  return text;
}

}  // namespace

Result<std::shared_ptr<ssl::context>> MakeTlsContext(const TlsSettings& settings) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  if (settings.insecure_skip_tls_verify) {
    ctx->set_verify_mode(ssl::verify_none, ec);
  } else {
    ctx->set_verify_mode(ssl::verify_peer, ec);
    if (!settings.ca_pem.empty()) {
      if (CountPemCertificates(settings.ca_pem) == 0) {
        return Invalid("certificate-authority data: no PEM certificate found");
      }
      ctx->add_certificate_authority(asio::buffer(settings.ca_pem), ec);
      if (ec) return Invalid("certificate-authority data: " + Describe(ec));
    } else if (!settings.ca_file.empty()) {
      ctx->load_verify_file(settings.ca_file, ec);
      if (ec) return Invalid("certificate-authority " + settings.ca_file + ": " + Describe(ec));
    } else {
      ctx->set_default_verify_paths(ec);
      if (ec) return Invalid("system trust store: " + Describe(ec));
    }
  }
  if (settings.client_cert_pem.empty() != settings.client_key_pem.empty()) {
    return Invalid(settings.client_cert_pem.empty()
                       ? "client key given without a client certificate"
                       : "client certificate given without a client key");
  }
  if (!settings.client_cert_pem.empty()) {
    ctx->use_certificate_chain(asio::buffer(settings.client_cert_pem), ec);
    if (ec) return Invalid("client certificate: " + Describe(ec));
    ctx->use_private_key(asio::buffer(settings.client_key_pem), ssl::context::pem, ec);
    if (ec) return Invalid("client key: " + Describe(ec));
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
      ERR_clear_error();
      return Invalid("client key does not match the client certificate");
    }
  }
  return ctx;
}

Connection::Connection(std::shared_ptr<ssl::context> tls)
    : tls_(std::move(tls)), stream_(ioc_, *tls_) {}

Connection::~Connection() { Close(); }

bool Connection::IsOpen() const { return beast::get_lowest_layer(stream_).socket().is_open(); }

void Connection::Abort() {
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream_).socket().cancel(ignored);
  beast::get_lowest_layer(stream_).socket().close(ignored);
}

void Connection::Close() { Abort(); }

bool Connection::WaitReadable(Clock::time_point until, boost::system::error_code& ec) {
  pollfd pfd{};
  pfd.fd = beast::get_lowest_layer(stream_).socket().native_handle();
  pfd.events = POLLIN;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
  const int r = ::poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
  if (r < 0 && errno != EINTR) ec = boost::system::error_code(errno, boost::system::system_category());
  // Readable, or an error or hang-up the next read reports.
  return r > 0;
}

Status Connection::Open(const ServerUrl& server, const std::string& tls_name, bool verify,
                        Clock::time_point deadline, const std::atomic<bool>* cancel) {
  const std::string where = server.ToString();
  auto fail = [&](std::string_view step, const Outcome& o) -> Status {
    if (o.stop == Stop::kDeadline) {
      return MakeError(ErrorCode::kTimeout, std::string(step) + " " + where + ": timed out");
    }
    if (o.stop == Stop::kCancelled) {
      return MakeError(ErrorCode::kTransport, std::string(step) + " " + where + ": cancelled");
    }
    return MakeError(ErrorCode::kTransport, std::string(step) + " " + where + ": " + Describe(o.ec));
  };

  // Resolve (async so that the deadline applies to slow DNS too).
  asio::ip::tcp::resolver resolver(ioc_);
  asio::ip::tcp::resolver::results_type endpoints;
  Outcome o = RunUntil(
      [&](auto handler) {
        resolver.async_resolve(server.host, std::to_string(server.port),
                               [&endpoints, handler](boost::system::error_code ec,
                                                     asio::ip::tcp::resolver::results_type r) {
                                 endpoints = std::move(r);
                                 handler(ec, 0);
                               });
      },
      deadline, cancel);
  if (o.stop != Stop::kNone) resolver.cancel();
  if (o.ec || o.stop != Stop::kNone) return fail("resolve", o);

  o = RunUntil(
      [&](auto handler) {
        beast::get_lowest_layer(stream_).async_connect(
            endpoints, [handler](boost::system::error_code ec, const auto&) { handler(ec, 0); });
      },
      deadline, cancel);
  if (o.ec || o.stop != Stop::kNone) return fail("connect", o);
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream_).socket().set_option(asio::ip::tcp::no_delay(true), ignored);
  beast::get_lowest_layer(stream_).socket().set_option(asio::socket_base::keep_alive(true),
                                                       ignored);
  // Bodies are read synchronously (ReadSomeUntil): a read must report would_block, never block.
  Outcome non_blocking;
  beast::get_lowest_layer(stream_).socket().non_blocking(true, non_blocking.ec);
  if (non_blocking.ec) return fail("make the socket non-blocking for", non_blocking);

  SSL* ssl_handle = stream_.native_handle();
  if (!server.host_is_ip || tls_name != server.host) {
    // SNI carries DNS names only (RFC 6066).
    std::string sni = tls_name;
    unsigned char buf[16];
    if (inet_pton(AF_INET, sni.c_str(), buf) != 1 && inet_pton(AF_INET6, sni.c_str(), buf) != 1) {
      SSL_set_tlsext_host_name(ssl_handle, sni.c_str());
    }
  }
  if (verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_handle);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    // An IP is checked against IP SANs, a name against DNS SANs (as Go's crypto/tls does).
    if (X509_VERIFY_PARAM_set1_ip_asc(param, tls_name.c_str()) != 1) {
      ERR_clear_error();
      X509_VERIFY_PARAM_set1_host(param, tls_name.c_str(), tls_name.size());
    }
  }
  o = RunUntil(
      [&](auto handler) {
        stream_.async_handshake(ssl::stream_base::client,
                                [handler](boost::system::error_code ec) { handler(ec, 0); });
      },
      deadline, cancel);
  if (o.ec || o.stop != Stop::kNone) {
    Status st = fail("TLS handshake with", o);
    const long verify_result = SSL_get_verify_result(ssl_handle);
    if (verify && verify_result != X509_V_OK) {
      tls_failure_ = X509_verify_cert_error_string(verify_result);
      st.error().message += " (" + tls_failure_ + ")";
    } else if (o.stop == Stop::kNone && o.ec.category() == asio::error::get_ssl_category()) {
      // A TLS protocol error (e.g. "wrong version number" from a plain-HTTP port); a reset or
      // EOF mid-handshake is an ordinary transport error.
      tls_failure_ = Describe(o.ec);
    }
    ERR_clear_error();
    Close();
    return st;
  }
  return {};
}

}  // namespace berth::shim
