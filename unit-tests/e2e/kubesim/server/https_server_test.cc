#include "e2e/kubesim/server/https_server.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/https_test_client.h"
#include "e2e/kubesim/server/run_command.h"
#include "e2e/kubesim/server/kubeconfig.h"
#include "e2e/kubesim/server/tls.h"

namespace berth::kubesim {
namespace {

using testing::HttpsTestClient;
using testing::RunCommand;
using Headers = HttpsTestClient::Headers;

constexpr char kToken[] = "secret-token";
// Upper bound for waits that normally complete in microseconds; only a broken server hits it.
constexpr auto kSafety = std::chrono::seconds(30);

const TlsMaterial& Tls() {
  static const TlsMaterial tls = [] {
    auto t = GenerateTlsMaterial();
    return t ? *t : TlsMaterial{};
  }();
  return tls;
}

Headers Auth() { return {{"Authorization", std::string("Bearer ") + kToken}}; }

HttpResponse Json(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

// Flag: a one-shot event that can be waited for (with a safety bound) from another thread.
class Flag {
 public:
  void Set() {
    std::lock_guard<std::mutex> lock(mu_);
    set_ = true;
    cv_.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kSafety, [&] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

class HttpsServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(Tls().ca_cert_pem.empty()); }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  HttpsServer::Options DefaultOptions() {
    HttpsServer::Options o;
    o.token = kToken;
    o.on_connections_dropped = [this] { dropped_.Set(); };
    return o;
  }

  void StartServer(HttpsServer::Options options, FaultInjector* faults = nullptr) {
    server_ = std::make_unique<HttpsServer>(
        std::move(options), Tls(),
        [this](const HttpRequest& r, ResponseSink& s) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            last_ = r;
            ++calls_;
          }
          handler_(r, s);
        },
        faults);
    auto port = server_->Start();
    ASSERT_TRUE(port.has_value()) << port.error().message;
    port_ = *port;
  }
  void StartServer() { StartServer(DefaultOptions()); }

  HttpRequest LastRequest() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  int Calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::unique_ptr<HttpsTestClient> NewClient(std::string host = "127.0.0.1") {
    return std::make_unique<HttpsTestClient>(port_, Tls().ca_cert_pem, std::move(host));
  }

  // A streaming handler: "start\n", then block until the server drops connections, then try one
  // more chunk and report whether it was accepted.
  void UseStreamUntilDropped(std::promise<bool>* late_write_ok) {
    handler_ = [this, late_write_ok](const HttpRequest&, ResponseSink& s) {
      s.BeginStream(200, "application/json");
      s.WriteChunk("start\n");
      dropped_.Wait();
      late_write_ok->set_value(s.WriteChunk("late\n"));
    };
  }

  std::function<void(const HttpRequest&, ResponseSink&)> handler_ =
      [](const HttpRequest&, ResponseSink& s) { s.Send(Json(R"({"ok":true})")); };
  std::unique_ptr<HttpsServer> server_;
  uint16_t port_ = 0;
  Flag dropped_;
  std::mutex mu_;
  HttpRequest last_;
  int calls_ = 0;
};

TEST_F(HttpsServerTest, ServerCertificateVerifiesForLoopbackAndLocalhostOnlyWithItsCa) {
  StartServer();
  EXPECT_TRUE(NewClient("127.0.0.1")->Connect().has_value());
  EXPECT_TRUE(NewClient("localhost")->Connect().has_value());
  EXPECT_FALSE(NewClient("example.com")->Connect().has_value());
  auto other = GenerateTlsMaterial();
  ASSERT_TRUE(other.has_value());
  HttpsTestClient wrong_ca(port_, other->ca_cert_pem);
  auto c = wrong_ca.Connect();
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().find("handshake"), std::string::npos);
}

TEST_F(HttpsServerTest, MissingOrWrongTokenGets401WithTheApiserverStatusBody) {
  StartServer();
  const std::string kBody =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
  for (const Headers& h : {Headers{}, Headers{{"Authorization", "Bearer wrong"}},
                           Headers{{"Authorization", "Basic c2VjcmV0LXRva2Vu"}},
                           Headers{{"Authorization", "Bearer secret-token-and-more"}},
                           Headers{{"Authorization", "Bearer"}}}) {
    auto client = NewClient();
    auto r = client->Request("GET", "/api/v1/pods", "", h);
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(r->status, 401);
    EXPECT_EQ(r->body, kBody);
    EXPECT_EQ(r->Header("content-type"), "application/json");
  }
  EXPECT_EQ(Calls(), 0);
  auto ok = NewClient()->Request("GET", "/api/v1/pods", "", {{"Authorization", "bearer  secret-token"}});
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
}

