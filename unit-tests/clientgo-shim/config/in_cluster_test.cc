#include "clientgo-shim/config/in_cluster.h"

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

InClusterOptions In(const testing::TempDir& dir) {
  InClusterOptions o;
  o.token_path = dir.path() + "/token";
  o.ca_path = dir.path() + "/ca.crt";
  o.namespace_path = dir.path() + "/namespace";
  o.service_host = "10.96.0.1";
  o.service_port = "443";
  return o;
}

TEST(InClusterTest, BuildsServerFromEnvironmentAndReadsServiceAccountFiles) {
  testing::TempDir dir;
  dir.Write("token", "sa-token\n");
  dir.Write("ca.crt", "CA");
  dir.Write("namespace", "berth-system\n");
  auto r = LoadInClusterConfig(In(dir));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://10.96.0.1:443");
  EXPECT_EQ(r->ca_pem, "CA");
  EXPECT_EQ(r->token_source(), "sa-token");
  EXPECT_EQ(r->default_namespace, "berth-system");
}

TEST(InClusterTest, Ipv6HostGetsBrackets) {
  testing::TempDir dir;
  dir.Write("token", "t");
  dir.Write("ca.crt", "CA");
  auto o = In(dir);
  o.service_host = "fd00::1";
  auto r = LoadInClusterConfig(o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->server, "https://[fd00::1]:443");
  EXPECT_EQ(r->default_namespace, "default");  // no namespace file
}

TEST(InClusterTest, RotatedTokenIsPickedUpAfterThePeriod) {
  testing::TempDir dir;
  dir.Write("token", "old");
  dir.Write("ca.crt", "CA");
  auto o = In(dir);
  o.token_refresh_period = std::chrono::milliseconds(0);
  auto r = LoadInClusterConfig(o);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->token_source(), "old");
  dir.Write("token", "new");
  EXPECT_EQ(r->token_source(), "new");
}

TEST(InClusterTest, MissingEnvironmentIsNotInCluster) {
  testing::TempDir dir;
  auto o = In(dir);
  o.service_port = "";
  EXPECT_FALSE(IsInCluster(o));
  auto r = LoadInClusterConfig(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
            "KUBERNETES_SERVICE_PORT must be defined");
}

TEST(InClusterTest, MissingTokenOrCaNamesTheFile) {
  testing::TempDir dir;
  auto r = LoadInClusterConfig(In(dir));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "in-cluster config: token: cannot read " + dir.path() +
                                   "/token: No such file or directory");
  dir.Write("token", "t");
  r = LoadInClusterConfig(In(dir));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "in-cluster config: ca.crt: cannot read " + dir.path() +
                                   "/ca.crt: No such file or directory");
}

}  // namespace
}  // namespace berth::shim
