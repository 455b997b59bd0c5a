// EventRecorder against an in-process kubesim: aggregation into one Event and field selectors.
#include <gtest/gtest.h>

#include "clientgo-shim/events/event_recorder.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

TEST(EventsIntegrationTest, ThreeIdenticalEventsBecomeOneEventWithCountThree) {
  kubesim::KubesimInstance sim(kubesim::KubesimOptions{});
  ASSERT_TRUE(sim.Start());
  auto rest = testing::ClientFor(sim);
  EventRecorderOptions o;
  o.rest = rest;
  o.component = "berth-controller";
  o.host = "test-host";
  EventRecorder recorder(o);
  ObjectReference ref{.api_version = "v1", .kind = "Pod", .ns = "default", .name = "web-0",
                      .uid = "11111111-2222-4333-8444-555555555555"};
  for (int i = 0; i < 3; ++i) {
    recorder.Event(ref, EventType::kWarning, "FailedScheduling", "0/3 nodes are available");
  }
  recorder.Event(ObjectReference{.api_version = "v1", .kind = "Pod", .ns = "default",
                                 .name = "other"},
                 EventType::kNormal, "Scheduled", "ok");
  ASSERT_TRUE(recorder.Flush(std::chrono::seconds(10)));
  EXPECT_EQ(recorder.Stats().created, 2u);
  EXPECT_EQ(recorder.Stats().patched, 2u);
  EXPECT_EQ(recorder.Stats().failed, 0u);

  ObjectClient client(rest);
  auto list = client.List({.resource = "events", .ns = "default"},
                          {.field_selector = "involvedObject.name=web-0"});
  ASSERT_TRUE(list) << list.error().message;
  const auto& items = (*list)["items"];
  ASSERT_EQ(items.Size(), 1u);
  const auto& ev = items[0];
  EXPECT_EQ(ev["count"].GetInt(), 3);
  EXPECT_EQ(json::GetString(ev, {"reason"}), "FailedScheduling");
  EXPECT_EQ(json::GetString(ev, {"type"}), "Warning");
  EXPECT_EQ(json::GetString(ev, {"involvedObject", "kind"}), "Pod");
  EXPECT_EQ(json::GetString(ev, {"source", "component"}), "berth-controller");
  EXPECT_EQ(json::GetString(ev, {"reportingComponent"}), "berth-controller");
  auto first = ParseTimestamp(json::GetString(ev, {"firstTimestamp"}));
  auto last = ParseTimestamp(json::GetString(ev, {"lastTimestamp"}));
  ASSERT_TRUE(first && last);
  EXPECT_LE(*first, *last);
  sim.Stop();
}

}  // namespace
}  // namespace berth::shim