TEST_F(HttpsServerTest, AnonymousGetIsAllowedOnlyOnPublicInfoPaths) {
  StartServer();
  auto client = NewClient();
  for (const char* path : {"/healthz", "/livez", "/readyz", "/version", "/readyz/ping"}) {
    auto r = client->Request("GET", path);
    ASSERT_TRUE(r.has_value()) << path;
    EXPECT_EQ(r->status, 200) << path;
  }
  EXPECT_EQ(client->Request("GET", "/api")->status, 401);
  EXPECT_EQ(client->Request("GET", "/versions")->status, 401);
  EXPECT_EQ(client->Request("POST", "/healthz", "{}")->status, 401);
  EXPECT_EQ(client->Request("GET", "/healthz", "", {{"Authorization", "Bearer wrong"}})->status, 401);
}

TEST_F(HttpsServerTest, HandlerSeesDecodedPathQueryLowerCaseHeadersAndBody) {
  StartServer();
  Headers h = Auth();
  h["X-Custom-Thing"] = "Value 1";
  h["Content-Type"] = "application/json";
  auto client = NewClient();
  auto r = client->Request(
      "POST", "/api/v1/namespaces/a%20b/pods?labelSelector=app%3Dweb%2Ctier+in+(x)&limit=5",
      R"({"kind":"Pod"})", h);
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 200);
  HttpRequest seen = LastRequest();
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/api/v1/namespaces/a b/pods");
  EXPECT_EQ(seen.target,
            "/api/v1/namespaces/a%20b/pods?labelSelector=app%3Dweb%2Ctier+in+(x)&limit=5");
  EXPECT_EQ(seen.Query("labelSelector"), "app=web,tier in (x)");
  EXPECT_EQ(seen.Query("limit"), "5");
  EXPECT_EQ(seen.Header("x-custom-thing"), "Value 1");
  EXPECT_EQ(seen.Header("content-type"), "application/json");
  EXPECT_EQ(seen.body, R"({"kind":"Pod"})");
  // Response headers the apiserver always sets.
  EXPECT_EQ(r->Header("content-type"), "application/json");
  EXPECT_EQ(r->Header("cache-control"), "no-cache, private");
  EXPECT_EQ(r->Header("content-length"), std::to_string(r->body.size()));
  EXPECT_EQ(r->body, R"({"ok":true})");
  std::string audit1 = r->Header("audit-id");
  auto r2 = client->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(audit1.size(), 36u);
  EXPECT_NE(audit1, r2->Header("audit-id"));
}

TEST_F(HttpsServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  StartServer();
  auto client = NewClient();
  for (int i = 0; i < 5; ++i) {
    auto r = client->Request("GET", "/api/v1/pods?i=" + std::to_string(i), "", Auth());
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(LastRequest().Query("i"), std::to_string(i));
  }
  EXPECT_EQ(client->connects(), 1);
  EXPECT_EQ(server_->ConnectionCount(), 1u);
}

TEST_F(HttpsServerTest, HeadAnswersCarryContentLengthButNoBody) {
  StartServer();
  auto client = NewClient();
  auto head = client->Request("HEAD", "/api", "", Auth());
  ASSERT_TRUE(head.has_value()) << head.error();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("content-length"), "11");  // {"ok":true}
  EXPECT_EQ(head->body, "");
  // Had a body been sent, it would now be parsed as the next response and fail.
  auto get = client->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(get.has_value()) << get.error();
  EXPECT_EQ(get->body, R"({"ok":true})");
  EXPECT_EQ(client->connects(), 1);
}

