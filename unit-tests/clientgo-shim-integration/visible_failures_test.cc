// Failures a user must fix (wrong CA, wrong host name, bad token, missing RBAC, a resource that
// cannot be listed) are visible: against an in-process kubesim, each produces a log line naming
// the server and the reason, rate-limited, and /readyz?verbose names the informer that has not
// synced and why.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/log_capture.h"
#include "clientgo-shim/config/loader.h"
#include "clientgo-shim/informer/shared_informer_factory.h"
#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/transport/https_client.h"
#include "e2e/kubesim/server/tls.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using berth::testing::LogCapture;
using berth::testing::LogLine;
using kubesim::KubesimInstance;
using kubesim::KubesimOptions;

class VisibleFailuresTest : public ::testing::Test {
 protected:
  void Start(KubesimOptions options = {}) {
    options.token = "the-token";
    sim_ = std::make_unique<KubesimInstance>(options);
    auto port = sim_->Start();
    ASSERT_TRUE(port.has_value()) << port.error().message;
    server_ = "https://127.0.0.1:" + std::to_string(*port);
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  HttpsRestClientOptions Options() {
    HttpsRestClientOptions o;
    o.server = server_;
    o.ca_pem = sim_->ca_pem();
    o.token_source = [] { return std::string("the-token"); };
    o.cancel_poll_interval = 100ms;
    return o;
  }
  std::shared_ptr<HttpsRestClient> Client(HttpsRestClientOptions o) {
    auto c = HttpsRestClient::Create(std::move(o));
    EXPECT_TRUE(c.has_value()) << c.error().message;
    return c ? *c : nullptr;
  }
  // WriteKubeconfig: a kubeconfig for kubesim whose certificate-authority file holds `ca_pem`.
  std::string WriteKubeconfig(const std::string& ca_pem) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "berth-vf-XXXXXX").string();
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/ca.crt") << ca_pem;
    const std::string path = dir_ + "/config";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                           "clusters:\n- name: sim\n  cluster:\n    server: " << server_
                        << "\n    certificate-authority: ca.crt\n"
                           "users:\n- name: me\n  user:\n    token: the-token\n"
                           "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: me\n";
    return path;
  }

  std::unique_ptr<KubesimInstance> sim_;
  std::string server_;
  std::string dir_;
};

TEST_F(VisibleFailuresTest, AWrongCaInTheKubeconfigIsLoggedOnceWithTheServerAndTheVerifyError) {
  Start();
  auto other = kubesim::GenerateTlsMaterial();
  ASSERT_TRUE(other.has_value());
  auto config = LoadRestConfig(
      {.kubeconfig_flag = WriteKubeconfig(other->ca_cert_pem), .kubeconfig_env = "", .home = ""});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  auto client = MakeRestClient(*config);
  ASSERT_TRUE(client.has_value()) << client.error().message;

  LogCapture capture;
  for (int i = 0; i < 3; ++i) {
    auto r = (*client)->Do({.path = "/api/v1/pods"});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::kTransport);
  }
  auto lines = capture.Matching("TLS handshake with the API server failed");
  ASSERT_EQ(lines.size(), 1u) << "three failures within the interval make one line";
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("logger"), "rest-client");
  EXPECT_EQ(lines[0].Get("server"), server_);
  EXPECT_EQ(lines[0].Get("reason"), "unable to get local issuer certificate") << lines[0].raw;
  EXPECT_EQ(lines[0].Get("request"), "GET /api/v1/pods");
  EXPECT_NE(lines[0].Get("error").find("certificate verify failed"), std::string::npos)
      << lines[0].raw;
}

TEST_F(VisibleFailuresTest, AHostNameMismatchIsLoggedWithTheVerifyError) {
  Start();
  auto o = Options();
  o.tls_server_name = "evil.example.com";
  o.failure_log_interval = 0ms;  // every failure logs
  auto client = Client(o);
  ASSERT_NE(client, nullptr);
  LogCapture capture;
  EXPECT_FALSE(client->Do({.path = "/version"}).has_value());
  EXPECT_FALSE(client->Do({.path = "/version"}).has_value());
  auto lines = capture.Matching("TLS handshake with the API server failed");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].Get("server"), server_);
  EXPECT_EQ(lines[0].Get("reason"), "hostname mismatch") << lines[0].raw;
}

