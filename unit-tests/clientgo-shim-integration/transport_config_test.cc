// Config loaders end to end against an in-process kubesim: the kubeconfig kubesim writes, a
// tokenFile that rotates, and a kept-alive connection the server drops.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/config/loader.h"
#include "clientgo-shim/transport/https_client.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::shim {
namespace {

using kubesim::KubesimInstance;
using kubesim::KubesimOptions;
using Clock = std::chrono::steady_clock;

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "berth-int-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& content) {
    const std::string full = path_ + "/" + name;
    // Write to a temp name and rename, as the kubelet swaps projected token files atomically.
    std::ofstream(full + ".tmp", std::ios::trunc) << content;
    std::filesystem::rename(full + ".tmp", full);
    return full;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ConfigIntegrationTest : public ::testing::Test {
 protected:
  void Start(KubesimOptions options) {
    sim_ = std::make_unique<KubesimInstance>(options);
    auto port = sim_->Start();
    ASSERT_TRUE(port.has_value()) << port.error().message;
    port_ = *port;
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }
  std::string Server() const { return "https://127.0.0.1:" + std::to_string(port_); }

  // KubeconfigWithTokenFile: CA from a file, token from a tokenFile, both relative paths.
  std::string KubeconfigWithTokenFile() {
    dir_.Write("ca.crt", sim_->ca_pem());
    return dir_.Write("config", "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                                "clusters:\n- name: sim\n  cluster:\n    server: " + Server() +
                                    "\n    certificate-authority: ca.crt\n"
                                    "users:\n- name: me\n  user:\n    tokenFile: token\n"
                                    "contexts:\n- name: sim\n  context:\n    cluster: sim\n"
                                    "    user: me\n    namespace: default\n");
  }

  ScratchDir dir_;
  std::unique_ptr<KubesimInstance> sim_;
  uint16_t port_ = 0;
};

TEST_F(ConfigIntegrationTest, KubeconfigWrittenByKubesimConnects) {
  KubesimOptions options;
  options.nodes = 2;
  options.kubeconfig_out = dir_.path() + "/kubesim.kubeconfig";
  Start(options);
  auto config = LoadRestConfig({.kubeconfig_flag = options.kubeconfig_out,
                                .kubeconfig_env = "", .home = ""});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  auto client = MakeRestClient(*config);
  ASSERT_TRUE(client.has_value()) << client.error().message;
  auto nodes = (*client)->Do({.path = "/api/v1/nodes"});
  ASSERT_TRUE(nodes.has_value()) << nodes.error().message;
  EXPECT_NE(nodes->body.find("node-1"), std::string::npos);
}

TEST_F(ConfigIntegrationTest, RotatedTokenFileIsReadByLaterRequests) {
  KubesimOptions options;
  options.token = "rotated-token-2";
  Start(options);
  dir_.Write("token", "old-token-1\n");
  const std::string path = KubeconfigWithTokenFile();
  auto config = LoadKubeconfig({path}, {.token_file_period = std::chrono::milliseconds(0)});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  auto client = MakeRestClient(*config);
  ASSERT_TRUE(client.has_value()) << client.error().message;

  // Before rotation the file holds a token kubesim does not accept.
  auto before = (*client)->Do({.path = "/api/v1/namespaces/default/pods"});
  ASSERT_FALSE(before.has_value());
  EXPECT_EQ(before.error().code, ErrorCode::kUnauthorized);
  EXPECT_EQ(before.error().http_status, 401);

  dir_.Write("token", "rotated-token-2\n");
  for (int i = 0; i < 5; ++i) {
    auto after = (*client)->Do({.path = "/api/v1/namespaces/default/pods"});
    ASSERT_TRUE(after.has_value()) << after.error().message;
  }
}

TEST_F(ConfigIntegrationTest, InClusterConfigReachesKubesim) {
  KubesimOptions options;
  options.token = "sa-token";
  Start(options);
  dir_.Write("token", "sa-token");
  dir_.Write("ca.crt", sim_->ca_pem());
  dir_.Write("namespace", "kube-system");
  InClusterOptions in;
  in.service_host = "127.0.0.1";
  in.service_port = std::to_string(port_);
  in.token_path = dir_.path() + "/token";
  in.ca_path = dir_.path() + "/ca.crt";
  in.namespace_path = dir_.path() + "/namespace";
  auto config = LoadRestConfig({.kubeconfig_env = "", .home = "", .in_cluster = in});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->default_namespace, "kube-system");
  auto client = MakeRestClient(*config);
  ASSERT_TRUE(client.has_value());
  auto r = (*client)->Do({.path = "/api/v1/namespaces/kube-system"});
  EXPECT_TRUE(r.has_value()) << r.error().message;
}

