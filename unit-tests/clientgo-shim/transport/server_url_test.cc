#include "clientgo-shim/transport/server_url.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

TEST(ServerUrlTest, HostPortAndPrefixAreSplit) {
  auto u = ParseServerUrl("https://example.com:6443/k8s/clusters/c-1/");
  ASSERT_TRUE(u.has_value()) << u.error().message;
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, 6443);
  EXPECT_EQ(u->path_prefix, "/k8s/clusters/c-1");
  EXPECT_FALSE(u->host_is_ip);
  EXPECT_EQ(u->HostHeader(), "example.com:6443");
}

TEST(ServerUrlTest, PortDefaultsTo443AndIsOmittedFromHostHeader) {
  auto u = ParseServerUrl("https://kubernetes.default.svc");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->HostHeader(), "kubernetes.default.svc");
  EXPECT_EQ(u->ToString(), "https://kubernetes.default.svc:443");
}

TEST(ServerUrlTest, Ipv6HostsUseBrackets) {
  auto u = ParseServerUrl("https://[::1]:8443");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->host, "::1");
  EXPECT_TRUE(u->host_is_ip);
  EXPECT_EQ(u->HostHeader(), "[::1]:8443");
}

TEST(ServerUrlTest, Ipv4IsRecognised) {
  auto u = ParseServerUrl("127.0.0.1:6443");
  ASSERT_TRUE(u.has_value());
  EXPECT_TRUE(u->host_is_ip);
  EXPECT_EQ(u->port, 6443);
}

TEST(ServerUrlTest, MalformedUrlsAreRejected) {
  const char* bad[] = {"http://x:80", "https://", "https://:6443", "https://x:", "https://x:0",
                       "https://x:70000", "https://x:12a", "https://[::1", "https://::1:6443",
                       "https://x?y=1", "https://u:p@x", "ftp://x"};
  for (const char* url : bad) {
    auto u = ParseServerUrl(url);
    ASSERT_FALSE(u.has_value()) << url;
    EXPECT_EQ(u.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(u.error().message.find(url), std::string::npos) << u.error().message;
  }
}

TEST(ServerUrlTest, QueryIsSortedAndPercentEncoded) {
  EXPECT_EQ(EncodeQuery({{"watch", "true"}, {"labelSelector", "app in (a,b)"}}),
            "labelSelector=app%20in%20%28a%2Cb%29&watch=true");
  EXPECT_EQ(EncodeQuery({}), "");
  EXPECT_EQ(PercentEncode("a-b_c.d~e/f=g&h"), "a-b_c.d~e%2Ff%3Dg%26h");
}

TEST(ServerUrlTest, TargetJoinsPrefixPathAndQuery) {
  auto u = ParseServerUrl("https://h/prefix");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(BuildTarget(*u, "/api/v1/pods", {{"limit", "500"}}), "/prefix/api/v1/pods?limit=500");
  EXPECT_EQ(BuildTarget(*u, "/version", {}), "/prefix/version");
}

}  // namespace
}  // namespace berth::shim
