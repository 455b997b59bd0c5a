// HttpsRestClient against a real in-process kubesim: TLS verification, auth, keep-alive,
// watch streaming and cancellation, retries under injected 429s, Status decoding.
#include "clientgo-shim/transport/https_client.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/tls.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::shim {
namespace {

using kubesim::KubesimInstance;
using kubesim::KubesimOptions;
using Clock = std::chrono::steady_clock;

std::string PodJson(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
}

class TransportIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KubesimOptions options;
    options.nodes = 2;
    options.token = "integration-token";
    sim_ = std::make_unique<KubesimInstance>(options);
    auto port = sim_->Start();
    ASSERT_TRUE(port.has_value()) << port.error().message;
    port_ = *port;
  }
  void TearDown() override { sim_->Stop(); }

  HttpsRestClientOptions Options() {
    HttpsRestClientOptions o;
    o.server = "https://127.0.0.1:" + std::to_string(port_);
    o.ca_pem = sim_->ca_pem();
    const std::string token = sim_->token();
    o.token_source = [token] { return token; };
    return o;
  }

  std::shared_ptr<HttpsRestClient> Client(HttpsRestClientOptions o) {
    auto c = HttpsRestClient::Create(std::move(o));
    EXPECT_TRUE(c.has_value()) << c.error().message;
    return c ? *c : nullptr;
  }

  std::unique_ptr<KubesimInstance> sim_;
  uint16_t port_ = 0;
};

TEST_F(TransportIntegrationTest, GetVersionAndListNodesSucceedOverVerifiedTls) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  auto version = client->Do({.path = "/version"});
  ASSERT_TRUE(version.has_value()) << version.error().message;
  EXPECT_EQ(version->status, 200);
  auto doc = json::Parse(version->body);
  ASSERT_TRUE(doc.has_value());
  EXPECT_FALSE(json::GetString(*doc, {"gitVersion"}).empty());
  EXPECT_NE(version->headers.find("content-type"), version->headers.end());

  auto nodes = client->Do({.path = "/api/v1/nodes"});
  ASSERT_TRUE(nodes.has_value()) << nodes.error().message;
  auto list = json::Parse(nodes->body);
  ASSERT_TRUE(list.has_value());
  const json::Value* items = json::Member(*list, "items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->Size(), 2u);
}

TEST_F(TransportIntegrationTest, SequentialRequestsReuseOneKeptAliveConnection) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  for (int i = 0; i < 50; ++i) {
    auto r = client->Do({.path = "/api/v1/namespaces/default/pods"});
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_LE(sim_->server().ConnectionCount(), 1u);
  }
  EXPECT_EQ(client->OpenedConnectionCountForTest(), 1u);
  EXPECT_EQ(client->IdleConnectionCountForTest(), 1u);
}

TEST_F(TransportIntegrationTest, QueryParametersArePercentEncoded) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  auto created = client->Do({.method = "POST", .path = "/api/v1/namespaces/default/pods",
                             .body = PodJson("sel")});
  ASSERT_TRUE(created.has_value()) << created.error().message;
  auto r = client->Do({.path = "/api/v1/namespaces/default/pods",
                       .query = {{"fieldSelector", "metadata.name=sel"}}});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  auto list = json::Parse(r->body);
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(json::Member(*list, "items")->Size(), 1u);
}

