// Retries of clientgo-shim/events/event_recorder.h (client-go's recordToSink), on a fake clock:
// time moves only when the test advances it, so no test sleeps through a backoff.
#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/log_capture.h"
#include "clientgo-shim/client/fake_rest_client.h"
#include "clientgo-shim/events/event_recorder.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using berth::testing::LogCapture;
using testing::Fail;
using testing::FakeRestClient;
using testing::Ok;

ObjectReference Pod(const std::string& name) {
  return {.api_version = "v1", .kind = "Pod", .ns = "default", .name = name, .uid = "u-" + name};
}

EventRecorderOptions Options(RestClientPtr rest, WaitClock* clock) {
  EventRecorderOptions o;
  o.rest = std::move(rest);
  o.component = "berth-controller";
  o.clock = clock;
  o.rng_seed = 7;
  return o;
}

// WaitUntil polls `done` (bounded in real time), calling `step` in between.
bool WaitUntil(const std::function<bool()>& done, const std::function<void()>& step = [] {}) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    step();
    std::this_thread::yield();
  }
  return done();
}

// WaitForSleeper: the sender thread is parked in a retry sleep on the fake clock.
bool WaitForSleeper(const FakeWaitClock& clock) {
  return WaitUntil([&] { return clock.WaiterCount() > 0; });
}

// A server that answers `failures` times with `error`, then 201.
struct FlakyServer {
  int failures;
  std::function<std::unexpected<Error>()> error;
  std::atomic<int> calls{0};
  std::shared_ptr<FakeRestClient> client() {
    return std::make_shared<FakeRestClient>([this](const RestRequest& r) -> Result<RestResponse> {
      if (calls++ < failures) return error();
      return Ok(r.body, 201);
    });
  }
};

void ExpectRetriedUntilCreated(FlakyServer& server, int failures) {
  FakeWaitClock clock;
  auto fake = server.client();
  EventRecorder rec(Options(fake, &clock));
  rec.Event(Pod("web"), EventType::kWarning, "FailedScheduling", "no node");
  for (int i = 1; i <= failures; ++i) {
    ASSERT_TRUE(WaitForSleeper(clock)) << "no backoff after failure " << i;
    // Nothing is sent again until the sleep is over.
    EXPECT_EQ(server.calls.load(), i);
    clock.Advance(10s);  // covers the randomised first sleep and every later 10 s one
    ASSERT_TRUE(WaitUntil([&] { return server.calls.load() > i; })) << "no retry " << i;
  }
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(server.calls.load(), failures + 1);
  EXPECT_EQ(rec.Stats().created, 1u);
  EXPECT_EQ(rec.Stats().retries, static_cast<uint64_t>(failures));
  EXPECT_EQ(rec.Stats().failed, 0u);
  // Every try carries the same Event.
  auto reqs = fake->requests();
  for (const auto& r : reqs) EXPECT_EQ(r.body, reqs.front().body);
}

TEST(EventRecorderRetryTest, InternalErrorsAreRetriedUntilTheEventIsWritten) {
  LogCapture capture;
  FlakyServer server{3, [] { return Fail(ErrorCode::kInternal, 500, "etcdserver: leader changed"); }};
  ExpectRetriedUntilCreated(server, 3);
  auto warned = capture.Matching("unable to write event (may retry after sleeping)");
  ASSERT_FALSE(warned.empty());
  EXPECT_EQ(warned[0].Get("level"), "warn");
  EXPECT_EQ(warned[0].Get("object"), "Pod default/web");
  EXPECT_EQ(warned[0].Get("error"), "etcdserver: leader changed");
}

TEST(EventRecorderRetryTest, TooManyRequestsIsRetried) {
  FlakyServer server{2, [] { return Fail(ErrorCode::kTooManyRequests, 429, "slow down"); }};
  ExpectRetriedUntilCreated(server, 2);
}

TEST(EventRecorderRetryTest, ServiceUnavailableAndNoResponseAreRetried) {
  FlakyServer unavailable{1, [] { return Fail(ErrorCode::kInternal, 503, "unavailable"); }};
  ExpectRetriedUntilCreated(unavailable, 1);
  FlakyServer refused{2, [] { return Fail(ErrorCode::kTransport, 0, "connect: Connection refused"); }};
  ExpectRetriedUntilCreated(refused, 2);
}

