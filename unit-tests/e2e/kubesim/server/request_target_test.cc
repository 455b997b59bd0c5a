#include "e2e/kubesim/server/request_target.h"

#include <gtest/gtest.h>

namespace berth::kubesim {
namespace {

TEST(DecodeTargetTest, PathIsPercentDecodedButPlusStaysPlus) {
  auto t = DecodeTarget("/api/v1/namespaces/a%2Db/pods/x+y");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->path, "/api/v1/namespaces/a-b/pods/x+y");
  EXPECT_TRUE(t->query.empty());
}

TEST(DecodeTargetTest, QueryDecodesPercentAndPlusAsSpaceAndLastValueWins) {
  auto t = DecodeTarget("/p?labelSelector=app%3Dweb%2Ctier+in+(a)&limit=1&limit=500&flag");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->query.at("labelSelector"), "app=web,tier in (a)");
  EXPECT_EQ(t->query.at("limit"), "500");
  EXPECT_EQ(t->query.at("flag"), "");
}

TEST(DecodeTargetTest, MalformedQueryPairsAreDroppedLikeGo) {
  auto t = DecodeTarget("/p?bad=%zz&semi=a;b&good=1&&=empty");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->query.count("bad"), 0u);
  EXPECT_EQ(t->query.count("semi"), 0u);
  EXPECT_EQ(t->query.at("good"), "1");
  EXPECT_EQ(t->query.at(""), "empty");
}

TEST(DecodeTargetTest, MalformedPathsAreRejected) {
  EXPECT_FALSE(DecodeTarget("").has_value());
  EXPECT_FALSE(DecodeTarget("api/v1").has_value());
  EXPECT_FALSE(DecodeTarget("http://host/api").has_value());
  EXPECT_FALSE(DecodeTarget("/a%2").has_value());
  EXPECT_FALSE(DecodeTarget("/a%").has_value());
  EXPECT_FALSE(DecodeTarget("/a%g0").has_value());
  EXPECT_FALSE(DecodeTarget("/a%00b").has_value());
  EXPECT_EQ(DecodeTarget("/a%").error().code, ErrorCode::kBadRequest);
}

TEST(PercentDecodeTest, TruncatedEscapeAtEndIsAnError) {
  EXPECT_EQ(PercentDecode("ab%41", false), "abA");
  EXPECT_FALSE(PercentDecode("ab%4", false).has_value());
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
}

}  // namespace
}  // namespace berth::kubesim
