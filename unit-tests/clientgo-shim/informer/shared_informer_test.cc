#include "clientgo-shim/informer/shared_informer.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "clientgo-shim/informer/shared_informer_factory.h"
#include "clientgo-shim/watch/fake_rest_client.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
using std::chrono::milliseconds;

SteadyTime Soon() { return std::chrono::steady_clock::now() + std::chrono::seconds(5); }

SharedInformerOptions Pods() {
  SharedInformerOptions o;
  o.list_watch.path = "/api/v1/pods";
  o.list_watch.backoff.initial = milliseconds(1);
  o.rng_seed = 3;
  return o;
}

// Thread-safe record of handler calls.
struct Calls {
  std::mutex mu;
  std::vector<std::string> lines;
  EventHandler Handler() {
    return {[this](const ObjectPtr& o, bool initial) {
              Add("add " + std::string(o->Key()) + (initial ? " initial" : ""));
            },
            [this](const ObjectPtr&, const ObjectPtr& n) { Add("update " + std::string(n->Key())); },
            [this](const DeletedObject& d) { Add("delete " + d.key); }};
  }
  void Add(std::string s) {
    std::lock_guard lock(mu);
    lines.push_back(std::move(s));
  }
  std::vector<std::string> Get() {
    std::lock_guard lock(mu);
    return lines;
  }
};

TEST(SharedInformerTest, AHandlerAddedAfterSyncGetsSyntheticAddsThenLiveEvents) {
  auto client = std::make_shared<FakeRestClient>();
  client->QueueListBody(ListJson({PodJson("a", "p1", "1"), PodJson("a", "p2", "2")}, "5"));
  SharedInformer informer(client, Pods());
  Calls early;
  informer.AddEventHandler(early.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(Soon()));
  Calls late;
  informer.AddEventHandler(late.Handler());
  auto sorted = late.Get();
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"add a/p1 initial", "add a/p2 initial"}));
  client->PushWatch({{EventJson("MODIFIED", PodJson("a", "p1", "6"))}, {}, true});
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return late.Get().size() == 3; }));
  EXPECT_EQ(late.Get().back(), "update a/p1");
  EXPECT_EQ(early.Get().size(), 3u);  // two initial adds from the list, then the update
  EXPECT_EQ(early.Get().back(), "update a/p1");
  informer.Stop();
}

TEST(SharedInformerTest, IndexersGivenAtConstructionOrLaterServeByIndex) {
  auto client = std::make_shared<FakeRestClient>();
  client->QueueListBody(ListJson({PodJson("a", "p1", "1", "n1"), PodJson("b", "p2", "2", "n2")}, "5"));
  SharedInformerOptions o = Pods();
  o.indexers = {{kNodeNameIndex, NodeNameIndexFunc()}};
  SharedInformer informer(client, o);
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(Soon()));
  ASSERT_TRUE(informer.AddIndexers({{kNamespaceIndex, NamespaceIndexFunc()}}));
  auto on_n2 = informer.store().ByIndex(kNodeNameIndex, "n2");
  ASSERT_TRUE(on_n2);
  ASSERT_EQ(on_n2->size(), 1u);
  EXPECT_EQ((*on_n2)[0]->Key(), "b/p2");
  auto in_a = informer.store().ByIndex(kNamespaceIndex, "a");
  ASSERT_TRUE(in_a);
  ASSERT_EQ(in_a->size(), 1u);
  EXPECT_EQ((*in_a)[0]->Key(), "a/p1");
  EXPECT_FALSE(informer.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}}));
}

TEST(SharedInformerFactoryTest, TheSameKeyYieldsOneInformerAndOneWatch) {
  auto client = std::make_shared<FakeRestClient>();
  client->list_handler = [](const RestRequest& r) -> Result<RestResponse> {
    return RestResponse{200, ListJson({PodJson("a", "p1", "1")}, "5"), {}};
  };
  SharedInformerFactory factory(client);
  auto controller_a = factory.InformerFor({"/api/v1/pods"});
  auto controller_b = factory.InformerFor({"/api/v1/pods"});
  auto filtered = factory.InformerFor({"/api/v1/pods", "app=web"});
  auto nodes = factory.InformerFor({"/api/v1/nodes"});
  EXPECT_EQ(controller_a.get(), controller_b.get());
  EXPECT_NE(controller_a.get(), filtered.get());
  EXPECT_EQ(factory.Size(), 3u);
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(Soon()));
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return client->WatchRequests().size() == 3; }));
  int pod_lists = 0;
  for (const auto& r : client->ListRequests()) {
    if (r.path == "/api/v1/pods" && !r.query.count("labelSelector")) ++pod_lists;
  }
  EXPECT_EQ(pod_lists, 1);
  EXPECT_EQ(controller_a->Stats().watch_requests, 1u);
  EXPECT_EQ(controller_b->store().Size(), 1u);
  factory.Stop();
}

