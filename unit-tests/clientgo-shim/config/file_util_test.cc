#include "clientgo-shim/config/file_util.h"

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

TEST(FileUtilTest, ReadsWholeFile) {
  testing::TempDir dir;
  const std::string path = dir.Write("f", std::string("a\0b", 3));
  auto text = ReadFileToString(path);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, std::string("a\0b", 3));
}

TEST(FileUtilTest, MissingFileErrorNamesPathAndReason) {
  auto text = ReadFileToString("/nonexistent/berth/x");
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().message, "cannot read /nonexistent/berth/x: No such file or directory");
}

TEST(FileUtilTest, DirectoryIsNotReadable) {
  testing::TempDir dir;
  auto text = ReadFileToString(dir.path());
  ASSERT_FALSE(text.has_value());
  EXPECT_NE(text.error().message.find("Is a directory"), std::string::npos)
      << text.error().message;
}

TEST(FileUtilTest, RelativePathsResolveAgainstTheDirectory) {
  EXPECT_EQ(ResolvePath("/etc/kube", "ca.crt"), "/etc/kube/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube/", "sub/ca.crt"), "/etc/kube/sub/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube", "/abs/ca.crt"), "/abs/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube", ""), "");
  EXPECT_EQ(DirName("/etc/kube/config"), "/etc/kube");
  EXPECT_EQ(DirName("config"), ".");
  EXPECT_EQ(DirName("/config"), "/");
}

TEST(FileUtilTest, EnvOrPrefersTheOverrideThenTheEnvironment) {
  ::setenv("BERTH_FILE_UTIL_TEST_VAR", "from-env", 1);
  EXPECT_EQ(EnvOr(std::string("override"), "BERTH_FILE_UTIL_TEST_VAR"), "override");
  EXPECT_EQ(EnvOr(std::string(), "BERTH_FILE_UTIL_TEST_VAR"), "");  // an empty override still wins
  EXPECT_EQ(EnvOr(std::nullopt, "BERTH_FILE_UTIL_TEST_VAR"), "from-env");
  ::unsetenv("BERTH_FILE_UTIL_TEST_VAR");
  EXPECT_EQ(EnvOr(std::nullopt, "BERTH_FILE_UTIL_TEST_VAR"), "");
}

}  // namespace
}  // namespace berth::shim
