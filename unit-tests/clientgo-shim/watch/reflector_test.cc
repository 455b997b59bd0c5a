#include "clientgo-shim/watch/reflector.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "clientgo-shim/watch/fake_rest_client.h"
#include "clientgo-shim/watch/reflector_test_support.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
using std::chrono::milliseconds;

ReflectorOptions Options() { return PodReflectorOptions(); }

bool Eventually(const std::function<bool()>& pred) { return FakeRestClient::WaitUntil(pred); }

class ReflectorTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeRestClient> client_ = std::make_shared<FakeRestClient>();
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
};

TEST_F(ReflectorTest, ListsEveryPageThenWatchesFromTheListRv) {
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10", "next"));
  client_->QueueListBody(ListJson({PodJson("a", "p2", "4")}, "10"));
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(KeysWithRv(*store_), (std::vector<std::string>{"a/p1@3", "a/p2@4"}));
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() == 1; }));
  auto lists = client_->ListRequests();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1].query.at("continue"), "next");
  auto watch = client_->WatchRequests()[0];
  EXPECT_EQ(watch.query.at("resourceVersion"), "10");
  EXPECT_EQ(watch.query.at("allowWatchBookmarks"), "true");
  int timeout = std::stoi(watch.query.at("timeoutSeconds"));
  EXPECT_GE(timeout, 300);
  EXPECT_LT(timeout, 600);
  r.Stop();
}

TEST_F(ReflectorTest, WatchEventsAreTransformedAndApplied) {
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10"));
  client_->PushWatch({{EventJson("ADDED", PodJson("a", "p2", "11")),
                       EventJson("MODIFIED", PodJson("a", "p1", "12", "n1")),
                       EventJson("DELETED", PodJson("a", "p2", "13")), BookmarkJson("14")},
                      {},
                      /*hold_open=*/true});
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return r.LastSyncResourceVersion() == "14"; }));
  EXPECT_EQ(KeysWithRv(*store_), std::vector<std::string>{"a/p1@12"});
  EXPECT_EQ(store_->Get("a/p1")->FindString({"spec", "nodeName"}), "n1");
  // The default transform dropped managedFields.
  auto doc = store_->Get("a/p1")->ToJson();
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->HasMember("kind"));
  EXPECT_FALSE((*doc)["metadata"].HasMember("managedFields"));
  ReflectorStats s = r.Stats();
  EXPECT_EQ(s.watch_events, 0u);  // counted when the stream ends
  r.Stop();
  s = r.Stats();
  EXPECT_EQ(s.watch_events, 3u);
  EXPECT_EQ(s.bookmarks, 1u);
}

TEST_F(ReflectorTest, ADroppedWatchResumesFromTheLastBookmarkWithoutRelisting) {
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10"));
  client_->PushWatch({{EventJson("ADDED", PodJson("a", "p2", "11")), BookmarkJson("20")}, {}});
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() >= 2; }));
  EXPECT_EQ(client_->WatchRequests()[1].query.at("resourceVersion"), "20");
  EXPECT_EQ(client_->ListRequests().size(), 1u);
  r.Stop();
}

TEST_F(ReflectorTest, AnExpiredWatchRelistsAndDeletesMissedObjectsAsTombstones) {
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3"), PodJson("a", "p2", "4")}, "10"));
  client_->QueueListBody(ListJson({PodJson("a", "p1", "30"), PodJson("a", "p3", "31")}, "40"));
  client_->PushWatch({{ExpiredJson()}, {}});
  std::vector<std::string> deletes;
  std::mutex mu;
  store_->AddEventHandler({{}, {}, [&](const DeletedObject& d) {
                             std::lock_guard lock(mu);
                             deletes.push_back(d.key + (d.final_state_unknown ? " unknown" : ""));
                           }},
                          false);
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return r.Stats().lists_completed == 2; }));
  EXPECT_EQ(KeysWithRv(*store_), (std::vector<std::string>{"a/p1@30", "a/p3@31"}));
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(deletes, std::vector<std::string>{"a/p2 unknown"});
  }
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() >= 2; }));
  EXPECT_EQ(client_->WatchRequests()[1].query.at("resourceVersion"), "40");
  EXPECT_EQ(r.Stats().relist_errors, 1u);
  r.Stop();
}