TEST_F(VisibleFailuresTest, AnUnauthorizedTokenIsLoggedAsAnErrorWithTheStatusMessage) {
  Start();
  auto o = Options();
  o.token_source = [] { return std::string("stale-token"); };
  auto client = Client(o);
  ASSERT_NE(client, nullptr);
  LogCapture capture;
  for (int i = 0; i < 2; ++i) {
    auto r = client->Do({.path = "/api/v1/namespaces/default/pods"});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().http_status, 401);
  }
  auto lines = capture.Matching("the API server rejected the client's credentials");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("server"), server_);
  EXPECT_EQ(lines[0].Get("code"), "401");
  EXPECT_EQ(lines[0].Get("reason"), "Unauthorized");
  EXPECT_EQ(lines[0].Get("statusReason"), "Unauthorized");
  EXPECT_EQ(lines[0].Get("request"), "GET /api/v1/namespaces/default/pods");
}

TEST_F(VisibleFailuresTest, AForbiddenRequestIsLoggedAsAWarningWithTheStatusMessage) {
  KubesimOptions options;
  options.faults.fault_rate = 1.0;
  options.faults.fault_codes = {403};
  Start(options);
  auto client = Client(Options());
  ASSERT_NE(client, nullptr);
  LogCapture capture;
  auto r = client->Do({.path = "/api/v1/namespaces/default/pods/web"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kForbidden);
  auto lines = capture.Matching("the API server forbade a request");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].Get("level"), "warn");
  EXPECT_EQ(lines[0].Get("server"), server_);
  EXPECT_EQ(lines[0].Get("reason"), "pods \"web\" is forbidden: injected fault");
  EXPECT_EQ(lines[0].Get("statusReason"), "Forbidden");
}

TEST_F(VisibleFailuresTest, AnInformerThatCannotListIsLoggedAndNamedByReadyz) {
  Start();
  auto o = Options();
  o.token_source = [] { return std::string("stale-token"); };
  auto client = Client(o);
  ASSERT_NE(client, nullptr);
  LogCapture capture;
  ManagerOptions mo;
  mo.rest = client;
  mo.metrics_bind_address = "0";
  mo.health_probe_bind_address = "0";
  mo.informer_options.backoff.initial = 10ms;
  mo.informer_options.backoff.cap = 50ms;
  auto mgr = Manager::Create(std::move(mo));
  ASSERT_TRUE(mgr.has_value()) << mgr.error().message;
  auto pods = (*mgr)->informers().InformerFor({"/api/v1/pods", "", ""});
  (*mgr)->informers().Start();

  const LogLine line = capture.WaitFor(
      [](const LogLine& l) { return l.Get("msg") == "failed to list"; }, 10s);
  ASSERT_FALSE(line.raw.empty()) << "no reflector log line";
  EXPECT_EQ(line.Get("level"), "error");
  EXPECT_EQ(line.Get("logger"), "reflector");
  EXPECT_EQ(line.Get("resource"), "/api/v1/pods");
  EXPECT_EQ(line.Get("server"), server_);
  EXPECT_EQ(line.Get("code"), "401");
  EXPECT_EQ(line.Get("error"), "Unauthorized");

  HttpServerRequest verbose{.method = "GET", .path = "/readyz", .query = {{"verbose", ""}}};
  HttpServerReply reply = (*mgr)->readyz().Serve(verbose, "");
  EXPECT_EQ(reply.status, 500);
  EXPECT_NE(reply.body.find("[-]informer-sync failed: informer /api/v1/pods has not synced: "
                            "last list error: Unauthorized ("),
            std::string::npos)
      << reply.body;
  EXPECT_NE(reply.body.find("healthz check failed"), std::string::npos) << reply.body;
  // Without ?verbose the reason stays withheld, as controller-runtime does.
  HttpServerReply terse = (*mgr)->readyz().Serve({.method = "GET", .path = "/readyz"}, "");
  EXPECT_EQ(terse.body, "[-]informer-sync failed: reason withheld\nhealthz check failed\n");
  (*mgr)->Stop();
}

}  // namespace
}  // namespace berth::shim