TEST(EventRecorderRetryTest, InvalidIsNotRetriedAndIsLoggedAsAnError) {
  LogCapture capture;
  FakeWaitClock clock;
  FlakyServer server{100, [] { return Fail(ErrorCode::kInvalid, 422, "Event \"x\" is invalid"); }};
  EventRecorder rec(Options(server.client(), &clock));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(server.calls.load(), 1);
  EXPECT_EQ(clock.WaiterCount(), 0u);
  EXPECT_EQ(rec.Stats().failed, 1u);
  EXPECT_EQ(rec.Stats().retries, 0u);
  auto lines = capture.Matching("server rejected event (will not retry)");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("code"), "422");
  EXPECT_EQ(lines[0].Get("error"), "Event \"x\" is invalid");
}

TEST(EventRecorderRetryTest, GivesUpAfterTwelveTriesAndLogsIt) {
  LogCapture capture;
  FakeWaitClock clock;
  FlakyServer server{1000, [] { return Fail(ErrorCode::kInternal, 500, "down"); }};
  EventRecorder rec(Options(server.client(), &clock));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "m");
  ASSERT_TRUE(WaitUntil([&] { return rec.Stats().failed == 1; },
                        [&] {
                          if (clock.WaiterCount() > 0) clock.Advance(10s);
                        }));
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(server.calls.load(), 12);
  EXPECT_EQ(rec.Stats().retries, 11u);
  auto lines = capture.Matching("unable to write event (retry limit exceeded)");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("tries"), "12");
  // The recorder still works afterwards.
  server.failures = 0;
  rec.Event(Pod("next"), EventType::kNormal, "Synced", "m");
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, 1u);
}

// FirstTwoSleeps runs an event through two 500s and returns the sleeps the recorder chose.
std::pair<std::chrono::nanoseconds, std::chrono::nanoseconds> FirstTwoSleeps(uint64_t seed) {
  FakeWaitClock clock;
  FlakyServer server{2, [] { return Fail(ErrorCode::kInternal, 500, "down"); }};
  auto o = Options(server.client(), &clock);
  o.rng_seed = seed;
  EventRecorder rec(std::move(o));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "m");
  EXPECT_TRUE(WaitForSleeper(clock));
  const auto first = rec.Stats().last_retry_sleep;
  clock.Advance(10s);
  EXPECT_TRUE(WaitUntil([&] { return server.calls.load() == 2 && clock.WaiterCount() > 0; }));
  const auto second = rec.Stats().last_retry_sleep;
  clock.Advance(10s);
  EXPECT_TRUE(rec.Flush(5s));
  EXPECT_EQ(rec.Stats().created, 1u);
  return {first, second};
}

TEST(EventRecorderRetryTest, TheFirstSleepIsRandomisedWithinTheSleepDurationLaterOnesAreFull) {
  std::set<int64_t> firsts;
  for (uint64_t seed : {1, 2, 3}) {
    auto [first, second] = FirstTwoSleeps(seed);
    EXPECT_GE(first, 0ns);
    EXPECT_LT(first, 10s);
    EXPECT_EQ(second, 10s);
    firsts.insert(first.count());
  }
  EXPECT_GT(firsts.size(), 1u) << "the first sleep does not depend on the seed";
}

TEST(EventRecorderRetryTest, AFailedPatchOfAnAggregatedEventIsRetried) {
  FakeWaitClock clock;
  std::atomic<int> patches{0};
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) -> Result<RestResponse> {
    if (r.method == "PATCH" && patches++ == 0) return Fail(ErrorCode::kInternal, 500, "down");
    return Ok("{}");
  });
  EventRecorder rec(Options(fake, &clock));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "ok");
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "ok");
  ASSERT_TRUE(WaitForSleeper(clock));
  clock.Advance(10s);
  ASSERT_TRUE(rec.Flush(5s));
  EXPECT_EQ(patches.load(), 2);
  EXPECT_EQ(rec.Stats().created, 1u);
  EXPECT_EQ(rec.Stats().patched, 1u);
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ((*json::Parse(reqs[2].body))["count"].GetInt(), 2);
}

TEST(EventRecorderRetryTest, StopEndsARetrySleepAndCountsTheEventAsFailed) {
  FakeWaitClock clock;
  FlakyServer server{1000, [] { return Fail(ErrorCode::kInternal, 500, "down"); }};
  auto o = Options(server.client(), &clock);
  o.stop_flush_timeout = 100ms;
  EventRecorder rec(std::move(o));
  rec.Event(Pod("web"), EventType::kNormal, "Synced", "m");
  ASSERT_TRUE(WaitForSleeper(clock));
  EXPECT_FALSE(rec.Flush(50ms));  // still retrying
  rec.Stop();                     // the flush gives up, then the sleep is cut short
  EXPECT_EQ(server.calls.load(), 1);
  EXPECT_EQ(rec.Stats().failed, 1u);
}

}  // namespace
}  // namespace berth::shim
