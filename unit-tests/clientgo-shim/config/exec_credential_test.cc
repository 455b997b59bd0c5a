#include "clientgo-shim/config/exec_credential.h"

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

constexpr char kV1[] = "client.authentication.k8s.io/v1";

TEST(ExecCredentialTest, ParsesTokenAndExpiry) {
  auto c = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("status":{"token":"t0k","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      kV1);
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->token, "t0k");
  ASSERT_TRUE(c->expiry.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(c->expiry->time_since_epoch()).count(),
            1893553445);
}

TEST(ExecCredentialTest, ParsesClientCertificatePair) {
  auto c = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      kV1);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  EXPECT_TRUE(c->token.empty());
}

TEST(ExecCredentialTest, MalformedOutputIsRejected) {
  struct Case {
    const char* json;
    const char* message_part;
  } cases[] = {
      {"not json", "decoding stdout"},
      {"[]", "not a JSON object"},
      {R"({"kind":"Other","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t"}})",
       "want \"ExecCredential\""},
      {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
       R"("status":{"token":"t"}})",
       "plugin returned version client.authentication.k8s.io/v1beta1"},
      {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})",
       "didn't return a status field"},
      {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}})",
       "didn't return a token or cert/key pair"},
      {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
       R"("status":{"clientCertificateData":"C"}})",
       "only clientCertificateData"},
      {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
       R"("status":{"token":"t","expirationTimestamp":"tomorrow"}})",
       "expirationTimestamp"},
  };
  for (const Case& c : cases) {
    auto r = ParseExecCredential(c.json, kV1);
    ASSERT_FALSE(r.has_value()) << c.json;
    EXPECT_NE(r.error().message.find(c.message_part), std::string::npos) << r.error().message;
  }
}

TEST(ExecCredentialTest, PluginGetsArgsEnvAndExecInfo) {
  testing::TempDir dir;
  const std::string script = dir.Write("plugin.sh", R"(#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in *'"kind":"ExecCredential"'*) ;; *) exit 3 ;; esac
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s-%s"}}' "$1" "$MY_VAR"
)", true);
  ExecConfig config{.command = script, .args = {"arg1"}, .env = {{"MY_VAR", "env1"}},
                    .api_version = kV1};
  auto c = RunExecPlugin(config);
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->token, "arg1-env1");
}

TEST(ExecCredentialTest, FailingPluginReportsExitStatusStderrAndHint) {
  testing::TempDir dir;
  const std::string script =
      dir.Write("fail.sh", "#!/bin/sh\necho 'login required' >&2\nexit 2\n", true);
  ExecConfig config{.command = script, .api_version = kV1, .install_hint = "install foo",
                    .where = "kubeconfig /k: users[0].user.exec"};
  auto c = RunExecPlugin(config);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().message, "kubeconfig /k: users[0].user.exec: " + script +
                                   ": exit status 2: login required\ninstall foo");
}

TEST(ExecCredentialTest, MissingCommandCannotRun) {
  ExecConfig config{.command = "/nonexistent/berth-plugin", .api_version = kV1};
  auto c = RunExecPlugin(config);
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("/nonexistent/berth-plugin"), std::string::npos);
}

TEST(ExecCredentialTest, HangingPluginTimesOut) {
  testing::TempDir dir;
  const std::string script = dir.Write("hang.sh", "#!/bin/sh\nexec sleep 30\n", true);
  ExecConfig config{.command = script, .api_version = kV1};
  auto c = RunExecPlugin(config, std::chrono::milliseconds(200));
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("timed out"), std::string::npos) << c.error().message;
}

TEST(ExecCredentialTest, SourceCachesUntilInvalidated) {
  testing::TempDir dir;
  const std::string counter = dir.path() + "/runs";
  const std::string script = dir.Write("count.sh", "#!/bin/sh\necho x >> " + counter + R"(
n=$(wc -l < )" + counter + R"()
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"run%s"}}' $n
)", true);
  auto source = std::make_shared<ExecCredentialSource>(ExecConfig{.command = script,
                                                                  .api_version = kV1});
  auto token = ExecCredentialSource::TokenSource(source);
  EXPECT_EQ(token(), "run1");
  EXPECT_EQ(token(), "run1");
  ExecCredentialSource::UnauthorizedHook(source)();
  EXPECT_EQ(token(), "run2");
}

TEST(ExecCredentialTest, ExpiredCredentialIsRefreshed) {
  testing::TempDir dir;
  const std::string counter = dir.path() + "/runs";
  // Expiry in the past: every Get re-runs the plugin.
  const std::string script = dir.Write("count.sh", "#!/bin/sh\necho x >> " + counter + R"(
n=$(wc -l < )" + counter + R"()
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"run%s","expirationTimestamp":"2000-01-01T00:00:00Z"}}' $n
)", true);
  ExecCredentialSource source(ExecConfig{.command = script, .api_version = kV1});
  EXPECT_EQ(source.Get().value().token, "run1");
  EXPECT_EQ(source.Get().value().token, "run2");
}

}  // namespace
}  // namespace berth::shim
