// unit-tests/e2e/kubesim/server/https_test_client.h
//
// A small synchronous HTTPS client for the transport tests: verifies the server certificate
// against the given CA PEM and host (IP or DNS name), sends requests over one kept-alive
// connection, and can read a chunked response incrementally.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace berth::kubesim::testing {

struct ClientResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class HttpsTestClient {
 public:
  using Headers = std::map<std::string, std::string>;

  HttpsTestClient(uint16_t port, std::string ca_pem, std::string host = "127.0.0.1")
      : port_(port), ca_pem_(std::move(ca_pem)), host_(std::move(host)) {}

  // Connect opens TCP + TLS, verifying the certificate chain and host. Returns an error text.
  std::expected<void, std::string> Connect() {
    namespace ssl = boost::asio::ssl;
    boost::system::error_code ec;
    ctx_.emplace(ssl::context::tls_client);
    ctx_->add_certificate_authority(boost::asio::buffer(ca_pem_), ec);
    if (ec) return std::unexpected("add CA: " + ec.message());
    ctx_->set_verify_mode(ssl::verify_peer, ec);
    stream_.emplace(io_, *ctx_);
    stream_->set_verify_callback(ssl::host_name_verification(host_), ec);
    if (host_ != "127.0.0.1" && host_ != "::1") {
      SSL_set_tlsext_host_name(stream_->native_handle(), host_.c_str());
    }
    boost::asio::ip::tcp::resolver resolver(io_);
    auto results = resolver.resolve(host_ == "::1" ? "::1" : "127.0.0.1", std::to_string(port_), ec);
    if (ec) return std::unexpected("resolve: " + ec.message());
    boost::asio::connect(stream_->next_layer(), results, ec);
    if (ec) return std::unexpected("connect: " + ec.message());
    stream_->handshake(ssl::stream_base::client, ec);
    if (ec) return std::unexpected("handshake: " + ec.message());
    ++connects_;
    return {};
  }

  // Request sends one request and reads the whole response (connecting first if needed).
  std::expected<ClientResponse, std::string> Request(const std::string& method,
                                                     const std::string& target,
                                                     const std::string& body = "",
                                                     const Headers& headers = {}) {
    if (!stream_) {
      if (auto c = Connect(); !c) return std::unexpected(c.error());
    }
    if (auto w = WriteRequest(method, target, body, headers); !w) return std::unexpected(w.error());
    return ReadResponse(method == "HEAD");
  }

  // ReadResponse reads one whole response; a HEAD response has headers only.
  std::expected<ClientResponse, std::string> ReadResponse(bool head = false) {
    namespace http = boost::beast::http;
    boost::system::error_code ec;
    http::response_parser<http::string_body> parser;
    parser.skip(head);
    parser.body_limit(64 * 1024 * 1024);
    http::read(*stream_, buffer_, parser, ec);
    if (ec) return std::unexpected("read: " + ec.message());
    auto& msg = parser.get();
    ClientResponse out;
    out.status = static_cast<int>(msg.result_int());
    for (const auto& f : msg) out.headers[Lower(std::string(f.name_string()))] = std::string(f.value());
    out.body = msg.body();
    return out;
  }

  // RawRequest writes `bytes` verbatim over TLS and reads one response.
  std::expected<ClientResponse, std::string> RawRequest(const std::string& bytes) {
    if (!stream_) {
      if (auto c = Connect(); !c) return std::unexpected(c.error());
    }
    boost::system::error_code ec;
    boost::asio::write(*stream_, boost::asio::buffer(bytes), ec);
    if (ec) return std::unexpected("write: " + ec.message());
    return ReadResponse();
  }

  // StartStream sends a request and reads only the response header; then ReadStreamUntil.
  std::expected<ClientResponse, std::string> StartStream(const std::string& target,
                                                         const Headers& headers = {}) {
    namespace http = boost::beast::http;
    if (!stream_) {
      if (auto c = Connect(); !c) return std::unexpected(c.error());
    }
    if (auto w = WriteRequest("GET", target, "", headers); !w) return std::unexpected(w.error());
    stream_parser_.emplace();
    stream_data_.clear();
    chunk_cb_ = [this](std::uint64_t, std::string_view body, boost::system::error_code&) {
      stream_data_.append(body);
      return body.size();
    };
    stream_parser_->on_chunk_body(chunk_cb_);
    boost::system::error_code ec;
    http::read_header(*stream_, buffer_, *stream_parser_, ec);
    if (ec) return std::unexpected("read header: " + ec.message());
    ClientResponse out;
    out.status = static_cast<int>(stream_parser_->get().result_int());
    for (const auto& f : stream_parser_->get()) {
      out.headers[Lower(std::string(f.name_string()))] = std::string(f.value());
    }
    return out;
  }

  // ReadStreamUntil reads until the received chunk data contains `needle`. Returns all data so
  // far, or an error text once the stream ends (cleanly or not) without it.
  std::expected<std::string, std::string> ReadStreamUntil(const std::string& needle) {
    namespace http = boost::beast::http;
    while (stream_data_.find(needle) == std::string::npos) {
      if (stream_parser_->is_done()) return std::unexpected("stream ended");
      boost::system::error_code ec;
      http::read_some(*stream_, buffer_, *stream_parser_, ec);
      if (ec) return std::unexpected("read: " + ec.message());
    }
    return stream_data_;
  }

  // ReadStreamToEnd reads until the stream finishes; returns whether it ended with the
  // terminating chunk (true) or with a connection error (false).
  bool ReadStreamToEnd() {
    namespace http = boost::beast::http;
    while (!stream_parser_->is_done()) {
      boost::system::error_code ec;
      http::read_some(*stream_, buffer_, *stream_parser_, ec);
      if (ec) return false;
    }
    return true;
  }

  const std::string& StreamData() const { return stream_data_; }
  int connects() const { return connects_; }
  // PeerClosed reports whether the server has closed the connection (reads EOF / error).
  bool PeerClosed() {
    char c;
    boost::system::error_code ec;
    stream_->read_some(boost::asio::buffer(&c, 1), ec);
    return static_cast<bool>(ec);
  }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  std::expected<void, std::string> WriteRequest(const std::string& method, const std::string& target,
                                                const std::string& body, const Headers& headers) {
    namespace http = boost::beast::http;
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(http::field::host, host_ + ":" + std::to_string(port_));
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      req.prepare_payload();
    }
    boost::system::error_code ec;
    http::write(*stream_, req, ec);
    if (ec) return std::unexpected("write: " + ec.message());
    return {};
  }

  uint16_t port_;
  std::string ca_pem_;
  std::string host_;
  boost::asio::io_context io_;
  std::optional<boost::asio::ssl::context> ctx_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::empty_body>> stream_parser_;
  std::function<std::size_t(std::uint64_t, std::string_view, boost::system::error_code&)> chunk_cb_;
  std::string stream_data_;
  int connects_ = 0;
};

}  // namespace berth::kubesim::testing
