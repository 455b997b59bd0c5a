#include "clientgo-shim/config/file_util.h"

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

}  // namespace
}  // namespace berth::shim
