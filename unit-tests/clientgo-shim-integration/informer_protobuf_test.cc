// Informers against an in-process kubesim that serves protobuf for built-in kinds: Pods and
// Nodes are listed and watched in protobuf (decoded by clientgo-shim/proto from kubesim's
// encoder), the cached fields berth reads equal those of a JSON informer on the same server,
// and a kubesim with protobuf off is read as JSON.
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/informer/shared_informer_factory.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;

SteadyTime In(std::chrono::seconds s) { return std::chrono::steady_clock::now() + s; }

// WithoutNulls drops null members: Go writes a zero non-pointer Time as an empty message (JSON
// null) while kubesim's encoder leaves it out; berth's codecs read null and absent alike.
rapidjson::Document WithoutNulls(rapidjson::Document doc) {
  std::function<void(rapidjson::Value&)> strip = [&](rapidjson::Value& v) {
    if (v.IsObject()) {
      for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
        if (it->value.IsNull()) {
          it = v.EraseMember(it);
        } else {
          strip(it->value);
          ++it;
        }
      }
    } else if (v.IsArray()) {
      for (auto& e : v.GetArray()) strip(e);
    }
  };
  strip(doc);
  return doc;
}

class InformerProtobufTest : public CountedClusterTest<::testing::TestWithParam<bool>> {
 protected:
  void SetUp() override { StartCluster(GetParam()); }
};

TEST_P(InformerProtobufTest, PodsAndNodesSyncFollowAndCacheWhatJsonCaches) {
  const bool protobuf = GetParam();
  Writer w(*sim_);
  for (int i = 0; i < 12; ++i) w.Create("default", "p" + std::to_string(i), "node-" + std::to_string(i % 3));
  SharedInformerFactoryOptions o;
  o.page_size = 5;  // several pages
  o.content_type = std::string(proto::kProtobufContentType);
  SharedInformerFactory factory(client_, o);
  auto pods = factory.InformerFor({"/api/v1/pods"});
  auto nodes = factory.InformerFor({"/api/v1/nodes"});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(In(std::chrono::seconds(10))));
  EXPECT_EQ(pods->store().Size(), 12u);
  EXPECT_EQ(nodes->store().Size(), 3u);
  w.Create("default", "late", "node-1");
  w.Relabel("default", "p1", "v2");
  w.Delete("default", "p0");
  EXPECT_TRUE(EventuallyEqual(*sim_, pods->store(), std::chrono::seconds(10)));
  ASSERT_TRUE(WaitUntil([&] { return client_->watches.load() >= 2; }, std::chrono::seconds(10)));
  for (const std::string& accept : client_->Accepts()) {
    EXPECT_EQ(accept, "application/vnd.kubernetes.protobuf, application/json");
  }
  const auto content_types = client_->ContentTypes();
  ASSERT_GE(content_types.size(), 4u);
  for (const std::string& ct : content_types) {
    EXPECT_EQ(ct.rfind(protobuf ? "application/vnd.kubernetes.protobuf" : "application/json", 0), 0u) << ct;
  }
  EXPECT_EQ(pods->Stats().errors, 0u);
  EXPECT_EQ(pods->Stats().dropped_objects, 0u);

  // A JSON informer on the same server caches the same values for what berth reads.
  auto json_client = std::make_shared<CountingClient>(ClientFor(*sim_));
  SharedInformerFactoryOptions jo;
  jo.content_type = kJsonContentType;
  SharedInformerFactory json_factory(json_client, jo);
  auto json_pods = json_factory.InformerFor({"/api/v1/pods"});
  auto json_nodes = json_factory.InformerFor({"/api/v1/nodes"});
  json_factory.Start();
  ASSERT_TRUE(json_factory.WaitForCacheSync(In(std::chrono::seconds(10))));
  ASSERT_TRUE(EventuallyEqual(*sim_, json_pods->store(), std::chrono::seconds(10)));
  for (const char* key : {"default/p1", "default/late"}) {
    ObjectPtr a = pods->store().Get(key), b = json_pods->store().Get(key);
    ASSERT_NE(a, nullptr) << key;
    ASSERT_NE(b, nullptr) << key;
    for (auto path : {std::initializer_list<std::string_view>{"metadata", "labels"},
                      std::initializer_list<std::string_view>{"metadata", "creationTimestamp"},
                      std::initializer_list<std::string_view>{"spec", "nodeName"},
                      std::initializer_list<std::string_view>{"spec", "schedulerName"},
                      std::initializer_list<std::string_view>{"spec", "priority"},
                      std::initializer_list<std::string_view>{"spec", "tolerations"},
                      std::initializer_list<std::string_view>{"status", "phase"},
                      std::initializer_list<std::string_view>{"status", "conditions"}}) {
      auto x = a->FindJson(path);
      auto y = b->FindJson(path);
      ASSERT_EQ(x.has_value(), y.has_value()) << key << " " << *(path.begin() + 1);
      if (x) {
        x = WithoutNulls(std::move(*x));
        y = WithoutNulls(std::move(*y));
      }
      if (x) EXPECT_TRUE(*x == *y) << key << " " << *(path.begin() + 1) << ": " << json::Serialize(*x) << " vs " << json::Serialize(*y);
    }
    auto ca = a->FindJson({"spec", "containers"});
    auto cb = b->FindJson({"spec", "containers"});
    ASSERT_TRUE(ca && cb);
    ASSERT_EQ(ca->Size(), cb->Size());
    EXPECT_TRUE((*ca)[0]["resources"] == (*cb)[0]["resources"]) << json::Serialize((*ca)[0]);
    EXPECT_EQ(json::GetString((*ca)[0], {"image"}), json::GetString((*cb)[0], {"image"}));
  }
  ObjectPtr na = nodes->store().Get("node-1"), nb = json_nodes->store().Get("node-1");
  ASSERT_TRUE(na && nb);
  for (auto path : {std::initializer_list<std::string_view>{"status", "allocatable"},
                    std::initializer_list<std::string_view>{"status", "capacity"},
                    std::initializer_list<std::string_view>{"metadata", "labels"},
                    std::initializer_list<std::string_view>{"spec"}}) {
    auto x = na->FindJson(path);
    auto y = nb->FindJson(path);
    ASSERT_EQ(x.has_value(), y.has_value()) << *(path.begin() + 1);
    if (x) EXPECT_TRUE(*x == *y) << json::Serialize(*x) << " vs " << json::Serialize(*y);
  }
  json_factory.Stop();
  factory.Stop();
}

INSTANTIATE_TEST_SUITE_P(ServerProtobuf, InformerProtobufTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Served" : "Disabled"; });

}  // namespace
}  // namespace berth::shim