TEST_F(ConfigIntegrationTest, DroppedKeptAliveConnectionIsReplacedTransparently) {
  KubesimOptions options;
  Start(options);
  auto client = HttpsRestClient::Create({.server = Server(), .ca_pem = sim_->ca_pem(),
                                         .token_source = [t = sim_->token()] { return t; }});
  ASSERT_TRUE(client.has_value());
  ASSERT_TRUE((*client)->Do({.path = "/version"}).has_value());
  EXPECT_EQ((*client)->IdleConnectionCountForTest(), 1u);
  sim_->server().DropAllConnections();
  // Both a GET and a POST go through on a new connection.
  auto get = (*client)->Do({.path = "/version"});
  EXPECT_TRUE(get.has_value()) << get.error().message;
  sim_->server().DropAllConnections();
  auto post = (*client)->Do({.method = "POST", .path = "/api/v1/namespaces",
                             .body = R"({"apiVersion":"v1","kind":"Namespace",)"
                                     R"("metadata":{"name":"after-drop"}})"});
  EXPECT_TRUE(post.has_value()) << post.error().message;
  EXPECT_EQ((*client)->OpenedConnectionCountForTest(), 3u);
}

TEST_F(ConfigIntegrationTest, CancelFromAnotherThreadEndsAQuietWatch) {
  KubesimOptions options;
  Start(options);
  auto client = HttpsRestClient::Create({.server = Server(), .ca_pem = sim_->ca_pem(),
                                         .token_source = [t = sim_->token()] { return t; }});
  ASSERT_TRUE(client.has_value());
  std::atomic<bool> cancel{false};
  std::promise<void> first_line;
  std::atomic<bool> seen{false};
  auto watch = std::async(std::launch::async, [&] {
    return (*client)->Stream({.path = "/api/v1/namespaces", .query = {{"watch", "true"}}},
                             [&](std::string_view) {
                               if (!seen.exchange(true)) first_line.set_value();
                               return true;
                             },
                             &cancel);
  });
  // The namespaces watch replays the default namespaces, then stays quiet.
  ASSERT_EQ(first_line.get_future().wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  const Clock::time_point cancelled_at = Clock::now();
  cancel = true;
  ASSERT_EQ(watch.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_LT(Clock::now() - cancelled_at, std::chrono::milliseconds(2000));
  EXPECT_TRUE(watch.get().has_value());
}

TEST_F(ConfigIntegrationTest, WatchBodyOutlivesTheRequestTimeout) {
  KubesimOptions options;
  Start(options);
  auto client = HttpsRestClient::Create({.server = Server(), .ca_pem = sim_->ca_pem(),
                                         .token_source = [t = sim_->token()] { return t; },
                                         .request_timeout = std::chrono::milliseconds(300)});
  ASSERT_TRUE(client.has_value());
  std::atomic<bool> cancel{false};
  std::promise<void> late_event;
  std::atomic<bool> fulfilled{false};
  auto watch = std::async(std::launch::async, [&] {
    return (*client)->Stream({.path = "/api/v1/namespaces", .query = {{"watch", "true"}}},
                             [&](std::string_view line) {
                               if (line.find("late-ns") != std::string_view::npos &&
                                   !fulfilled.exchange(true)) {
                                 late_event.set_value();
                               }
                               return true;
                             },
                             &cancel);
  });
  // Let three request timeouts pass (the point of the test, not synchronisation), then create.
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  auto created = (*client)->Do({.method = "POST", .path = "/api/v1/namespaces",
                                .body = R"({"apiVersion":"v1","kind":"Namespace",)"
                                        R"("metadata":{"name":"late-ns"}})"});
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(late_event.get_future().wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  cancel = true;
  ASSERT_EQ(watch.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(watch.get().has_value());
}

}  // namespace
}  // namespace berth::shim
