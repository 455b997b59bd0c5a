// Tests for controllers/provisioning/externalgrpc/client.h against a real in-process gRPC server
// on loopback: the wire (method paths, field numbers via the generated code), per-call deadlines,
// UNIMPLEMENTED, and error messages.
#include "controllers/provisioning/externalgrpc/client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace berth::controllers::externalgrpc {
namespace {

class FakeProvider final : public pb::CloudProvider::Service {
 public:
  // hold_increase: NodeGroupIncreaseSize answers only once its caller has given up (its deadline
  // passed, so gRPC cancelled the call) or the server shuts down.
  std::atomic<bool> hold_increase{false};
  std::atomic<int> last_delta{0};
  std::string last_id;

  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*, pb::NodeGroupsResponse* out) override {
    auto* g = out->add_nodegroups();
    g->set_id("pool");
    g->set_minsize(0);
    g->set_maxsize(7);
    g->set_debug("d");
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupTargetSize(grpc::ServerContext*, const pb::NodeGroupTargetSizeRequest* req,
                                   pb::NodeGroupTargetSizeResponse* out) override {
    if (req->id() != "pool") return {grpc::StatusCode::NOT_FOUND, "NodeGroup \"" + req->id() + "\", not found"};
    out->set_targetsize(3);
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupIncreaseSize(grpc::ServerContext* context, const pb::NodeGroupIncreaseSizeRequest* req,
                                     pb::NodeGroupIncreaseSizeResponse*) override {
    if (hold_increase) {
      // gRPC's sync server offers no wake-up on cancellation: look every few milliseconds.
      while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return {grpc::StatusCode::CANCELLED, "caller gave up"};
    }
    last_delta = req->delta();
    last_id = req->id();
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupDecreaseTargetSize(grpc::ServerContext*, const pb::NodeGroupDecreaseTargetSizeRequest* req,
                                           pb::NodeGroupDecreaseTargetSizeResponse*) override {
    last_delta = req->delta();
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupForNode(grpc::ServerContext*, const pb::NodeGroupForNodeRequest* req,
                                pb::NodeGroupForNodeResponse* out) override {
    if (req->node().providerid() == "fake://pool/n1" && req->node().labels().at("a") == "b") {
      out->mutable_nodegroup()->set_id("pool");
    }
    return grpc::Status::OK;
  }
  // NodeGroupTemplateNodeInfo left out: the base class answers UNIMPLEMENTED.
};

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override { server_->Shutdown(std::chrono::system_clock::now()); }
  std::unique_ptr<ExternalGrpcClient> Client(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    auto c = ExternalGrpcClient::Create({.address = "127.0.0.1:" + std::to_string(port_), .grpc_timeout = timeout});
    EXPECT_TRUE(c) << c.error().message;
    return std::move(*c);
  }

  FakeProvider service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(ClientTest, CallsReachTheServiceWithTheirFields) {
  auto client = Client();
  auto groups = client->NodeGroups();
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].id(), "pool");
  EXPECT_EQ((*groups)[0].maxsize(), 7);
  EXPECT_EQ(client->NodeGroupTargetSize("pool"), 3);
  ASSERT_TRUE(client->NodeGroupIncreaseSize("pool", 2));
  EXPECT_EQ(service_.last_delta, 2);
  EXPECT_EQ(service_.last_id, "pool");
  ASSERT_TRUE(client->NodeGroupDecreaseTargetSize("pool", -2));
  EXPECT_EQ(service_.last_delta, -2);
  pb::ExternalGrpcNode node;
  node.set_name("n1");
  node.set_providerid("fake://pool/n1");
  (*node.mutable_labels())["a"] = "b";
  EXPECT_EQ(client->NodeGroupForNode(node)->id(), "pool");
  node.set_providerid("other://x");
  EXPECT_EQ(client->NodeGroupForNode(node)->id(), "");  // not managed
}

TEST_F(ClientTest, ErrorsCarryTheRpcAndItsCode) {
  auto client = Client();
  auto missing = client->NodeGroupTargetSize("nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "rpc NodeGroupTargetSize: NotFound: NodeGroup \"nope\", not found");
  auto tmpl = client->NodeGroupTemplateNodeInfo("pool");
  ASSERT_FALSE(tmpl);
  EXPECT_TRUE(tmpl.error().Unimplemented());
  EXPECT_FALSE(missing.error().Unimplemented());
}

TEST_F(ClientTest, EveryCallHasItsOwnDeadline) {
  // 2 s, not less: the second call's whole round trip has to fit into it under TSan on a loaded
  // machine (a 200 ms deadline failed there). The held call costs the test that long.
  auto client = Client(std::chrono::seconds(2));
  service_.hold_increase = true;
  auto slow = client->NodeGroupIncreaseSize("pool", 1);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().code, static_cast<int>(grpc::StatusCode::DEADLINE_EXCEEDED));
  EXPECT_NE(slow.error().message.find("rpc NodeGroupIncreaseSize: DeadlineExceeded"), std::string::npos);
  service_.hold_increase = false;
  EXPECT_TRUE(client->NodeGroupIncreaseSize("pool", 1));  // the next call has a fresh deadline
}

TEST(ClientCreateTest, NothingListeningIsAnErrorAtCallTimeNotAtCreate) {
  // A refused connection fails the call at once; the deadline only bounds a machine so slow
  // (TSan, load) that gRPC has not tried to connect yet, which would read DEADLINE_EXCEEDED.
  auto c = ExternalGrpcClient::Create({.address = "127.0.0.1:1", .grpc_timeout = std::chrono::seconds(10)});
  ASSERT_TRUE(c);
  auto groups = (*c)->NodeGroups();
  ASSERT_FALSE(groups);
  EXPECT_EQ(groups.error().code, static_cast<int>(grpc::StatusCode::UNAVAILABLE));
}

TEST(ClientCreateTest, TlsFilesMustBeReadable) {
  auto c = ExternalGrpcClient::Create(
      {.address = "a:1", .key = "/nonexistent/k", .cert = "/nonexistent/c", .cacert = "/nonexistent/ca"});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "cloud provider TLS cert /nonexistent/c: cannot be read");
  EXPECT_FALSE(ExternalGrpcClient::Create({.address = "no-port"}));
}

}  // namespace
}  // namespace berth::controllers::externalgrpc
