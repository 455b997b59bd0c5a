// HttpServer over TLS (HttpServerOptions::tls_cert_file/tls_key_file, the kube-scheduler
// extender's --extender-cert-dir) against a real OpenSSL client that verifies the certificate:
// serving, plain-HTTP clients refused without harm, certificate reload on change, bad files;
// and an in-memory self-signed pair (tls_cert_pem, --metrics-secure's default).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <gtest/gtest.h>

#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/self_signed_cert.h"
#include "e2e/kubesim/server/tls.h"

namespace berth::shim {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;

// HttpsGet: GET `target` over TLS trusting only `ca_pem` (host name 127.0.0.1 checked against the
// certificate's SANs). Returns the status, or the error text.
struct Outcome {
  int status = 0;
  std::string body;
  std::string error;
};

Outcome HttpsGet(uint16_t port, const std::string& ca_pem, const std::string& target = "/hello") {
  Outcome out;
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  boost::system::error_code ec;
  ctx.add_certificate_authority(asio::buffer(ca_pem), ec);
  if (ec) return {0, "", "ca: " + ec.message()};
  ctx.set_verify_mode(asio::ssl::verify_peer);
  beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
  stream.set_verify_callback(asio::ssl::host_name_verification("127.0.0.1"));
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
  beast::get_lowest_layer(stream).connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (!ec) stream.handshake(asio::ssl::stream_base::client, ec);
  if (ec) return {0, "", "handshake: " + ec.message()};
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(false);
  http::write(stream, req, ec);
  if (ec) return {0, "", "write: " + ec.message()};
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res, ec);
  if (ec) return {0, "", "read: " + ec.message()};
  out.status = static_cast<int>(res.result_int());
  out.body = res.body();
  // The server sends close_notify before closing (Connection: close).
  stream.shutdown(ec);
  if (ec && ec != asio::ssl::error::stream_truncated && ec != asio::error::eof) out.error = "shutdown: " + ec.message();
  return out;
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  // Written beside and renamed into place, as a Secret volume swaps its files atomically.
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::filesystem::rename(tmp, path);
}

class HttpServerTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("berth-tls-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    auto a = kubesim::GenerateTlsMaterial();
    auto b = kubesim::GenerateTlsMaterial();
    ASSERT_TRUE(a.has_value() && b.has_value());
    a_ = *a;
    b_ = *b;
    Install(a_);
  }
  void TearDown() override {
    if (server_) server_->Stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  void Install(const kubesim::TlsMaterial& m) {
    WriteFile(dir_ / "tls.key", m.key_pem);
    WriteFile(dir_ / "tls.crt", m.cert_pem);
  }
  Result<uint16_t> Start() {
    HttpServerOptions options;
    options.tls_cert_file = (dir_ / "tls.crt").string();
    options.tls_key_file = (dir_ / "tls.key").string();
    server_.emplace("127.0.0.1:0", options);
    server_->Handle("/hello", [](const HttpServerRequest&) { return HttpServerReply{200, "text/plain", "hi\n", {}}; });
    return server_->Start();
  }
  // PollUntil retries `ok` (each try a new connection, which is what triggers the file check)
  // until it holds or 10 s pass.
  template <class F>
  bool PollUntil(F ok) {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      if (ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::filesystem::path dir_;
  kubesim::TlsMaterial a_, b_;
  std::optional<HttpServer> server_;
};

TEST_F(HttpServerTlsTest, ServesHttpsThatAVerifyingClientAccepts) {
  auto port = Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  Outcome ok = HttpsGet(*port, a_.ca_cert_pem);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "hi\n");
  // A client trusting another CA refuses the server.
  Outcome untrusted = HttpsGet(*port, b_.ca_cert_pem);
  EXPECT_EQ(untrusted.status, 0);
  EXPECT_NE(untrusted.error.find("handshake"), std::string::npos) << untrusted.error;
}

TEST_F(HttpServerTlsTest, APlainHttpClientGetsNoAnswerAndTheServerGoesOn) {
  auto port = Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  {
    asio::io_context io;
    beast::tcp_stream plain(io);
    plain.expires_after(std::chrono::seconds(5));
    plain.connect({asio::ip::make_address("127.0.0.1"), *port});
    boost::system::error_code ec;
    http::request<http::empty_body> req{http::verb::get, "/hello", 11};
    req.set(http::field::host, "x");
    http::write(plain, req, ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(plain, buffer, res, ec);
    EXPECT_TRUE(ec) << "a plain request must not be answered as HTTP: " << res.result_int();
  }
  EXPECT_TRUE(PollUntil([&] { return server_->stats().tls_handshake_errors >= 1; }));
  EXPECT_EQ(HttpsGet(*port, a_.ca_cert_pem).status, 200);
}

TEST_F(HttpServerTlsTest, ARenewedCertificateIsServedWithoutARestart) {
  auto port = Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  ASSERT_EQ(HttpsGet(*port, a_.ca_cert_pem).status, 200);
  Install(b_);
  EXPECT_TRUE(PollUntil([&] { return HttpsGet(*port, b_.ca_cert_pem).status == 200; }))
      << "the certificate signed by the second CA is never served";
  EXPECT_GE(server_->stats().tls_reloads, 1u);
  EXPECT_NE(HttpsGet(*port, a_.ca_cert_pem).status, 200) << "the old certificate is still served";
}

TEST_F(HttpServerTlsTest, ABrokenRenewalKeepsThePreviousCertificate) {
  auto port = Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  WriteFile(dir_ / "tls.crt", "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
  // Each try connects (a new connection is what checks the files).
  EXPECT_TRUE(PollUntil([&] {
    const bool served = HttpsGet(*port, a_.ca_cert_pem).status == 200;
    return served && server_->stats().tls_reload_failures >= 1;
  }));
  EXPECT_EQ(server_->stats().tls_reloads, 0u);
  // A cert of one pair with the key of another does not load either.
  WriteFile(dir_ / "tls.crt", b_.cert_pem);
  const uint64_t failures = server_->stats().tls_reload_failures;
  EXPECT_TRUE(PollUntil([&] {
    HttpsGet(*port, a_.ca_cert_pem);
    return server_->stats().tls_reload_failures > failures;
  }));
  EXPECT_EQ(HttpsGet(*port, a_.ca_cert_pem).status, 200);
  // The matching key completes the renewal.
  WriteFile(dir_ / "tls.key", b_.key_pem);
  EXPECT_TRUE(PollUntil([&] { return HttpsGet(*port, b_.ca_cert_pem).status == 200; }));
}

TEST_F(HttpServerTlsTest, StartFailsOnFilesThatDoNotLoad) {
  std::filesystem::remove(dir_ / "tls.key");
  auto port = Start();
  ASSERT_FALSE(port.has_value());
  EXPECT_NE(port.error().message.find("tls key " + (dir_ / "tls.key").string()), std::string::npos)
      << port.error().message;
  WriteFile(dir_ / "tls.key", b_.key_pem);  // not the certificate's key
  port = Start();
  ASSERT_FALSE(port.has_value());
  EXPECT_NE(port.error().message.find("tls key"), std::string::npos) << port.error().message;
  HttpServerOptions half;
  half.tls_cert_file = (dir_ / "tls.crt").string();
  HttpServer server("127.0.0.1:0", half);
  auto refused = server.Start();
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("tls_cert_file and tls_key_file go together"), std::string::npos);
}

}  // namespace
}  // namespace berth::shim

namespace berth::shim {
namespace {

// --metrics-secure without a cert dir: a self-signed pair held in memory.
TEST(HttpServerInMemoryTlsTest, ServesASelfSignedPairThatVerifiesAsItsOwnAnchor) {
  auto pair = GenerateSelfSignedCert();
  ASSERT_TRUE(pair.has_value()) << pair.error().message;
  HttpServerOptions options;
  options.tls_cert_pem = pair->cert_pem;
  options.tls_key_pem = pair->key_pem;
  HttpServer server("127.0.0.1:0", options);
  server.Handle("/hello", [](const HttpServerRequest&) { return HttpServerReply{200, "text/plain", "hi\n", {}}; });
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  Outcome ok = HttpsGet(*port, pair->cert_pem);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.status, 200);
  // Another generated pair is another certificate: a client trusting it refuses this server.
  auto other = GenerateSelfSignedCert();
  ASSERT_TRUE(other.has_value());
  EXPECT_NE(other->cert_pem, pair->cert_pem);
  EXPECT_NE(HttpsGet(*port, other->cert_pem).error.find("handshake"), std::string::npos);
  server.Stop();
}

TEST(HttpServerInMemoryTlsTest, RefusesHalfAPairOrAPairThatDoesNotLoad) {
  auto pair = GenerateSelfSignedCert();
  ASSERT_TRUE(pair.has_value());
  HttpServerOptions half;
  half.tls_cert_pem = pair->cert_pem;
  EXPECT_EQ(HttpServer("127.0.0.1:0", half).Start().error().code, ErrorCode::kInvalidArgument);
  HttpServerOptions garbage;
  garbage.tls_cert_pem = "not a certificate";
  garbage.tls_key_pem = pair->key_pem;
  auto started = HttpServer("127.0.0.1:0", garbage).Start();
  ASSERT_FALSE(started.has_value());
  EXPECT_NE(started.error().message.find("tls certificate (in memory)"), std::string::npos) << started.error().message;
}

}  // namespace
}  // namespace berth::shim