TEST_F(TransportIntegrationTest, WatchStreamDeliversAddedLineForCreatedPod) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  std::atomic<bool> cancel{false};
  std::promise<std::string> added;
  std::atomic<bool> fulfilled{false};
  auto watcher = std::async(std::launch::async, [&] {
    return client->Stream({.path = "/api/v1/namespaces/default/pods",
                           .query = {{"watch", "true"}}},
                          [&](std::string_view line) {
                            auto ev = json::Parse(line);
                            if (ev && json::GetString(*ev, {"type"}) == "ADDED" &&
                                !fulfilled.exchange(true)) {
                              added.set_value(std::string(
                                  json::GetString(*ev, {"object", "metadata", "name"})));
                            }
                            return true;
                          },
                          &cancel);
  });
  auto created = client->Do({.method = "POST", .path = "/api/v1/namespaces/default/pods",
                             .body = PodJson("watched")});
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(created->status, 201);
  auto name = added.get_future();
  ASSERT_EQ(name.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(name.get(), "watched");
  cancel = true;
  ASSERT_EQ(watcher.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(watcher.get().has_value());
}

TEST_F(TransportIntegrationTest, CancelEndsAQuietStreamWithinTwoSeconds) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  std::atomic<bool> cancel{false};
  Clock::time_point cancelled_at;
  // The watch of nodes starts with one ADDED per node and then stays quiet; cancel on the first.
  Status st = client->Stream({.path = "/api/v1/nodes", .query = {{"watch", "true"}}},
                             [&](std::string_view) {
                               if (!cancel) {
                                 cancelled_at = Clock::now();
                                 cancel = true;
                               }
                               return true;
                             },
                             &cancel);
  ASSERT_TRUE(cancel.load());
  EXPECT_TRUE(st.has_value()) << st.error().message;
  EXPECT_LT(Clock::now() - cancelled_at, std::chrono::milliseconds(2000));
}

// A body that stops arriving mid-way (a watch read whole by Do: its first events, then
// nothing) ends at the request's deadline with kTimeout naming the body read; the socket's
// poll between reads keeps the deadline, not only the cancel flag.
TEST_F(TransportIntegrationTest, ABodyThatStallsMidwayTimesOutAtTheDeadline) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  const Clock::time_point start = Clock::now();
  auto got = client->Do({.path = "/api/v1/nodes", .query = {{"watch", "true"}},
                         .timeout = std::chrono::milliseconds(700)});
  const Clock::duration took = Clock::now() - start;
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, ErrorCode::kTimeout) << got.error().message;
  EXPECT_NE(got.error().message.find("read response body"), std::string::npos) << got.error().message;
  EXPECT_GE(took, std::chrono::milliseconds(700));
  EXPECT_LT(took, std::chrono::seconds(10));
  // The timed-out connection was discarded: the next request works.
  auto version = client->Do({.path = "/version"});
  ASSERT_TRUE(version.has_value()) << version.error().message;
  EXPECT_EQ(version->status, 200);
}

// Cancel is checked before every read, not only while the socket is quiet: a large body that
// keeps arriving (a LIST of 3,000 nodes, several MB) stops at the first chunk after the flag.
TEST_F(TransportIntegrationTest, CancelStopsABodyThatKeepsArriving) {
  KubesimOptions options;
  options.nodes = 3000;
  KubesimInstance big(options);
  auto port = big.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  HttpsRestClientOptions o;
  o.server = "https://127.0.0.1:" + std::to_string(*port);
  o.ca_pem = big.ca_pem();
  const std::string token = big.token();
  o.token_source = [token] { return token; };
  auto client = Client(o);
  ASSERT_NE(client, nullptr);
  auto whole = client->Do({.path = "/api/v1/nodes"});
  ASSERT_TRUE(whole.has_value()) << whole.error().message;
  ASSERT_GT(whole->body.size(), 1u << 20);
  std::atomic<bool> cancel{false};
  size_t chunks = 0, bytes = 0;
  Status st = client->StreamBytes(
      {.path = "/api/v1/nodes"}, [](const auto&) {},
      [&](std::string_view chunk) {
        ++chunks;
        bytes += chunk.size();
        cancel = true;
        return true;
      },
      &cancel);
  EXPECT_TRUE(st.has_value()) << st.error().message;
  EXPECT_EQ(chunks, 1u);
  EXPECT_LT(bytes, whole->body.size());
  big.Stop();
}

TEST_F(TransportIntegrationTest, StreamStopsWhenCallbackReturnsFalse) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  int lines = 0;
  Status st = client->Stream({.path = "/api/v1/nodes", .query = {{"watch", "true"}}},
                             [&](std::string_view) { return ++lines < 1; });
  EXPECT_TRUE(st.has_value());
  EXPECT_EQ(lines, 1);
}