TEST_F(HttpsServerTest, ConnectionCloseIsHonoured) {
  StartServer();
  auto client = NewClient();
  Headers h = Auth();
  h["Connection"] = "close";
  auto r = client->Request("GET", "/api", "", h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(client->PeerClosed());
}

TEST_F(HttpsServerTest, StreamDeliversEachChunkBeforeTheNextIsWritten) {
  std::promise<void> first_read;
  std::promise<bool> second_ok;
  handler_ = [&](const HttpRequest&, ResponseSink& s) {
    ASSERT_TRUE(s.BeginStream(200, "application/json"));
    EXPECT_TRUE(s.WriteChunk("{\"type\":\"ADDED\"}\n"));
    // The client must have read chunk one before chunk two exists.
    bool got = first_read.get_future().wait_for(kSafety) == std::future_status::ready;
    second_ok.set_value(got && s.WriteChunk("{\"type\":\"MODIFIED\"}\n"));
    s.EndStream();
  };
  StartServer();
  auto client = NewClient();
  auto head = client->StartStream("/api/v1/pods?watch=true", Auth());
  ASSERT_TRUE(head.has_value()) << head.error();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("transfer-encoding"), "chunked");
  EXPECT_EQ(head->Header("cache-control"), "no-cache, private");
  auto one = client->ReadStreamUntil("ADDED\"}\n");
  ASSERT_TRUE(one.has_value()) << one.error();
  EXPECT_EQ(one->find("MODIFIED"), std::string::npos);
  first_read.set_value();
  auto two = client->ReadStreamUntil("MODIFIED\"}\n");
  ASSERT_TRUE(two.has_value()) << two.error();
  EXPECT_TRUE(client->ReadStreamToEnd());
  EXPECT_TRUE(second_ok.get_future().get());
  // The connection survives a finished stream.
  handler_ = [](const HttpRequest&, ResponseSink& s) { s.Send(Json("{}")); };
  auto after = client->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(after.has_value()) << after.error();
  EXPECT_EQ(client->connects(), 1);
}

TEST_F(HttpsServerTest, DropAllConnectionsEndsOpenStreamsButKeepsListening) {
  std::promise<bool> late_write_ok;
  UseStreamUntilDropped(&late_write_ok);
  StartServer();
  auto watcher = NewClient();
  ASSERT_TRUE(watcher->StartStream("/api/v1/pods?watch=true", Auth()).has_value());
  ASSERT_TRUE(watcher->ReadStreamUntil("start\n").has_value());
  server_->DropAllConnections();
  EXPECT_FALSE(watcher->ReadStreamToEnd());  // cut, not a clean terminating chunk
  EXPECT_FALSE(late_write_ok.get_future().get());
  handler_ = [](const HttpRequest&, ResponseSink& s) { s.Send(Json("{}")); };
  auto fresh = NewClient()->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(fresh.has_value()) << fresh.error();
  EXPECT_EQ(fresh->status, 200);
}

TEST_F(HttpsServerTest, StopReturnsPromptlyWithAnOpenStreamAndAnIdleConnection) {
  std::promise<bool> late_write_ok;
  UseStreamUntilDropped(&late_write_ok);
  StartServer();
  auto idle = NewClient();
  ASSERT_TRUE(idle->Connect().has_value());
  auto watcher = NewClient();
  ASSERT_TRUE(watcher->StartStream("/api/v1/pods?watch=true", Auth()).has_value());
  ASSERT_TRUE(watcher->ReadStreamUntil("start\n").has_value());
  auto begin = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(2));
  EXPECT_FALSE(late_write_ok.get_future().get());
  EXPECT_FALSE(watcher->ReadStreamToEnd());
  EXPECT_TRUE(idle->PeerClosed());
  EXPECT_FALSE(NewClient()->Connect().has_value());
  server_->Stop();  // idempotent
}

TEST_F(HttpsServerTest, OversizedBodyGets413StatusAndTheHandlerIsNotCalled) {
  StartServer();
  auto client = NewClient();
  std::string body(3 * 1024 * 1024 + 1, 'x');
  auto r = client->Request("POST", "/api/v1/namespaces/ns/configmaps", body, Auth());
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 413);
  auto doc = json::Parse(r->body);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(json::GetString(*doc, {"reason"}), "RequestEntityTooLarge");
  EXPECT_EQ(json::GetString(*doc, {"message"}), "Request entity too large: limit is 3145728");
  EXPECT_EQ(Calls(), 0);
  // Exactly at the limit is fine.
  auto at_limit = NewClient()->Request("POST", "/api/v1/namespaces/ns/configmaps",
                                       std::string(3 * 1024 * 1024, 'y'), Auth());
  ASSERT_TRUE(at_limit.has_value()) << at_limit.error();
  EXPECT_EQ(at_limit->status, 200);
}

