#include "clientgo-shim/config/kubeconfig.h"

#include <gtest/gtest.h>

#include "clientgo-shim/config/temp_dir.h"

namespace berth::shim {
namespace {

// "CA-PEM" and friends in base64: the parser does not look inside PEM (MakeRestClient does).
constexpr char kCaB64[] = "Q0EtUEVN";      // CA-PEM
constexpr char kCertB64[] = "Q0VSVC1QRU0=";  // CERT-PEM
constexpr char kKeyB64[] = "S0VZLVBFTQ==";   // KEY-PEM

std::string Config(const std::string& cluster, const std::string& user,
                   const std::string& extra_contexts = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "clusters:\n- name: c1\n  cluster:\n" + cluster +
         "users:\n- name: u1\n  user:\n" + user +
         "contexts:\n- name: main\n  context:\n    cluster: c1\n    user: u1\n"
         "    namespace: team-a\n" + extra_contexts;
}

Result<RestConfig> Parse(const std::string& text, const std::string& path = "/k/config",
                         KubeconfigOptions options = {}) {
  return ParseKubeconfig(text, path, options);
}

void ExpectError(const Result<RestConfig>& r, const std::string& message) {
  ASSERT_FALSE(r.has_value()) << "expected error: " << message;
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message, message);
}

TEST(KubeconfigTest, CurrentContextGivesServerCaTokenAndNamespace) {
  auto r = Parse(Config(std::string("    server: https://10.0.0.1:6443\n") +
                            "    certificate-authority-data: " + kCaB64 + "\n",
                        "    token: abc\n"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://10.0.0.1:6443");
  EXPECT_EQ(r->ca_pem, "CA-PEM");
  ASSERT_TRUE(r->token_source);
  EXPECT_EQ(r->token_source(), "abc");
  EXPECT_EQ(r->default_namespace, "team-a");
  EXPECT_FALSE(r->insecure_skip_tls_verify);
  EXPECT_EQ(r->source, "kubeconfig /k/config, context \"main\"");
}

TEST(KubeconfigTest, ChosenContextOverridesCurrentContext) {
  const std::string text = Config("    server: https://a:1\n", "    token: abc\n",
                                  "- name: other\n  context:\n    cluster: c1\n");
  auto r = Parse(text, "/k/config", {.context = "other"});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->default_namespace, "default");
  EXPECT_FALSE(r->token_source);  // the other context has no user
}

TEST(KubeconfigTest, UnknownContextNamesFileAndContext) {
  ExpectError(Parse(Config("    server: https://a:1\n", "    token: t\n"), "/x/config",
                    {.context = "foo"}),
              "kubeconfig /x/config: context \"foo\" not found");
  ExpectError(Parse("current-context: gone\n", "/x/config"),
              "kubeconfig /x/config: context \"gone\" not found");
}

TEST(KubeconfigTest, MissingCurrentContextIsAnError) {
  ExpectError(Parse("apiVersion: v1\nkind: Config\n"),
              "kubeconfig /k/config: current-context is not set and no context was chosen");
  ExpectError(Parse(""), "kubeconfig /k/config: current-context is not set and no context was "
                         "chosen");
}

TEST(KubeconfigTest, UnknownClusterAndUserAreNamedWithTheirField) {
  ExpectError(Parse("current-context: a\ncontexts:\n- name: a\n  context:\n    cluster: nope\n"),
              "kubeconfig /k/config: contexts[0].context.cluster: cluster \"nope\" not found");
  ExpectError(Parse("current-context: a\nclusters:\n- name: c\n  cluster:\n    server: https://s\n"
                    "contexts:\n- name: a\n  context:\n    cluster: c\n    user: who\n"),
              "kubeconfig /k/config: contexts[0].context.user: user \"who\" not found");
  ExpectError(Parse("current-context: a\ncontexts:\n- name: a\n  context: {}\n"),
              "kubeconfig /k/config: contexts[0].context.cluster: required");
}

TEST(KubeconfigTest, MissingServerIsAnError) {
  ExpectError(Parse(Config("    insecure-skip-tls-verify: true\n", "    token: t\n")),
              "kubeconfig /k/config: clusters[0].cluster.server: required");
}

TEST(KubeconfigTest, MalformedYamlNamesTheFile) {
  auto r = Parse("clusters: [\n  - name: a\n", "/bad/config");
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().message.starts_with("kubeconfig /bad/config: yaml: line"))
      << r.error().message;
}

TEST(KubeconfigTest, WrongShapesAreRejected) {
  ExpectError(Parse("- a\n- b\n"), "kubeconfig /k/config: not a kubeconfig (top level is not a map)");
  ExpectError(Parse("clusters: {}\ncurrent-context: a\n"),
              "kubeconfig /k/config: clusters: must be a list");
  ExpectError(Parse("users:\n- 7\n"), "kubeconfig /k/config: users[0]: must be an object");
  ExpectError(Parse("contexts:\n- context: {}\n"), "kubeconfig /k/config: contexts[0].name: required");
  ExpectError(Parse("clusters:\n- name: c\n  cluster: [1]\n"),
              "kubeconfig /k/config: clusters[0].cluster: must be an object");
  ExpectError(Parse("kind: Pod\n"), "kubeconfig /k/config: kind: \"Pod\" is not Config");
  ExpectError(Parse(Config("    server: https://a:1\n    insecure-skip-tls-verify: \"yes\"\n",
                           "    token: t\n")),
              "kubeconfig /k/config: clusters[0].cluster.insecure-skip-tls-verify: must be a "
              "boolean");
  ExpectError(Parse(Config("    server: https://a:1\n", "    token: 12\n")),
              "kubeconfig /k/config: users[0].user.token: must be a string");
}

TEST(KubeconfigTest, BadBase64NamesTheField) {
  ExpectError(Parse(Config("    server: https://a:1\n    certificate-authority-data: 'Q0!!'\n",
                           "    token: t\n")),
              "kubeconfig /k/config: clusters[0].cluster.certificate-authority-data: illegal "
              "base64 data at input byte 2");
  ExpectError(Parse(Config("    server: https://a:1\n", "    client-certificate-data: x\n"
                                                        "    client-key-data: " +
                                                            std::string(kKeyB64) + "\n")),
              "kubeconfig /k/config: users[0].user.client-certificate-data: illegal base64 data "
              "at input byte 1");
}

TEST(KubeconfigTest, ClientCertificateDataPairIsDecoded) {
  auto r = Parse(Config("    server: https://a:1\n", std::string("    client-certificate-data: ") +
                                                          kCertB64 + "\n    client-key-data: " +
                                                          kKeyB64 + "\n"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->client_cert_pem, "CERT-PEM");
  EXPECT_EQ(r->client_key_pem, "KEY-PEM");
  EXPECT_FALSE(r->token_source);
}

TEST(KubeconfigTest, CertificateWithoutKeyIsAnError) {
  ExpectError(Parse(Config("    server: https://a:1\n",
                           std::string("    client-certificate-data: ") + kCertB64 + "\n")),
              "kubeconfig /k/config: users[0].user.client-certificate: given without client-key");
}

TEST(KubeconfigTest, RelativeFilePathsResolveAgainstTheKubeconfigDirectory) {
  testing::TempDir dir;
  dir.Write("pki/ca.crt", "CA-FROM-FILE");
  dir.Write("pki/client.crt", "CERT-FROM-FILE");
  dir.Write("pki/client.key", "KEY-FROM-FILE");
  dir.Write("token", "file-token\n");
  const std::string path = dir.Write(
      "config", Config("    server: https://a:1\n    certificate-authority: pki/ca.crt\n",
                       "    client-certificate: pki/client.crt\n"
                       "    client-key: pki/client.key\n    tokenFile: token\n"));
  auto r = LoadKubeconfig({path});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->ca_pem, "CA-FROM-FILE");
  EXPECT_EQ(r->client_cert_pem, "CERT-FROM-FILE");
  EXPECT_EQ(r->client_key_pem, "KEY-FROM-FILE");
  ASSERT_TRUE(r->token_source);
  EXPECT_EQ(r->token_source(), "file-token");
}

TEST(KubeconfigTest, UnreadableReferencedFileNamesKubeconfigFieldAndPath) {
  ExpectError(Parse(Config("    server: https://a:1\n", "    client-certificate: /a/b\n"
                                                        "    client-key: /a/c\n"),
                    "/x/config"),
              "kubeconfig /x/config: users[0].user.client-certificate: cannot read /a/b: No such "
              "file or directory");
  ExpectError(Parse(Config("    server: https://a:1\n    certificate-authority: ca.crt\n",
                           "    token: t\n"),
                    "/x/config"),
              "kubeconfig /x/config: clusters[0].cluster.certificate-authority: cannot read "
              "/x/ca.crt: No such file or directory");
  ExpectError(Parse(Config("    server: https://a:1\n", "    tokenFile: /no/token\n"), "/x/config"),
              "kubeconfig /x/config: users[0].user.tokenFile: cannot read /no/token: No such file "
              "or directory");
}

TEST(KubeconfigTest, MissingKubeconfigFileIsNamed) {
  auto r = LoadKubeconfig({"/nonexistent/kubeconfig"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "kubeconfig /nonexistent/kubeconfig: cannot read /nonexistent/kubeconfig: No such "
            "file or directory");
}

TEST(KubeconfigTest, TokenFileWinsOverTokenAndIsReread) {
  testing::TempDir dir;
  const std::string token = dir.Write("token", "first");
  const std::string path = dir.Write(
      "config", Config("    server: https://a:1\n", "    token: inline\n    tokenFile: token\n"));
  auto r = LoadKubeconfig({path}, {.token_file_period = std::chrono::milliseconds(0)});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->token_source(), "first");
  dir.Write("token", "second");
  EXPECT_EQ(r->token_source(), "second");
}

TEST(KubeconfigTest, InsecureWithCaIsRejected) {
  ExpectError(Parse(Config(std::string("    server: https://a:1\n    insecure-skip-tls-verify: "
                                       "true\n    certificate-authority-data: ") + kCaB64 + "\n",
                           "    token: t\n")),
              "kubeconfig /k/config: clusters[0].cluster.insecure-skip-tls-verify: specifying a "
              "root certificates file with the insecure flag is not allowed");
  auto r = Parse(Config("    server: https://a:1\n    insecure-skip-tls-verify: true\n"
                        "    tls-server-name: api.internal\n",
                        "    token: t\n"));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->insecure_skip_tls_verify);
  EXPECT_EQ(r->tls_server_name, "api.internal");
}

