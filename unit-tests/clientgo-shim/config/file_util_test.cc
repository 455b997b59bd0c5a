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

TEST(FileUtilTest, Base64DecodesStandardPaddedText) {
  EXPECT_EQ(DecodeBase64("aGVsbG8=").value(), "hello");
  EXPECT_EQ(DecodeBase64("aGVs\nbG8h").value(), "hell" "o!");
  EXPECT_EQ(DecodeBase64("YQ==").value(), "a");
  EXPECT_EQ(DecodeBase64("").value(), "");
}

TEST(FileUtilTest, Base64RejectsBadInputWithOffset) {
  auto r = DecodeBase64("aGV*bG8=");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "illegal base64 data at input byte 3");
  EXPECT_FALSE(DecodeBase64("aGVsbG8").has_value());    // missing padding
  EXPECT_FALSE(DecodeBase64("YQ=").has_value());        // short padding
  EXPECT_FALSE(DecodeBase64("=YQ=").has_value());       // padding first
  EXPECT_FALSE(DecodeBase64("YQ==YQ==").has_value());   // data after padding
  EXPECT_FALSE(DecodeBase64("a-b_").has_value());       // URL alphabet is not standard
}

}  // namespace
}  // namespace berth::shim
