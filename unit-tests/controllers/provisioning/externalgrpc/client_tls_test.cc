// Tests for the TLS side of controllers/provisioning/externalgrpc/client.h against a real
// in-process gRPC server that requires and verifies client certificates (as upstream's example
// server does with --key-cert/--cert/--ca-cert): a client with cert/key/cacert gets through; a
// plaintext client, or one trusting another CA, does not. Certificates come from the openssl CLI.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "controllers/provisioning/externalgrpc/client.h"

namespace berth::controllers::externalgrpc {
namespace {

namespace fs = std::filesystem;

class GroupsOnly final : public pb::CloudProvider::Service {
  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*, pb::NodeGroupsResponse* out) override {
    out->add_nodegroups()->set_id("pool");
    return grpc::Status::OK;
  }
};

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// MakePki writes <dir>/{ca,other-ca,server,client}.{crt,key}: server for IP:127.0.0.1, client with
// clientAuth, both signed by ca; other-ca signs nothing.
bool MakePki(const fs::path& dir) {
  const std::string d = dir.string();
  std::ofstream(dir / "server.ext") << "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
  std::ofstream(dir / "client.ext") << "extendedKeyUsage=clientAuth\n";
  const std::string q = " >/dev/null 2>&1";
  const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  std::vector<std::string> steps = {
      "openssl req -x509" + ec + " -keyout " + d + "/ca.key -out " + d + "/ca.crt -days 1 -subj /CN=test-ca" + q,
      "openssl req -x509" + ec + " -keyout " + d + "/other-ca.key -out " + d + "/other-ca.crt -days 1 -subj /CN=other" + q,
  };
  for (const char* leaf : {"server", "client"}) {
    const std::string l = d + "/" + leaf;
    steps.push_back("openssl req -new" + ec + " -keyout " + l + ".key -out " + l + ".csr -subj /CN=" + leaf + q);
    steps.push_back("openssl x509 -req -in " + l + ".csr -CA " + d + "/ca.crt -CAkey " + d +
                    "/ca.key -CAcreateserial -days 1 -extfile " + l + ".ext -out " + l + ".crt" + q);
  }
  for (const std::string& step : steps) {
    if (std::system(step.c_str()) != 0) return false;
  }
  return true;
}

class ClientTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("berth-grpc-tls-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ASSERT_TRUE(MakePki(dir_)) << "openssl could not make the test certificates";
    grpc::SslServerCredentialsOptions ssl(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = Read(dir_ / "ca.crt");
    ssl.pem_key_cert_pairs.push_back({Read(dir_ / "server.key"), Read(dir_ / "server.crt")});
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(ssl), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
    fs::remove_all(dir_);
  }
  CloudConfig Config() const {
    return {.address = "127.0.0.1:" + std::to_string(port_), .key = (dir_ / "client.key").string(),
            .cert = (dir_ / "client.crt").string(), .cacert = (dir_ / "ca.crt").string(),
            .grpc_timeout = std::chrono::seconds(5)};
  }

  fs::path dir_;
  GroupsOnly service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(ClientTlsTest, MutualTlsWithTheConfiguredFilesWorks) {
  auto client = ExternalGrpcClient::Create(Config());
  ASSERT_TRUE(client) << client.error().message;
  auto groups = (*client)->NodeGroups();
  ASSERT_TRUE(groups) << groups.error().message;
  EXPECT_EQ((*groups)[0].id(), "pool");
}

TEST_F(ClientTlsTest, PlaintextOrAnotherCaIsRejected) {
  CloudConfig plain = Config();
  plain.cert.clear();  // upstream: no cert means plaintext, even with key and cacert set
  plain.grpc_timeout = std::chrono::seconds(2);
  auto insecure = ExternalGrpcClient::Create(plain);
  ASSERT_TRUE(insecure);
  EXPECT_FALSE((*insecure)->NodeGroups());

  CloudConfig other = Config();
  other.cacert = (dir_ / "other-ca.crt").string();
  // The handshake fails the call at once; a short deadline could win the race on a slow machine.
  other.grpc_timeout = std::chrono::seconds(10);
  auto untrusted = ExternalGrpcClient::Create(other);
  ASSERT_TRUE(untrusted);
  auto groups = (*untrusted)->NodeGroups();
  ASSERT_FALSE(groups);
  EXPECT_EQ(groups.error().code, static_cast<int>(grpc::StatusCode::UNAVAILABLE));
}

}  // namespace
}  // namespace berth::controllers::externalgrpc