TEST_F(ReflectorTest, ListErrorsAreRetriedUntilAListSucceeds) {
  client_->QueueList(std::unexpected(HttpError(ErrorCode::kInternal, 500, "InternalError", "x")));
  client_->QueueList(std::unexpected(HttpError(ErrorCode::kTooManyRequests, 429, "TooManyRequests", "y")));
  client_->QueueListBody("not json");
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10"));
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(KeysWithRv(*store_), std::vector<std::string>{"a/p1@3"});
  EXPECT_EQ(r.Stats().errors, 3u);
  EXPECT_EQ(r.Stats().list_requests, 4u);
  r.Stop();
}

TEST_F(ReflectorTest, AMalformedWatchLineEndsTheWatchWhichResumesFromTheLastGoodRv) {
  client_->QueueListBody(ListJson({}, "10"));
  client_->PushWatch({{EventJson("ADDED", PodJson("a", "p1", "11")), "{garbage",
                       EventJson("ADDED", PodJson("a", "never", "12"))},
                      {}});
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() >= 2; }));
  EXPECT_EQ(client_->WatchRequests()[1].query.at("resourceVersion"), "11");
  EXPECT_EQ(KeysWithRv(*store_), std::vector<std::string>{"a/p1@11"});
  EXPECT_EQ(r.Stats().errors, 1u);
  r.Stop();
}

TEST_F(ReflectorTest, ObjectsTheTransformRejectsAreDroppedNotFatal) {
  client_->QueueListBody(ListJson({PodJson("a", "keep", "1"), PodJson("a", "drop", "2")}, "10"));
  ReflectorOptions o = Options();
  o.transform = [](rapidjson::Value& d, rapidjson::Document::AllocatorType&) -> Status {
    if (std::string_view(d["metadata"]["name"].GetString()) == "drop") {
      return MakeError(ErrorCode::kInvalidArgument, "no");
    }
    return {};
  };
  Reflector r(client_, store_, o);
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(KeysWithRv(*store_), std::vector<std::string>{"a/keep@1"});
  EXPECT_EQ(r.Stats().dropped_objects, 1u);
}

TEST_F(ReflectorTest, SelectorsGoOnListAndWatch) {
  client_->QueueListBody(ListJson({}, "10"));
  ReflectorOptions o = Options();
  o.list_watch.path = "/apis/scheduling.koordinator.sh/v1alpha1/reservations";
  o.list_watch.label_selector = "team=a";
  o.list_watch.field_selector = "metadata.namespace=x";
  Reflector r(client_, store_, o);
  r.Start();
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() == 1; }));
  for (const auto& req : client_->Requests()) {
    EXPECT_EQ(req.path, "/apis/scheduling.koordinator.sh/v1alpha1/reservations");
    EXPECT_EQ(req.query.at("labelSelector"), "team=a");
    EXPECT_EQ(req.query.at("fieldSelector"), "metadata.namespace=x");
  }
  r.Stop();
}

TEST_F(ReflectorTest, StopInterruptsABackoffWaitAndAnOpenWatch) {
  ReflectorOptions o = Options();
  o.list_watch.backoff.initial = std::chrono::hours(1);
  o.list_watch.backoff.cap = std::chrono::hours(1);
  Reflector r(client_, store_, o);  // no list scripted: 500 → a one-hour backoff
  r.Start();
  ASSERT_TRUE(Eventually([&] { return r.Stats().errors >= 1; }));
  auto t0 = std::chrono::steady_clock::now();
  r.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_FALSE(r.HasSynced());
  EXPECT_FALSE(r.WaitForCacheSync(std::chrono::steady_clock::now() + milliseconds(10)));
}

}  // namespace
}  // namespace berth::shim