TEST(KubeconfigTest, AuthProviderIsRejected) {
  ExpectError(Parse(Config("    server: https://a:1\n", "    auth-provider:\n      name: gcp\n")),
              "kubeconfig /k/config: users[0].user.auth-provider: not supported; use an exec "
              "credential plugin");
}

TEST(KubeconfigTest, ExecPluginSuppliesTheToken) {
  testing::TempDir dir;
  dir.Write("plugin.sh",
            "#!/bin/sh\nprintf '{\"kind\":\"ExecCredential\",\"apiVersion\":"
            "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"%s\"}}' \"$TOKEN\"\n",
            true);
  // A relative command is looked up on PATH; give the absolute path via the kubeconfig dir.
  const std::string path = dir.Write(
      "config", Config("    server: https://a:1\n",
                       "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                       "      command: " + dir.path() + "/plugin.sh\n"
                       "      env:\n      - name: TOKEN\n        value: from-exec\n"
                       "      interactiveMode: Never\n"));
  auto r = LoadKubeconfig({path});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_TRUE(r->token_source);
  EXPECT_EQ(r->token_source(), "from-exec");
  EXPECT_TRUE(static_cast<bool>(r->on_unauthorized));
}

TEST(KubeconfigTest, ExecStanzaErrorsNameTheField) {
  ExpectError(Parse(Config("    server: https://a:1\n",
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n")),
              "kubeconfig /k/config: users[0].user.exec.command: required");
  ExpectError(Parse(Config("    server: https://a:1\n",
                           "    exec:\n      command: x\n      apiVersion: v1\n")),
              "kubeconfig /k/config: users[0].user.exec.apiVersion: \"v1\" is not "
              "client.authentication.k8s.io/v1 or v1beta1");
  ExpectError(Parse(Config("    server: https://a:1\n",
                           "    exec:\n      command: x\n      apiVersion: "
                           "client.authentication.k8s.io/v1\n      args: a\n")),
              "kubeconfig /k/config: users[0].user.exec.args: must be a list of strings");
  ExpectError(Parse(Config("    server: https://a:1\n",
                           "    exec:\n      command: x\n      apiVersion: "
                           "client.authentication.k8s.io/v1\n      env:\n      - value: v\n")),
              "kubeconfig /k/config: users[0].user.exec.env[0].name: required");
}

TEST(KubeconfigTest, FailingExecPluginFailsTheLoad) {
  auto r = Parse(Config("    server: https://a:1\n",
                        "    exec:\n      command: /nonexistent/plugin\n      apiVersion: "
                        "client.authentication.k8s.io/v1beta1\n"));
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().message.starts_with(
      "kubeconfig /k/config: users[0].user.exec: /nonexistent/plugin: "))
      << r.error().message;
}

TEST(KubeconfigTest, MergedFilesFirstDefinitionWins) {
  testing::TempDir dir;
  const std::string a = dir.Write("a", "current-context: ctx\nclusters:\n- name: c\n  cluster:\n"
                                       "    server: https://first:1\n");
  const std::string b = dir.Write(
      "b", "current-context: ignored\nclusters:\n- name: c\n  cluster:\n    server: https://second:1\n"
           "contexts:\n- name: ctx\n  context:\n    cluster: c\n");
  auto r = LoadKubeconfig({a, b});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->server, "https://first:1");
  EXPECT_EQ(r->source, "kubeconfig " + b + ", context \"ctx\"");
}

}  // namespace
}  // namespace berth::shim