TEST_F(TransportIntegrationTest, GetsSucceedWhenHalfTheRequestsAreRejectedWith429) {
  auto options = Options();
  options.max_retry_delay = std::chrono::milliseconds(10);  // keep the test fast
  std::mutex mu;
  std::vector<int> codes;
  options.on_request = [&](std::string_view method, int code, std::chrono::duration<double>) {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(method, "GET");
    codes.push_back(code);
  };
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  kubesim::FaultConfig faults;
  faults.fault_rate = 0.5;
  faults.fault_codes = {429};
  faults.seed = 7;
  sim_->server().Faults().SetConfig(faults);
  for (int i = 0; i < 20; ++i) {
    auto r = client->Do({.path = "/api/v1/namespaces/default/pods"});
    ASSERT_TRUE(r.has_value()) << r.error().message;
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), 200), 20);
  EXPECT_GT(std::count(codes.begin(), codes.end(), 429), 0);
}

TEST_F(TransportIntegrationTest, RetriesStopAfterMaxRetries) {
  auto options = Options();
  options.max_retry_delay = std::chrono::milliseconds(1);
  options.max_retries = 3;
  int attempts = 0;
  options.on_request = [&](std::string_view, int, std::chrono::duration<double>) { ++attempts; };
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  kubesim::FaultConfig faults;
  faults.fault_rate = 1.0;
  faults.fault_codes = {429};
  sim_->server().Faults().SetConfig(faults);
  auto r = client->Do({.path = "/api/v1/namespaces/default/pods"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kTooManyRequests);
  EXPECT_EQ(r.error().http_status, 429);
  EXPECT_EQ(attempts, 4);
}

// ScriptedFence: open for the first `open_checks` checks, closed after.
class ScriptedFence final : public WriteFence {
 public:
  explicit ScriptedFence(int open_checks) : open_checks_(open_checks) {}
  Status CheckWrite() const override {
    if (checks.fetch_add(1) < open_checks_) return {};
    return MakeError(ErrorCode::kFenced, "leader fence closed: scripted");
  }
  mutable std::atomic<int> checks{0};

 private:
  const int open_checks_;
};

TEST_F(TransportIntegrationTest, AClosedFenceStopsAWriteBeforeAnythingIsSent) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  auto fence = std::make_shared<ScriptedFence>(0);
  auto r = client->Do({.method = "POST", .path = "/api/v1/namespaces/default/pods",
                       .body = PodJson("fenced"), .fence = fence});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kFenced);
  EXPECT_EQ(r.error().http_status, 0);
  EXPECT_EQ(fence->checks.load(), 1);
  auto get = client->Do({.path = "/api/v1/namespaces/default/pods/fenced"});
  ASSERT_FALSE(get.has_value());
  EXPECT_EQ(get.error().code, ErrorCode::kNotFound) << "the pod was never created";
  // A GET carrying the same fence is not affected: only writes are fenced.
  EXPECT_TRUE(client->Do({.path = "/api/v1/namespaces/default/pods", .fence = fence}).has_value());
  EXPECT_EQ(fence->checks.load(), 1);
}

TEST_F(TransportIntegrationTest, AFenceClosingDuringARetryAfterWaitStopsTheRetry) {
  auto options = Options();
  options.max_retry_delay = std::chrono::milliseconds(1);
  int attempts_with_response = 0;
  options.on_request = [&](std::string_view, int code, std::chrono::duration<double>) {
    attempts_with_response += code != 0;
  };
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  kubesim::FaultConfig faults;
  faults.fault_rate = 1.0;
  faults.fault_codes = {429};  // with Retry-After, so even a POST is retried
  sim_->server().Faults().SetConfig(faults);
  auto fence = std::make_shared<ScriptedFence>(1);  // open for the first attempt only
  auto r = client->Do({.method = "POST", .path = "/api/v1/namespaces/default/pods",
                       .body = PodJson("retried"), .fence = fence});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kFenced) << r.error().message;
  EXPECT_EQ(fence->checks.load(), 2) << "checked before each attempt, and not retried once fenced";
  EXPECT_EQ(attempts_with_response, 1);
}

