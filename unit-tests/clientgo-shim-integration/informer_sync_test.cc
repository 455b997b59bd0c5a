// Informers against an in-process kubesim over HTTPS: the cache converges to the server's full
// state after creates, updates and deletes, and a factory shares one watch per key.
#include <memory>

#include <gtest/gtest.h>

#include "clientgo-shim/informer/shared_informer_factory.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;

SteadyTime In(std::chrono::seconds s) { return std::chrono::steady_clock::now() + s; }

class InformerSyncTest : public CountedClusterTest<> {
 protected:
  void SetUp() override { StartCluster(); }
};

TEST_F(InformerSyncTest, TheCacheEqualsTheServerAfterCreatesUpdatesAndDeletes) {
  Writer w(*sim_);
  for (int i = 0; i < 30; ++i) w.Create("default", "pre-" + std::to_string(i), "node-" + std::to_string(i % 3));
  SharedInformerOptions o;
  o.list_watch.path = "/api/v1/pods";
  o.list_watch.page_size = 7;  // several pages
  o.indexers = {{kNodeNameIndex, NodeNameIndexFunc()}};
  SharedInformer informer(client_, o);
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(In(std::chrono::seconds(10))));
  EXPECT_EQ(informer.store().Size(), 30u);
  EXPECT_GE(client_->lists.load(), 5);  // 30 pods in pages of 7

  w.CreateNamespace("team-a");
  for (int i = 0; i < 20; ++i) w.Create("team-a", "new-" + std::to_string(i));
  for (int i = 0; i < 15; ++i) w.Relabel("default", "pre-" + std::to_string(i), "v2");
  for (int i = 10; i < 20; ++i) w.Delete("default", "pre-" + std::to_string(i));
  for (int i = 0; i < 5; ++i) w.Delete("team-a", "new-" + std::to_string(i));
  EXPECT_TRUE(EventuallyEqual(*sim_, informer.store(), std::chrono::seconds(15)));
  EXPECT_EQ(informer.store().Size(), 20u + 15u);
  auto on_node0 = informer.store().ByIndex(kNodeNameIndex, "node-0");
  ASSERT_TRUE(on_node0);
  size_t expected = 0;
  for (int i = 0; i < 30; ++i) expected += (i % 3 == 0 && (i < 10 || i >= 20)) ? 1 : 0;
  EXPECT_EQ(on_node0->size(), expected);
  informer.Stop();
}

TEST_F(InformerSyncTest, TwoInformersFromTheFactoryShareOneReflector) {
  Writer w(*sim_);
  for (int i = 0; i < 5; ++i) w.Create("default", "p" + std::to_string(i));
  SharedInformerFactory factory(client_);
  auto controller_a = factory.InformerFor({"/api/v1/pods"});
  auto controller_b = factory.InformerFor({"/api/v1/pods"});
  ASSERT_EQ(controller_a.get(), controller_b.get());
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(In(std::chrono::seconds(10))));
  w.Create("default", "late");
  EXPECT_TRUE(EventuallyEqual(*sim_, controller_b->store(), std::chrono::seconds(10)));
  EXPECT_EQ(client_->lists.load(), 1);
  EXPECT_EQ(controller_a->Stats().watch_requests, 1u);
  EXPECT_EQ(controller_a->Stats().lists_completed, 1u);
  factory.Stop();
}

TEST_F(InformerSyncTest, LabelSelectorsLimitTheCacheToMatchingObjects) {
  Writer w(*sim_);
  w.Create("default", "web-1", "", "web");
  w.Create("default", "db-1", "", "db");
  SharedInformerFactory factory(client_);
  auto web = factory.InformerFor({"/api/v1/pods", "app=web"});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(In(std::chrono::seconds(10))));
  w.Create("default", "web-2", "", "web");
  w.Create("default", "db-2", "", "db");
  ASSERT_TRUE(WaitUntil([&] { return web->store().Size() == 2 && web->store().Get("default/web-2"); }));
  EXPECT_EQ(web->store().Get("default/db-1"), nullptr);
  EXPECT_EQ(web->store().Get("default/db-2"), nullptr);
  factory.Stop();
}

}  // namespace
}  // namespace berth::shim
