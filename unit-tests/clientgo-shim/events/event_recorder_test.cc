// Tests for clientgo-shim/events/event_recorder.h with a scripted RestClient.
#include "clientgo-shim/events/event_recorder.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/client/fake_rest_client.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using testing::Fail;
using testing::FakeRestClient;
using testing::Ok;

ObjectReference Pod(const std::string& name) {
  return {.api_version = "v1", .kind = "Pod", .ns = "default", .name = name, .uid = "u-" + name};
}

EventRecorderOptions Options(RestClientPtr rest, WaitClock* clock = nullptr) {
  EventRecorderOptions o;
  o.rest = std::move(rest);
  o.component = "berth-controller";
  o.host = "node-a";
  o.clock = clock;
  return o;
}

TEST(EventRecorderTest, FirstEventIsCreatedWithEveryCoreV1Field) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest& r) { return Ok(r.body, 201); });
  EventRecorder rec(Options(fake));
  rec.Event(Pod("web"), EventType::kWarning, "FailedScheduling", "0/3 nodes are available");
  ASSERT_TRUE(rec.Flush(5s));
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/api/v1/namespaces/default/events");
  auto body = json::Parse(reqs[0].body);
  ASSERT_TRUE(body);
  EXPECT_EQ(json::GetString(*body, {"kind"}), "Event");
  EXPECT_TRUE(json::GetString(*body, {"metadata", "name"}).starts_with("web."));
  EXPECT_EQ(json::GetString(*body, {"involvedObject", "kind"}), "Pod");
  EXPECT_EQ(json::GetString(*body, {"involvedObject", "uid"}), "u-web");
  EXPECT_EQ(json::GetString(*body, {"reason"}), "FailedScheduling");
  EXPECT_EQ(json::GetString(*body, {"message"}), "0/3 nodes are available");
  EXPECT_EQ(json::GetString(*body, {"type"}), "Warning");
  EXPECT_EQ(json::GetString(*body, {"source", "component"}), "berth-controller");
  EXPECT_EQ(json::GetString(*body, {"source", "host"}), "node-a");
  EXPECT_EQ(json::GetString(*body, {"reportingComponent"}), "berth-controller");
  EXPECT_EQ(json::GetString(*body, {"reportingInstance"}), "node-a");
  EXPECT_EQ((*body)["count"].GetInt(), 1);
  EXPECT_EQ(json::GetString(*body, {"firstTimestamp"}), json::GetString(*body, {"lastTimestamp"}));
  EXPECT_TRUE(ParseTimestamp(json::GetString(*body, {"firstTimestamp"})));
  EXPECT_EQ(rec.Stats().created, 1u);
}

TEST(EventRecorderTest, TheCreatedBodyIsExactlyTheEventInFieldOrderWithStringsEscaped) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest& r) { return Ok(r.body, 201); });
  EventRecorder rec(Options(fake));
  ObjectReference ref = Pod("web");
  ref.field_path = "spec.containers{a}";
  rec.Event(ref, EventType::kNormal, "Scheduled", "quote \" backslash \\ newline \n tab \t é \x01 end");
  ASSERT_TRUE(rec.Flush(5s));
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 1u);
  auto body = json::Parse(reqs[0].body);
  ASSERT_TRUE(body) << reqs[0].body;
  EXPECT_EQ(json::GetString(*body, {"message"}), "quote \" backslash \\ newline \n tab \t é \x01 end");
  const std::string name(json::GetString(*body, {"metadata", "name"}));
  const std::string ts(json::GetString(*body, {"firstTimestamp"}));
  EXPECT_EQ(reqs[0].body,
            R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")" + name + R"(","namespace":"default"},)"
            R"("involvedObject":{"kind":"Pod","namespace":"default","name":"web","uid":"u-web","apiVersion":"v1",)"
            R"("fieldPath":"spec.containers{a}"},"reason":"Scheduled",)"
            R"("message":"quote \" backslash \\ newline \n tab \t é \u0001 end",)"
            R"("source":{"component":"berth-controller","host":"node-a"},"firstTimestamp":")" + ts +
            R"(","lastTimestamp":")" + ts + R"(","count":1,"type":"Normal","reportingComponent":"berth-controller",)"
            R"("reportingInstance":"node-a"})");
  EXPECT_EQ(rec.Stats().created, 1u);
}

TEST(EventRecorderTest, ARefusedCreateIsCountedAsFailedAndNotAggregated) {
  std::atomic<int> posts{0};
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) {
    if (r.method == "POST") ++posts;
    return Fail(ErrorCode::kInvalid, 422, "Event is invalid");
  });
  EventRecorder rec(Options(fake));
  rec.Event(Pod("web"), EventType::kNormal, "Scheduled", "m");
  ASSERT_TRUE(rec.Flush(5s));
  rec.Event(Pod("web"), EventType::kNormal, "Scheduled", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(posts.load(), 2);  // not aggregated into a PATCH of an Event that was never created
  EXPECT_EQ(rec.Stats().failed, 2u);
  EXPECT_EQ(rec.Stats().created, 0u);
}

