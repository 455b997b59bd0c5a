#include "e2e/kubesim/server/kubeconfig.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/run_command.h"

namespace berth::kubesim {
namespace {

using testing::RunCommand;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kubesim-kubeconfig-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(KubeconfigTest, KubectlLoadsTheFileWithCaDataTokenAndCurrentContext) {
  const std::string path = dir_ + "/config";
  const std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  ASSERT_TRUE(WriteKubeconfig(path, "https://127.0.0.1:6443", ca, "tok\"en:1 #x").has_value());
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  std::string out =
      RunCommand("/usr/bin/kubectl --kubeconfig " + path + " config view --raw -o json 2>&1");
  auto doc = json::Parse(out);
  ASSERT_TRUE(doc.has_value()) << out;
  EXPECT_EQ(json::GetString(*doc, {"current-context"}), "kubesim");
  const json::Value& cluster = (*doc)["clusters"][0];
  EXPECT_EQ(json::GetString(cluster, {"name"}), "kubesim");
  EXPECT_EQ(json::GetString(cluster, {"cluster", "server"}), "https://127.0.0.1:6443");
  EXPECT_EQ(json::GetString(cluster, {"cluster", "certificate-authority-data"}), Base64Encode(ca));
  const json::Value& user = (*doc)["users"][0];
  EXPECT_EQ(json::GetString(user, {"user", "token"}), "tok\"en:1 #x");
  const json::Value& context = (*doc)["contexts"][0];
  EXPECT_EQ(json::GetString(context, {"name"}), "kubesim");
  EXPECT_EQ(json::GetString(context, {"context", "cluster"}), "kubesim");
  EXPECT_EQ(json::GetString(context, {"context", "user"}), "kubesim");
}

TEST_F(KubeconfigTest, RewriteReplacesTheFileAndLeavesNoTemporaries) {
  const std::string path = dir_ + "/config";
  ASSERT_TRUE(WriteKubeconfig(path, "https://127.0.0.1:1", "ca1", "t1").has_value());
  ASSERT_TRUE(WriteKubeconfig(path, "https://127.0.0.1:2", "ca2", "t2", "other").has_value());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("https://127.0.0.1:2"), std::string::npos);
  EXPECT_EQ(text.str().find("https://127.0.0.1:1"), std::string::npos);
  EXPECT_NE(text.str().find("name: \"other\""), std::string::npos);
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(KubeconfigTest, UnwritableDirectoryIsAnErrorNamingThePath) {
  auto s = WriteKubeconfig(dir_ + "/missing/config", "https://x", "ca", "t");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kInternal);
  EXPECT_NE(s.error().message.find("/missing/config"), std::string::npos);
}

}  // namespace
}  // namespace berth::kubesim
