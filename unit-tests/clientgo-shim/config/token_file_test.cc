#include "clientgo-shim/config/token_file.h"

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

using std::chrono::milliseconds;

TEST(CachedFileTokenTest, TokenIsTrimmed) {
  testing::TempDir dir;
  auto t = CachedFileToken::Open(dir.Write("token", "  abc\n"), milliseconds(60000));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t)->Token(), "abc");
}

TEST(CachedFileTokenTest, ZeroPeriodRereadsEveryTime) {
  testing::TempDir dir;
  const std::string path = dir.Write("token", "one");
  auto t = CachedFileToken::Open(path, milliseconds(0));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t)->Token(), "one");
  dir.Write("token", "two\n");
  EXPECT_EQ((*t)->Token(), "two");
}

TEST(CachedFileTokenTest, LongPeriodKeepsTheCachedToken) {
  testing::TempDir dir;
  const std::string path = dir.Write("token", "one");
  auto t = CachedFileToken::Open(path, std::chrono::hours(1));
  ASSERT_TRUE(t.has_value());
  dir.Write("token", "two");
  EXPECT_EQ((*t)->Token(), "one");
}

TEST(CachedFileTokenTest, FailedRereadKeepsTheLastGoodToken) {
  testing::TempDir dir;
  const std::string path = dir.Write("token", "good");
  auto t = CachedFileToken::Open(path, milliseconds(0));
  ASSERT_TRUE(t.has_value());
  std::filesystem::remove(path);
  EXPECT_EQ((*t)->Token(), "good");
  dir.Write("token", "   ");
  EXPECT_EQ((*t)->Token(), "good");
}

TEST(CachedFileTokenTest, MissingOrEmptyFileFailsToOpen) {
  testing::TempDir dir;
  auto missing = CachedFileToken::Open(dir.path() + "/none", milliseconds(0));
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("No such file or directory"), std::string::npos);
  auto empty = CachedFileToken::Open(dir.Write("empty", "\n"), milliseconds(0));
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("token file is empty"), std::string::npos);
}

}  // namespace
}  // namespace berth::shim
