// Tests for GrpcNodeGroupPort's NodeGroupForNode cache against a real in-process gRPC provider
// and a Node informer fed by a scripted API server. Upstream's externalgrpc client caches a
// non-empty answer until the next Refresh and never caches "" (not managed), so a node the
// provider does not know yet is asked about again.
#include "controllers/provisioning/externalgrpc/scale_up.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>

#include "clientgo-shim/watch/fake_rest_client.h"

namespace berth::controllers::externalgrpc {
namespace {

using shim::testing::FakeRestClient;
using shim::testing::ListJson;

class Provider final : public pb::CloudProvider::Service {
 public:
  std::atomic<bool> knows_node{false};  // whether pool-0 is in group "pool" yet
  std::atomic<int> for_node_calls{0};
  std::atomic<int> refresh_calls{0};

  grpc::Status Refresh(grpc::ServerContext*, const pb::RefreshRequest*, pb::RefreshResponse*) override {
    ++refresh_calls;
    return grpc::Status::OK;
  }
  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*, pb::NodeGroupsResponse* out) override {
    auto* g = out->add_nodegroups();
    g->set_id("pool");
    g->set_maxsize(5);
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupTargetSize(grpc::ServerContext*, const pb::NodeGroupTargetSizeRequest*,
                                   pb::NodeGroupTargetSizeResponse* out) override {
    out->set_targetsize(1);
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupForNode(grpc::ServerContext*, const pb::NodeGroupForNodeRequest* req,
                                pb::NodeGroupForNodeResponse* out) override {
    ++for_node_calls;
    if (knows_node && req->node().providerid() == "fake://pool/pool-0") {
      out->mutable_nodegroup()->set_id("pool");
      out->mutable_nodegroup()->set_maxsize(5);
    }
    return grpc::Status::OK;
  }
};

class PortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&provider_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port_, 0);
    auto api = std::make_shared<FakeRestClient>();
    api->QueueListBody(ListJson({NodeJson()}, "10"));
    shim::SharedInformerOptions o;
    o.list_watch.path = "/api/v1/nodes";
    o.rng_seed = 1;
    nodes_ = std::make_shared<shim::SharedInformer>(api, o);
    nodes_->Start();
    ASSERT_TRUE(nodes_->WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
    CloudConfig config;
    config.address = "127.0.0.1:" + std::to_string(port_);
    config.grpc_timeout = std::chrono::seconds(5);
    auto client = ExternalGrpcClient::Create(config);
    ASSERT_TRUE(client) << client.error().message;
    port_under_test_ = std::make_unique<GrpcNodeGroupPort>(std::move(*client), nodes_);
  }
  void TearDown() override {
    port_under_test_.reset();
    nodes_->Stop();
    server_->Shutdown(std::chrono::system_clock::now());
  }
  // pool-0, not Ready (no conditions) unless a suite says otherwise.
  virtual std::string NodeJson() const {
    return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"pool-0","resourceVersion":"5"},)"
           R"("spec":{"providerID":"fake://pool/pool-0"}})";
  }
  size_t Registered() {
    auto r = port_under_test_->RegisteredNodes("pool");
    EXPECT_TRUE(r) << r.error();
    return r ? r->size() : 0;
  }

  Provider provider_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<shim::SharedInformer> nodes_;
  std::unique_ptr<GrpcNodeGroupPort> port_under_test_;
};

TEST_F(PortTest, ANodeTheProviderDidNotKnowYetIsAskedAboutAgain) {
  // The Node registered before the provider recorded its instance: "" (not managed), not cached.
  EXPECT_EQ(Registered(), 0u);
  provider_.knows_node = true;
  EXPECT_EQ(Registered(), 1u);
  EXPECT_EQ(provider_.for_node_calls, 2);
}

TEST_F(PortTest, AGroupAnswerIsCachedUntilTheNextRefresh) {
  provider_.knows_node = true;
  EXPECT_EQ(Registered(), 1u);
  EXPECT_EQ(Registered(), 1u);
  EXPECT_EQ(provider_.for_node_calls, 1);  // cached
  provider_.knows_node = false;            // e.g. the instance left the group
  EXPECT_EQ(Registered(), 1u);             // still the cached answer
  ASSERT_TRUE(port_under_test_->NodeGroups());  // Refresh drops the cache, as upstream's client
  EXPECT_EQ(provider_.refresh_calls, 1);
  EXPECT_EQ(Registered(), 0u);
}

// A provider may leave NodeGroupTemplateNodeInfo unimplemented: Cluster Autoscaler's
// MixedTemplateNodeInfoProvider copies a ready, schedulable Node of the group first and asks the
// provider only for groups without one.
class ReadyNodePortTest : public PortTest {
 protected:
  std::string NodeJson() const override {
    return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"pool-0","resourceVersion":"5",)"
           R"("labels":{"kubernetes.io/hostname":"pool-0","tier":"gpu"}},)"
           R"("spec":{"providerID":"fake://pool/pool-0","taints":[{"key":"dedicated","value":"ml","effect":"NoSchedule"}]},)"
           R"("status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},)"
           R"("conditions":[{"type":"Ready","status":"True"}]}})";
  }
};

TEST_F(ReadyNodePortTest, AGroupWithAReadyNodeHasThatNodeAsItsTemplate) {
  provider_.knows_node = true;
  auto groups = port_under_test_->NodeGroups();
  ASSERT_TRUE(groups) << groups.error();
  ASSERT_EQ(groups->size(), 1u);
  const auto& g = (*groups)[0];
  ASSERT_TRUE(g.template_node.has_value()) << g.template_error;
  EXPECT_EQ(g.template_node->allocatable.at("cpu"), 4000);
  EXPECT_EQ(g.template_node->labels.at("tier"), "gpu");
  ASSERT_EQ(g.template_node->taints.size(), 1u);
  EXPECT_EQ(g.template_node->taints[0].key, "dedicated");
}

TEST_F(ReadyNodePortTest, ANodeOfNoGroupIsNoTemplate) {
  // The provider says pool-0 is not managed: "pool" has no node to copy, and the provider does
  // not implement NodeGroupTemplateNodeInfo.
  auto groups = port_under_test_->NodeGroups();
  ASSERT_TRUE(groups) << groups.error();
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_FALSE((*groups)[0].template_node.has_value());
  EXPECT_EQ((*groups)[0].template_error, "NodeGroupTemplateNodeInfo is not implemented");
}

}  // namespace
}  // namespace berth::controllers::externalgrpc
