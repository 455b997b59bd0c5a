// Handlers of one store that share what controllers share in production (a controller's work
// queue, the metrics registry) through the first large Replace, whose handlers run on several
// threads at once (Store::Replace, kConcurrentDispatchMin). Under ThreadSanitizer
// (scripts/tsan.sh runs this suite) an unsynchronised structure here is a reported race.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/metrics/registry.h"
#include "clientgo-shim/queue/work_queue.h"

namespace berth::shim {
namespace {

ObjectPtr Pod(size_t i) {
  auto doc = json::Parse(R"({"metadata":{"name":"p)" + std::to_string(i) +
                         R"(","namespace":"ns","resourceVersion":"1"},"spec":{"nodeName":"n1"}})");
  EXPECT_TRUE(doc);
  auto obj = CachedObject::FromJson(*doc);
  EXPECT_TRUE(obj);
  return *obj;
}

TEST(SharedStoreHandlersTest, HandlersOfAFirstLargeListShareOneQueueAndOneCounter) {
  Store store;
  WorkQueue queue;
  Registry registry;
  auto events = registry.AddCounter("test_handler_events_total", "Events the handlers saw.", {"handler"});
  ASSERT_TRUE(events);
  CounterFamily* family = *events;
  // Two handlers enqueue the same keys (as two wake-up paths of one controller do), a third its
  // own; the bulk one takes the list at once (as the scheduler's pods handler does).
  auto enqueue = [&](const std::string& prefix) {
    return [&, prefix](const ObjectPtr& o, bool) {
      queue.Add(prefix + std::string(o->Key()));
      family->WithLabelValues({"single"}).Inc();
    };
  };
  store.AddEventHandler(EventHandler{enqueue("shared:"), nullptr, nullptr}, false);
  store.AddEventHandler(EventHandler{enqueue("shared:"), nullptr, nullptr}, false);
  store.AddEventHandler(EventHandler{enqueue("own:"), nullptr, nullptr}, false);
  EventHandler bulk;
  bulk.on_initial_list = [&](const std::vector<ObjectPtr>& objects) {
    for (const ObjectPtr& o : objects) {
      queue.Add("bulk:" + std::string(o->Key()));
      family->WithLabelValues({"bulk"}).Inc();
    }
  };
  store.AddEventHandler(bulk, false);

  const size_t n = kConcurrentDispatchMin + 100;
  std::vector<ObjectPtr> list;
  std::set<std::string> want;
  for (size_t i = 0; i < n; ++i) {
    list.push_back(Pod(i));
    for (const char* prefix : {"shared:", "own:", "bulk:"}) want.insert(prefix + std::string("ns/p") + std::to_string(i));
  }
  ReplaceTimings timings = store.Replace(std::move(list), "1");
  ASSERT_EQ(timings.per_handler.size(), 4u);

  EXPECT_EQ(family->WithLabelValues({"single"}).Value(), static_cast<double>(3 * n));
  EXPECT_EQ(family->WithLabelValues({"bulk"}).Value(), static_cast<double>(n));
  ASSERT_EQ(queue.Len(), want.size());  // a key both sharing handlers added is queued once
  std::set<std::string> got;
  while (queue.Len() > 0) {
    auto key = queue.Get();
    ASSERT_TRUE(key);
    got.insert(*key);
    queue.Done(*key);
  }
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace berth::shim