TEST_F(TransportIntegrationTest, MissingPodDecodesToNotFoundWithStatusMessage) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/api/v1/namespaces/default/pods/nope"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().http_status, 404);
  EXPECT_EQ(r.error().reason, "NotFound");
  EXPECT_EQ(r.error().message, "pods \"nope\" not found");
}

TEST_F(TransportIntegrationTest, CreatingTwiceDecodesToAlreadyExists) {
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  RestRequest create{.method = "POST", .path = "/api/v1/namespaces/default/pods",
                     .body = PodJson("twice")};
  ASSERT_TRUE(client->Do(create).has_value());
  auto again = client->Do(create);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
}

TEST_F(TransportIntegrationTest, WrongTokenIsUnauthorized) {
  auto options = Options();
  options.token_source = [] { return std::string("not-the-token"); };
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/api/v1/pods"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnauthorized);
}

TEST_F(TransportIntegrationTest, TokenSourceIsAskedAgainAfter401WhenRefreshHookIsSet) {
  auto options = Options();
  auto token = std::make_shared<std::string>("stale");
  const std::string good = sim_->token();
  options.token_source = [token] { return *token; };
  options.on_unauthorized = [token, good] { *token = good; };
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/api/v1/pods"});
  EXPECT_TRUE(r.has_value()) << r.error().message;
}

TEST_F(TransportIntegrationTest, InsecureSkipTlsVerifyConnectsWithoutCa) {
  auto options = Options();
  options.ca_pem.clear();
  options.insecure_skip_tls_verify = true;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/version"});
  EXPECT_TRUE(r.has_value()) << r.error().message;
}

TEST_F(TransportIntegrationTest, UnknownCaFailsWithTransportError) {
  auto other = kubesim::GenerateTlsMaterial();
  ASSERT_TRUE(other.has_value());
  auto options = Options();
  options.ca_pem = other->ca_cert_pem;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/version"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kTransport);
  EXPECT_NE(r.error().message.find("certificate"), std::string::npos) << r.error().message;
}

TEST_F(TransportIntegrationTest, HostNameMustMatchTheCertificate) {
  auto options = Options();
  options.tls_server_name = "localhost";  // a DNS SAN of kubesim's certificate
  auto ok = Client(options);
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(ok->Do({.path = "/version"}).has_value());

  options.tls_server_name = "evil.example.com";
  auto bad = Client(options);
  ASSERT_NE(bad, nullptr);
  auto r = bad->Do({.path = "/version"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kTransport);
}

TEST_F(TransportIntegrationTest, ConnectionRefusedIsATransportError) {
  auto options = Options();
  sim_->Stop();
  options.max_retries = 0;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto r = client->Do({.path = "/version"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kTransport);
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace berth::shim

namespace berth::shim {
namespace {

TEST_F(TransportIntegrationTest, ConcurrentRequestsShareTheClientSafely) {
  auto options = Options();
  options.max_idle_connections = 4;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  std::vector<std::future<int>> workers;
  for (int t = 0; t < 8; ++t) {
    workers.push_back(std::async(std::launch::async, [&client] {
      int ok = 0;
      for (int i = 0; i < 20; ++i) ok += client->Do({.path = "/api/v1/nodes"}).has_value() ? 1 : 0;
      return ok;
    }));
  }
  for (auto& w : workers) EXPECT_EQ(w.get(), 20);
  EXPECT_LE(client->IdleConnectionCountForTest(), 4u);
  EXPECT_LE(client->OpenedConnectionCountForTest(), 160u);
}

TEST_F(TransportIntegrationTest, QpsLimiterSpacesRequestsAfterTheBurst) {
  auto options = Options();
  options.qps = 20;
  options.burst = 1;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 11; ++i) ASSERT_TRUE(client->Do({.path = "/version"}).has_value());
  // One token at once, then one per 50 ms: ten waits.
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(480));
}

}  // namespace
}  // namespace berth::shim
