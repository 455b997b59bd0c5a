#include "clientgo-shim/config/loader.h"

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

std::string MiniConfig(const std::string& server) {
  return "current-context: c\nclusters:\n- name: k\n  cluster:\n    server: " + server +
         "\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: k\n";
}

// Options with no real environment: no $KUBECONFIG, not in a cluster, $HOME = `home`.
LoaderOptions Isolated(const std::string& home) {
  LoaderOptions o;
  o.kubeconfig_env = "";
  o.home = home;
  o.in_cluster.service_host = "";
  o.in_cluster.service_port = "";
  return o;
}

TEST(LoaderTest, FlagWinsOverEverything) {
  testing::TempDir dir;
  const std::string flag = dir.Write("flag", MiniConfig("https://flag:1"));
  const std::string env = dir.Write("env", MiniConfig("https://env:1"));
  dir.Write("home/.kube/config", MiniConfig("https://home:1"));
  auto o = Isolated(dir.path() + "/home");
  o.kubeconfig_flag = flag;
  o.kubeconfig_env = env;
  auto r = LoadRestConfig(o);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://flag:1");
}

TEST(LoaderTest, MissingFlagFileIsAnErrorNotAFallthrough) {
  testing::TempDir dir;
  dir.Write("home/.kube/config", MiniConfig("https://home:1"));
  auto o = Isolated(dir.path() + "/home");
  o.kubeconfig_flag = dir.path() + "/nope";
  auto r = LoadRestConfig(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "kubeconfig " + dir.path() + "/nope: cannot read " + dir.path() +
                                   "/nope: No such file or directory");
}

TEST(LoaderTest, KubeconfigEnvListSkipsMissingFilesAndMerges) {
  testing::TempDir dir;
  const std::string a = dir.Write("a", MiniConfig("https://env-a:1"));
  const std::string b = dir.Write("b", MiniConfig("https://env-b:1"));
  auto o = Isolated(dir.path());
  o.kubeconfig_env = dir.path() + "/missing:" + a + ":" + b;
  auto r = LoadRestConfig(o);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://env-a:1");
}

TEST(LoaderTest, InClusterComesBeforeHomeConfig) {
  testing::TempDir dir;
  dir.Write("home/.kube/config", MiniConfig("https://home:1"));
  dir.Write("sa/token", "t");
  dir.Write("sa/ca.crt", "CA");
  auto o = Isolated(dir.path() + "/home");
  o.in_cluster.service_host = "10.0.0.1";
  o.in_cluster.service_port = "6443";
  o.in_cluster.token_path = dir.path() + "/sa/token";
  o.in_cluster.ca_path = dir.path() + "/sa/ca.crt";
  o.in_cluster.namespace_path = dir.path() + "/sa/namespace";
  auto r = LoadRestConfig(o);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://10.0.0.1:6443");
}

TEST(LoaderTest, HomeConfigIsTheLastResort) {
  testing::TempDir dir;
  dir.Write("home/.kube/config", MiniConfig("https://home:1"));
  auto r = LoadRestConfig(Isolated(dir.path() + "/home"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://home:1");
}

TEST(LoaderTest, ContextFlagIsApplied) {
  testing::TempDir dir;
  const std::string path = dir.Write(
      "config", MiniConfig("https://a:1") + "- name: other\n  context:\n    cluster: k\n"
                                            "    namespace: ns2\n");
  auto o = Isolated(dir.path());
  o.kubeconfig_flag = path;
  o.context = "other";
  auto r = LoadRestConfig(o);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->default_namespace, "ns2");
  o.context = "absent";
  r = LoadRestConfig(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "kubeconfig " + path + ": context \"absent\" not found");
}

TEST(LoaderTest, NothingFoundListsWhatWasTried) {
  testing::TempDir dir;
  auto r = LoadRestConfig(Isolated(dir.path()));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "no configuration found: --kubeconfig not set, $KUBECONFIG not set, not in a cluster "
            "(KUBERNETES_SERVICE_HOST unset), " + dir.path() +
                "/.kube/config: No such file or directory");
}

TEST(LoaderTest, MakeRestClientReportsABadCaWithTheSource) {
  RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.ca_pem = "not a certificate";
  config.source = "kubeconfig /k, context \"c\"";
  auto c = MakeRestClient(config);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().message,
            "kubeconfig /k, context \"c\": certificate-authority data: no PEM certificate found");
  config.ca_pem.clear();
  config.insecure_skip_tls_verify = true;
  EXPECT_TRUE(MakeRestClient(config).has_value());
  config.server = "http://127.0.0.1:6443";
  EXPECT_FALSE(MakeRestClient(config).has_value());
}

}  // namespace
}  // namespace berth::shim