TEST(SharedInformerFactoryTest, TheFirstTransformForAKeyWins) {
  auto client = std::make_shared<FakeRestClient>();
  client->QueueListBody(ListJson({PodJson("a", "p1", "1", "n1")}, "5"));
  SharedInformerFactory factory(client);
  auto first = factory.InformerFor({"/api/v1/pods"}, IdentityTransform());
  auto second = factory.InformerFor({"/api/v1/pods"}, PodViewTransform());
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(Soon()));
  auto doc = second->store().Get("a/p1")->ToJson();
  ASSERT_TRUE(doc);
  EXPECT_TRUE((*doc)["metadata"].HasMember("managedFields"));  // identity kept everything
}

TEST(SharedInformerFactoryTest, APathTransformAppliesWhenTheCallerGivesNoneAndAGivenOneWins) {
  auto client = std::make_shared<FakeRestClient>();
  client->list_handler = [](const RestRequest&) -> Result<RestResponse> {
    return RestResponse{200, ListJson({PodJson("a", "p1", "1", "n1")}, "5"), {}};
  };
  SharedInformerFactoryOptions options;
  options.path_transforms.emplace("/api/v1/pods", IdentityTransform());
  SharedInformerFactory factory(client, options);
  auto by_path = factory.InformerFor({"/api/v1/pods"});
  auto given = factory.InformerFor({"/api/v1/pods", "app=web"}, DefaultTransform());
  auto other_path = factory.InformerFor({"/api/v1/namespaces/a/pods"});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(Soon()));
  auto managed_fields_kept = [](const SharedInformer& informer) {
    auto doc = informer.store().Get("a/p1")->ToJson();
    return doc && (*doc)["metadata"].HasMember("managedFields");
  };
  EXPECT_TRUE(managed_fields_kept(*by_path));      // the path's identity transform
  EXPECT_FALSE(managed_fields_kept(*given));       // the caller's DefaultTransform
  EXPECT_FALSE(managed_fields_kept(*other_path));  // another path: the factory's default
  factory.Stop();
}

TEST(SharedInformerFactoryTest, WaitForCacheSyncFailsAtTheDeadlineWhenAListNeverSucceeds) {
  auto client = std::make_shared<FakeRestClient>();  // every list fails with 500
  SharedInformerFactoryOptions o;
  o.backoff.initial = milliseconds(1);
  o.backoff.cap = milliseconds(2);
  SharedInformerFactory factory(client, o);
  factory.InformerFor({"/api/v1/pods"});
  factory.Start();
  EXPECT_FALSE(factory.WaitForCacheSync(std::chrono::steady_clock::now() + milliseconds(50)));
  EXPECT_GE(client->ListRequests().size(), 2u);  // it kept retrying
}

TEST(SharedInformerFactoryTest, ProtobufOptInAsksItForPodsAndNodesWithJsonFallbackCrdsAskForJson) {
  auto client = std::make_shared<FakeRestClient>();
  client->list_handler = [](const RestRequest&) -> Result<RestResponse> {
    return RestResponse{200, ListJson({}, "5"), {}};
  };
  SharedInformerFactoryOptions o;
  o.content_type = std::string(proto::kProtobufContentType);
  SharedInformerFactory factory(client, o);
  factory.InformerFor({"/api/v1/pods"});
  factory.InformerFor({"/api/v1/namespaces/ns1/pods"});
  factory.InformerFor({"/api/v1/nodes"});
  factory.InformerFor({"/apis/scheduling.koordinator.sh/v1alpha1/reservations"});
  factory.InformerFor({"/api/v1/configmaps"});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(Soon()));
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return client->WatchRequests().size() == 5; }));
  for (const auto& r : client->Requests()) {
    const bool builtin = r.path == "/api/v1/pods" || r.path == "/api/v1/nodes" ||
                         r.path == "/api/v1/namespaces/ns1/pods";
    EXPECT_EQ(r.accept, builtin ? "application/vnd.kubernetes.protobuf, application/json" : "application/json")
        << r.path;
  }
  factory.Stop();
}

TEST(SharedInformerFactoryTest, JsonIsTheDefaultContentType) {
  auto client = std::make_shared<FakeRestClient>();
  client->list_handler = [](const RestRequest&) -> Result<RestResponse> {
    return RestResponse{200, ListJson({}, "5"), {}};
  };
  SharedInformerFactory factory(client);
  factory.InformerFor({"/api/v1/pods"});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(Soon()));
  ASSERT_FALSE(client->ListRequests().empty());
  EXPECT_EQ(client->ListRequests().front().accept, "application/json");
  factory.Stop();
}

TEST(SharedInformerFactoryTest, ProtobufDecodablePaths) {
  EXPECT_TRUE(IsProtobufDecodable("/api/v1/pods"));
  EXPECT_TRUE(IsProtobufDecodable("/api/v1/nodes"));
  EXPECT_TRUE(IsProtobufDecodable("/api/v1/namespaces/a/pods"));
  EXPECT_FALSE(IsProtobufDecodable("/api/v1/namespaces//pods"));
  EXPECT_FALSE(IsProtobufDecodable("/api/v1/namespaces/a/pods/x"));
  EXPECT_FALSE(IsProtobufDecodable("/api/v1/namespaces/a/configmaps"));
  EXPECT_FALSE(IsProtobufDecodable("/apis/apps/v1/replicasets"));
  EXPECT_FALSE(IsProtobufDecodable("/api/v1/podsx"));
}

}  // namespace
}  // namespace berth::shim
