// Tests for controllers/provisioning/externalgrpc/cloud_config.h: upstream's cloud-config keys,
// and every malformed input is an error naming the key.
#include "controllers/provisioning/externalgrpc/cloud_config.h"

#include <gtest/gtest.h>

namespace berth::controllers::externalgrpc {
namespace {

TEST(CloudConfigTest, ReadsUpstreamKeys) {
  auto c = ParseCloudConfig(
      "address: ca-external-grpc-cloud-provider-service:8086\n"
      "key: /etc/ssl/client-cert/tls.key\ncert: /etc/ssl/client-cert/tls.crt\n"
      "cacert: /etc/ssl/client-cert/ca.crt\ngrpc_timeout: 1m30s\n");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->address, "ca-external-grpc-cloud-provider-service:8086");
  EXPECT_EQ(c->key, "/etc/ssl/client-cert/tls.key");
  EXPECT_EQ(c->cert, "/etc/ssl/client-cert/tls.crt");
  EXPECT_EQ(c->cacert, "/etc/ssl/client-cert/ca.crt");
  EXPECT_EQ(c->grpc_timeout, std::chrono::seconds(90));
  EXPECT_TRUE(ValidateCloudConfig(*c));
}

TEST(CloudConfigTest, TimeoutDefaultsToFiveSeconds) {
  auto c = ParseCloudConfig("address: 127.0.0.1:8086\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->grpc_timeout, std::chrono::seconds(5));
  EXPECT_TRUE(c->cert.empty());
}

TEST(CloudConfigTest, MalformedInputIsAnErrorNamingTheKey) {
  auto bad_timeout = ParseCloudConfig("address: a:1\ngrpc_timeout: soon\n");
  ASSERT_FALSE(bad_timeout);
  EXPECT_EQ(bad_timeout.error().message, "cloud-config: grpc_timeout: \"soon\" is not a positive duration (e.g. 10s)");
  auto zero = ParseCloudConfig("grpc_timeout: 0s\n");
  ASSERT_FALSE(zero);
  auto unknown = ParseCloudConfig("adress: a:1\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown key \"adress\""), std::string::npos);
  auto nested = ParseCloudConfig("address: {host: a}\n");
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().message, "cloud-config: address: not a string");
  EXPECT_FALSE(ParseCloudConfig("- a\n- b\n"));
  EXPECT_FALSE(ParseCloudConfig("address: [unclosed\n"));
  auto missing = LoadCloudConfig("/nonexistent/cloud-config");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cloud-config /nonexistent/cloud-config: cannot be read");
}

TEST(CloudConfigTest, ValidateWantsHostPortAndCompleteTls) {
  for (const char* ok : {"127.0.0.1:8086", "[::1]:8086", "svc.ns:1", "[fe80::1%eth0]:80"}) {
    EXPECT_TRUE(ValidateCloudConfig({.address = ok})) << ok;
  }
  for (const char* bad : {"", "host", "host:", ":80", "::1:80", "host:port", "[::1]80"}) {
    auto s = ValidateCloudConfig({.address = bad});
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().message, "cloud provider address \"" + std::string(bad) + "\": want host:port or [host]:port");
  }
  auto tls = ValidateCloudConfig({.address = "a:1", .cert = "c.pem"});
  ASSERT_FALSE(tls);
  EXPECT_EQ(tls.error().message, "cloud provider TLS: cert needs key and cacert as well");
}

}  // namespace
}  // namespace berth::controllers::externalgrpc