TEST(EventRecorderTest, RepeatsOfTheSameEventPatchTheCountInsteadOfCreating) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest& r) { return Ok("{}"); });
  EventRecorder rec(Options(fake));
  for (int i = 0; i < 3; ++i) rec.Event(Pod("web"), EventType::kNormal, "Synced", "ok");
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "different message");
  ASSERT_TRUE(rec.Flush(5s));
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].content_type, "application/merge-patch+json");
  EXPECT_EQ(json::GetString(*json::Parse(reqs[0].body), {"metadata", "name"}),
            reqs[1].path.substr(reqs[1].path.rfind('/') + 1));
  EXPECT_EQ((*json::Parse(reqs[1].body))["count"].GetInt(), 2);
  EXPECT_EQ((*json::Parse(reqs[2].body))["count"].GetInt(), 3);
  EXPECT_EQ(reqs[3].method, "POST") << "another message is another Event";
  EXPECT_EQ(rec.Stats().patched, 2u);
  EXPECT_EQ(rec.Stats().created, 2u);
}

TEST(EventRecorderTest, ADeletedAggregatedEventIsCreatedAgain) {
  std::atomic<bool> gone{false};
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) -> Result<RestResponse> {
    if (r.method == "PATCH" && gone) return Fail(ErrorCode::kNotFound, 404, "not found");
    return Ok("{}");
  });
  EventRecorder rec(Options(fake));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "ok");
  ASSERT_TRUE(rec.Flush(5s));
  gone = true;
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "ok");
  ASSERT_TRUE(rec.Flush(5s));
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[2].method, "POST");
  EXPECT_EQ((*json::Parse(reqs[2].body))["count"].GetInt(), 1);
}

TEST(EventRecorderTest, SpamFilterAllowsTheBurstThenOneEventPerRefillPeriodPerObject) {
  FakeWaitClock clock;
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) { return Ok("{}"); });
  auto o = Options(fake, &clock);
  o.burst = 2;
  o.refill_period = 300s;
  EventRecorder rec(std::move(o));
  for (int i = 0; i < 4; ++i) rec.Event(Pod("web"), EventType::kNormal, "R" + std::to_string(i), "m");
  rec.Event(Pod("other"), EventType::kNormal, "R", "m");  // its own bucket
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, 3u);
  EXPECT_EQ(rec.Stats().rate_limited, 2u);
  clock.Advance(299s);
  rec.Event(Pod("web"), EventType::kNormal, "late", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().rate_limited, 3u);
  clock.Advance(1s);
  rec.Event(Pod("web"), EventType::kNormal, "later", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, 4u);
}

TEST(EventRecorderTest, EventNeverBlocksTheCallerAndDropsWhenTheQueueIsFull) {
  std::promise<void> release;
  auto released = release.get_future().share();
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest&) {
    released.wait();  // the API server hangs
    return Ok("{}");
  });
  auto o = Options(fake);
  o.max_queue = 5;
  o.burst = 100;
  EventRecorder rec(std::move(o));
  for (int i = 0; i < 20; ++i) rec.Event(Pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
  // We got here while the sender is stuck: Event() did not wait for the server.
  EXPECT_GE(rec.Stats().queue_full, 14u);
  release.set_value();
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created + rec.Stats().queue_full, 20u);
}

TEST(EventRecorderTest, FailedWritesAreCountedAndDoNotStopTheRecorder) {
  std::atomic<int> calls{0};
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest&) -> Result<RestResponse> {
    // 403 is final (no retry); retries are in event_recorder_retry_test.cc.
    if (calls++ == 0) return Fail(ErrorCode::kForbidden, 403, "events is forbidden");
    return Ok("{}");
  });
  EventRecorder rec(Options(fake));
  rec.Event(Pod("a"), EventType::kNormal, "R", "m");
  rec.Event(Pod("b"), EventType::kNormal, "R", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().failed, 1u);
  EXPECT_EQ(rec.Stats().created, 1u);
}

TEST(EventRecorderTest, ClusterScopedObjectsGetEventsInDefault) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) { return Ok("{}"); });
  EventRecorder rec(Options(fake));
  auto node = json::Parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"x"}})");
  rec.Event(ReferenceOf(*node), EventType::kNormal, "NodeReady", "ready");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(fake->requests()[0].path, "/api/v1/namespaces/default/events");
  auto body = json::Parse(fake->requests()[0].body);
  EXPECT_EQ(json::Find(*body, {"involvedObject", "namespace"}), nullptr);
  EXPECT_EQ(json::GetString(*body, {"involvedObject", "name"}), "n1");
}