// RawTcpExchange writes bytes on a plain TCP connection, half-closes it, and reads until the
// server closes its side.
std::string RawTcpExchange(uint16_t port, const std::string& bytes) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket sock(io);
  boost::system::error_code ec;
  sock.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return "connect failed";
  boost::asio::write(sock, boost::asio::buffer(bytes), ec);
  sock.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
  std::string out;
  char buf[4096];
  for (;;) {
    size_t n = sock.read_some(boost::asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

TEST_F(HttpsServerTest, GarbagePlainHttpAndMalformedRequestsDoNotHurtTheServer) {
  StartServer();
  RawTcpExchange(port_, "GET /api HTTP/1.1\r\nHost: x\r\n\r\n");
  std::mt19937 rng(7);
  std::string noise(8192, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  RawTcpExchange(port_, noise);
  RawTcpExchange(port_, "");
  // A TLS record header promising more than is sent, then EOF.
  RawTcpExchange(port_, std::string("\x16\x03\x01\xff\xff\x01", 6));

  // Malformed HTTP inside a good TLS session: 400 Status, then the connection closes.
  for (const char* bad : {"NOT HTTP AT ALL\r\n\r\n", "GET /api HTTP/1.1\r\nContent-Length: zz\r\n\r\n",
                          "GET /a%zz HTTP/1.1\r\nHost: x\r\n\r\n"}) {
    auto client = NewClient();
    auto r = client->RawRequest(bad);
    ASSERT_TRUE(r.has_value()) << bad << ": " << r.error();
    EXPECT_EQ(r->status, 400) << bad;
    auto doc = json::Parse(r->body);
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(json::GetString(*doc, {"reason"}), "BadRequest");
    EXPECT_TRUE(client->PeerClosed());
  }
  EXPECT_EQ(Calls(), 0);
  auto ok = NewClient()->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(ok.has_value()) << ok.error();
  EXPECT_EQ(ok->status, 200);
}

TEST_F(HttpsServerTest, SilentClientIsDisconnectedAfterTheHandshakeTimeout) {
  HttpsServer::Options o = DefaultOptions();
  // Long enough that the good client below handshakes in time on a loaded machine (the whole
  // TLS exchange, both ends in this process, has to fit into it), short enough to wait out.
  o.handshake_timeout = std::chrono::milliseconds(500);
  StartServer(std::move(o));
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket sock(io);
  boost::system::error_code ec;
  sock.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
  ASSERT_FALSE(ec);
  char c;
  sock.read_some(boost::asio::buffer(&c, 1), ec);  // returns once the server gives up
  EXPECT_TRUE(ec);
  // A client that completes the handshake in time keeps its connection past the timeout.
  auto client = NewClient();
  ASSERT_TRUE(client->Request("GET", "/api", "", Auth()).has_value());
  // Not synchronisation: the point is that time passes beyond the timeout.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  auto again = client->Request("GET", "/api", "", Auth());
  ASSERT_TRUE(again.has_value()) << again.error();
  EXPECT_EQ(client->connects(), 1);
}

TEST_F(HttpsServerTest, HandlerThatThrowsOrNeverAnswersYields500) {
  handler_ = [](const HttpRequest& r, ResponseSink&) {
    if (r.path == "/throw") throw std::runtime_error("boom");
  };
  StartServer();
  auto client = NewClient();
  auto thrown = client->Request("GET", "/throw", "", Auth());
  ASSERT_TRUE(thrown.has_value());
  EXPECT_EQ(thrown->status, 500);
  EXPECT_NE(thrown->body.find("Internal error occurred: boom"), std::string::npos);
  auto silent = client->Request("GET", "/silent", "", Auth());
  ASSERT_TRUE(silent.has_value());
  EXPECT_EQ(silent->status, 500);
  EXPECT_EQ(client->connects(), 1);
}

TEST_F(HttpsServerTest, FaultRateOneInjects429WithRetryAfterAndRateZeroNone) {
  FaultInjector faults(FaultConfig{.fault_rate = 1.0, .fault_codes = {429}, .seed = 3});
  StartServer(DefaultOptions(), &faults);
  auto client = NewClient();
  for (int i = 0; i < 5; ++i) {
    auto r = client->Request(i % 2 ? "GET" : "POST", "/api/v1/namespaces/ns/pods", "{}", Auth());
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(r->status, 429);
    EXPECT_EQ(r->Header("retry-after"), "1");
    auto doc = json::Parse(r->body);
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(json::GetString(*doc, {"reason"}), "TooManyRequests");
  }
  EXPECT_EQ(Calls(), 0);
  // Health and admin endpoints are exempt.
  EXPECT_EQ(client->Request("GET", "/healthz", "", Auth())->status, 200);
  EXPECT_EQ(client->Request("GET", "/kubesim/admin/faults", "", Auth())->status, 200);
  faults.SetConfig(FaultConfig{.fault_rate = 0.0, .fault_codes = {429}});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(client->Request("GET", "/api/v1/pods", "", Auth())->status, 200);
  }
}

TEST_F(HttpsServerTest, AdminEndpointRoundTripsTheConfigAfterAuthentication) {
  size_t window = 1000;
  std::mutex window_mu;
  HttpsServer::Options o = DefaultOptions();
  o.on_history_window = [&](size_t w) {
    std::lock_guard<std::mutex> lock(window_mu);
    window = w;
  };
  o.history_window = [&] {
    std::lock_guard<std::mutex> lock(window_mu);
    return window;
  };
  StartServer(std::move(o));  // the server's own injector
  auto client = NewClient();
  EXPECT_EQ(client->Request("GET", "/kubesim/admin/faults")->status, 401);
  const std::string cfg =
      R"({"faultRate":0.25,"faultCodes":[500,409],"latencyMs":0,"watchDropEverySeconds":60,"seed":11,"historyWindow":50})";
  auto put = client->Request("PUT", "/kubesim/admin/faults", cfg, Auth());
  ASSERT_TRUE(put.has_value());
  EXPECT_EQ(put->status, 200);
  // GET adds the read-only counters of what was injected (nothing yet: admin paths are exempt).
  const std::string reported = cfg.substr(0, cfg.size() - 1) + R"(,"injectedFaults":{}})";
  auto get = client->Request("GET", "/kubesim/admin/faults", "", Auth());
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->body, reported);
  EXPECT_EQ(server_->Faults().WatchDropEvery(), std::chrono::seconds(60));
  auto bad = client->Request("PUT", "/kubesim/admin/faults", "{not json", Auth());
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(client->Request("GET", "/kubesim/admin/faults", "", Auth())->body, reported);
}

TEST_F(HttpsServerTest, RestartEndpointAnswersThenDropsEveryConnection) {
  std::promise<bool> late_write_ok;
  UseStreamUntilDropped(&late_write_ok);
  StartServer();
  auto watcher = NewClient();
  ASSERT_TRUE(watcher->StartStream("/api/v1/pods?watch=true", Auth()).has_value());
  ASSERT_TRUE(watcher->ReadStreamUntil("start\n").has_value());
  auto admin = NewClient();
  auto r = admin->Request("POST", "/kubesim/admin/restart", "", Auth());
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(watcher->ReadStreamToEnd());
  EXPECT_FALSE(late_write_ok.get_future().get());
  EXPECT_TRUE(admin->PeerClosed());
  handler_ = [](const HttpRequest&, ResponseSink& s) { s.Send(Json("{}")); };
  EXPECT_EQ(NewClient()->Request("GET", "/api", "", Auth())->status, 200);
}

// KubectlBinaries: the machine's kubectl v1.32 and, when present, the repo's pinned v1.34.
std::vector<std::string> KubectlBinaries() {
  std::vector<std::string> out = {"/usr/bin/kubectl"};
  const std::string pinned = std::string(BERTH_SOURCE_DIR) + "/.tools/bin/kubectl";
  if (::access(pinned.c_str(), X_OK) == 0) out.push_back(pinned);
  return out;
}

TEST_F(HttpsServerTest, KubectlVerifiesTheServerAndSendsTheTokenFromTheWrittenKubeconfig) {
  handler_ = [](const HttpRequest& r, ResponseSink& s) {
    s.Send(Json(R"({"hello":"kubectl"})"));
  };
  StartServer();
  char tmpl[] = "/tmp/kubesim-kubectl-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  for (const std::string& kubectl : KubectlBinaries()) {
    for (const char* host : {"127.0.0.1", "localhost"}) {
      const std::string path = dir + "/config-" + host;
      ASSERT_TRUE(WriteKubeconfig(path,
                                  std::string("https://") + host + ":" + std::to_string(port_),
                                  Tls().ca_cert_pem, kToken)
                      .has_value());
      std::string out = RunCommand("HOME=" + dir + " " + kubectl + " --kubeconfig " + path +
                                   " get --raw '/api/v1/namespaces/default/pods/x?limit=1' 2>&1");
      EXPECT_NE(out.find(R"({"hello":"kubectl"})"), std::string::npos)
          << kubectl << " " << host << ": " << out;
      EXPECT_EQ(LastRequest().Header("authorization"), std::string("Bearer ") + kToken);
      EXPECT_EQ(LastRequest().path, "/api/v1/namespaces/default/pods/x");
    }
    // A wrong token makes kubectl print the apiserver's wording.
    const std::string bad = dir + "/config-bad";
    ASSERT_TRUE(WriteKubeconfig(bad, "https://127.0.0.1:" + std::to_string(port_),
                                Tls().ca_cert_pem, "nope")
                    .has_value());
    std::string out = RunCommand("HOME=" + dir + " " + kubectl + " --kubeconfig " + bad +
                                 " get --raw /api/v1/pods 2>&1");
    EXPECT_NE(out.find("Unauthorized"), std::string::npos) << kubectl << ": " << out;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace berth::kubesim
