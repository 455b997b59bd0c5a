// The reflector's content negotiation: it asks with the Accept of ListWatchOptions and decodes
// each answer by its Content-Type (protobuf list pages and length-delimited watch frames, or
// JSON when the server ignores the protobuf offer).
#include <algorithm>

#include <gtest/gtest.h>

#include "clientgo-shim/proto/pod_fixtures.h"
#include "clientgo-shim/watch/fake_rest_client.h"
#include "clientgo-shim/watch/reflector_test_support.h"
#include "clientgo-shim/watch/reflector.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
namespace pt = berth::shim::proto::testing;
using std::chrono::milliseconds;

constexpr char kAcceptProtobuf[] = "application/vnd.kubernetes.protobuf, application/json";

// ProtobufServer: the fake, answering watches with protobuf frames (each scripted "line" is
// passed on as raw bytes) under a protobuf Content-Type.
class ProtobufServer : public FakeRestClient {
 public:
  Status StreamBytes(const RestRequest& request,
                     const std::function<void(const std::map<std::string, std::string>&)>& on_headers,
                     const std::function<bool(std::string_view)>& on_bytes,
                     const std::atomic<bool>* cancel) override {
    on_headers({{"content-type", "application/vnd.kubernetes.protobuf;stream=watch"}});
    return Stream(request, on_bytes, cancel);
  }
};

ReflectorOptions Options() {
  ReflectorOptions o = PodReflectorOptions();
  o.list_watch.accept = kAcceptProtobuf;
  return o;
}

RestResponse ProtobufList(std::vector<pt::Wire> pods, const std::string& rv) {
  pt::Wire list = pt::Wire().Msg(1, pt::Wire().Bytes(2, rv));
  for (const auto& p : pods) list.Msg(2, p);
  return RestResponse{200, pt::Enveloped("v1", "PodList", list), {{"content-type", "application/vnd.kubernetes.protobuf"}}};
}

std::string PodFrame(const std::string& type, const std::string& name, const std::string& rv) {
  return pt::WatchFrame(type, pt::Enveloped("v1", "Pod", pt::PodWire(name, rv)));
}

// Chunks cuts `bytes` into pieces of `size` (frames arrive split across reads).
std::vector<std::string> Chunks(const std::string& bytes, size_t size) {
  std::vector<std::string> out;
  for (size_t at = 0; at < bytes.size(); at += size) out.push_back(bytes.substr(at, size));
  return out;
}

TEST(ReflectorProtobufTest, ProtobufListAndWatchFillTheStore) {
  auto client = std::make_shared<ProtobufServer>();
  auto store = std::make_shared<Store>();
  client->QueueList(ProtobufList({pt::PodWire("a", "3"), pt::PodWire("b", "4")}, "10"));
  const std::string stream =
      PodFrame("ADDED", "c", "11") + PodFrame("MODIFIED", "a", "12") + PodFrame("DELETED", "b", "13") +
      pt::WatchFrame("BOOKMARK", pt::Enveloped("v1", "Pod", pt::Wire().Msg(1, pt::Wire().Bytes(6, "14"))));
  client->PushWatch({Chunks(stream, 5), {}, /*hold_open=*/true});
  Reflector r(client, store, Options());
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return r.LastSyncResourceVersion() == "14"; }));
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"default/a@12", "default/c@11"}));
  ObjectPtr a = store->Get("default/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->FindString({"spec", "nodeName"}), "n1");
  EXPECT_EQ(a->FindString({"metadata", "annotations", "note"}), "x");
  // DefaultTransform ran on the converted object: last-applied and kind are gone.
  EXPECT_FALSE(a->FindString({"metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"}));
  EXPECT_FALSE(a->FindString({"kind"}));
  for (const RestRequest& req : client->Requests()) EXPECT_EQ(req.accept, kAcceptProtobuf);
  EXPECT_EQ(r.Stats().errors, 0u);
  r.Stop();
}

TEST(ReflectorProtobufTest, AServerThatAnswersJsonIsReadAsJson) {
  auto client = std::make_shared<FakeRestClient>();  // ignores Accept: JSON bodies, no Content-Type
  auto store = std::make_shared<Store>();
  client->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10"));
  client->PushWatch({{EventJson("ADDED", PodJson("a", "p2", "11"))}, {}, /*hold_open=*/true});
  Reflector r(client, store, Options());
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return r.LastSyncResourceVersion() == "11"; }));
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"a/p1@3", "a/p2@11"}));
  EXPECT_EQ(client->Requests().front().accept, kAcceptProtobuf);
  r.Stop();
}

TEST(ReflectorProtobufTest, AMalformedFrameEndsTheWatchWhichResumesFromTheLastGoodRv) {
  auto client = std::make_shared<ProtobufServer>();
  auto store = std::make_shared<Store>();
  client->QueueList(ProtobufList({pt::PodWire("a", "3")}, "10"));
  std::string bad = pt::Frame(pt::Wire().Bytes(1, "ADDED").Msg(2, pt::Wire().Bytes(1, "not protobuf")).str());
  client->PushWatch({{PodFrame("ADDED", "c", "11") + bad + PodFrame("ADDED", "d", "12")}, {}});
  // The stream ends inside a frame: an error too, not a silently lost event.
  client->PushWatch({{PodFrame("MODIFIED", "c", "13").substr(0, 9)}, {}});
  client->PushWatch({{}, {}, /*hold_open=*/true});
  Reflector r(client, store, Options());
  r.Start();
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return client->WatchRequests().size() >= 3; }));
  auto watches = client->WatchRequests();
  EXPECT_EQ(watches[1].query.at("resourceVersion"), "11");  // d after the bad frame never applied
  EXPECT_EQ(watches[2].query.at("resourceVersion"), "11");
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"default/a@3", "default/c@11"}));
  ReflectorStats stats = r.Stats();
  EXPECT_EQ(stats.errors, 2u);
  EXPECT_EQ(stats.lists_completed, 1u);
  r.Stop();
}

}  // namespace
}  // namespace berth::shim