// InFlight counts concurrent requests in a fake server and remembers the most seen at once.
// Until two requests have overlapped, each waits (bounded) for company, so parallel senders
// overlap for sure and a single sender shows max 1.
struct InFlight {
  std::mutex mu;
  std::condition_variable cv;
  int now = 0, max = 0;
  Result<RestResponse> Serve(std::chrono::milliseconds wait_for_company) {
    std::unique_lock l(mu);
    max = std::max(max, ++now);
    cv.notify_all();
    cv.wait_for(l, wait_for_company, [&] { return max >= 2; });  // only until the first overlap
    --now;
    return Ok("{}", 201);
  }
};

TEST(EventRecorderTest, OneSenderByDefaultWritesOneEventAtATime) {
  InFlight server;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest&) { return server.Serve(20ms); });
  EventRecorder rec(Options(fake));
  for (int i = 0; i < 6; ++i) rec.Event(Pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, 6u);
  EXPECT_EQ(server.max, 1);
}

TEST(EventRecorderTest, SeveralSendersWriteABurstOverManyObjectsInParallel) {
  InFlight server;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest&) { return server.Serve(2s); });
  auto o = Options(fake);
  o.senders = 4;
  EventRecorder rec(std::move(o));
  for (int i = 0; i < 40; ++i) rec.Event(Pod("p" + std::to_string(i)), EventType::kNormal, "Expired", "m");
  ASSERT_TRUE(rec.Flush(10s));
  EXPECT_EQ(rec.Stats().created, 40u);
  EXPECT_GE(server.max, 2);
  EXPECT_LE(server.max, 4);
}

TEST(EventRecorderTest, SeveralSendersKeepEachObjectsEventsInOrderAndAggregated) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) { return Ok("{}", 201); });
  auto o = Options(fake);
  o.senders = 3;
  EventRecorder rec(std::move(o));
  constexpr int kObjects = 12;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kObjects; ++i) rec.Event(Pod("p" + std::to_string(i)), EventType::kNormal, "Synced", "ok");
  }
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, static_cast<uint64_t>(kObjects));
  EXPECT_EQ(rec.Stats().patched, static_cast<uint64_t>(2 * kObjects));
  // Per object: its POST, then PATCHes to that Event with count 2 and 3, in that order.
  std::map<std::string, std::vector<RestRequest>> by_event;
  for (const auto& r : fake->requests()) {
    std::string event = r.method == "POST" ? std::string(json::GetString(*json::Parse(r.body), {"metadata", "name"}))
                                           : r.path.substr(r.path.rfind('/') + 1);
    by_event[event].push_back(r);
  }
  ASSERT_EQ(by_event.size(), static_cast<size_t>(kObjects));
  for (const auto& [event, reqs] : by_event) {
    ASSERT_EQ(reqs.size(), 3u) << event;
    EXPECT_EQ(reqs[0].method, "POST") << event;
    EXPECT_EQ(reqs[1].method, "PATCH") << event;
    EXPECT_EQ((*json::Parse(reqs[1].body))["count"].GetInt(), 2) << event;
    EXPECT_EQ(reqs[2].method, "PATCH") << event;
    EXPECT_EQ((*json::Parse(reqs[2].body))["count"].GetInt(), 3) << event;
  }
}

}  // namespace
// Issue 13 / kubernetes PR #129790: an Event whose "<object>.<hex time>" name would be rejected
// (too long for a DNS subdomain) is written under a UUID name instead of being lost.
TEST(EventRecorderTest, AnOverLongEventNameIsReplacedByAUuid) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest& r) { return Ok(r.body, 201); });
  EventRecorder rec(Options(fake));
  const std::string long_name(250, 'a');
  rec.Event(Pod(long_name), EventType::kNormal, "Scheduled", "ok");
  rec.Event(Pod("short"), EventType::kNormal, "Scheduled", "ok");
  ASSERT_TRUE(rec.Flush(5s));
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 2u);
  auto body = json::Parse(reqs[0].body);
  ASSERT_TRUE(body);
  const std::string name(json::GetString(*body, {"metadata", "name"}));
  EXPECT_EQ(name.size(), 36u) << name;
  EXPECT_EQ(name[14], '4') << "version 4: " << name;
  EXPECT_EQ(json::GetString(*body, {"involvedObject", "name"}), long_name) << "the object is still named";
  auto second = json::Parse(reqs[1].body);
  ASSERT_TRUE(second);
  EXPECT_TRUE(json::GetString(*second, {"metadata", "name"}).starts_with("short.")) << "valid names are unchanged";
}

}  // namespace berth::shim
