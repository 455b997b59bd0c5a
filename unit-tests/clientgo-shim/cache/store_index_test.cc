// The store's slot-vector indexes and the first large Replace's concurrent dispatch.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/cache/store_test_objects.h"

namespace berth::shim {
namespace {

using testing::Keys;
using testing::Pod;

TEST(StoreIndexTest, AFreedSlotIsReusedWithoutLeavingTheOldObjectInAnyIndex) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}, {kNamespaceIndex, NamespaceIndexFunc()}}));
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p1", "1", "n1"));
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p2", "2", "n1"));
  store.ApplyEvent(DeltaType::kDeleted, Pod("a", "p1", "3", "n1"));
  store.ApplyEvent(DeltaType::kAdded, Pod("b", "p3", "4", "n2"));  // takes p1's slot
  EXPECT_EQ(Keys(*store.ByIndex(kNodeNameIndex, "n1")), std::vector<std::string>{"a/p2"});
  EXPECT_EQ(Keys(*store.ByIndex(kNodeNameIndex, "n2")), std::vector<std::string>{"b/p3"});
  EXPECT_EQ(Keys(*store.ByIndex(kNamespaceIndex, "a")), std::vector<std::string>{"a/p2"});
  EXPECT_EQ(*store.IndexValues(kNamespaceIndex), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(store.Get("b/p3")->ResourceVersion(), "4");
}

TEST(StoreIndexTest, AnUpdateThatKeepsItsValuesIsFoundAsTheNewObject) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}}));
  store.Replace({Pod("a", "p", "1", "n1")}, "1");
  store.ApplyEvent(DeltaType::kModified, Pod("a", "p", "2", "n1"));
  auto on_n1 = store.ByIndex(kNodeNameIndex, "n1");
  ASSERT_EQ(on_n1->size(), 1u);
  EXPECT_EQ((*on_n1)[0]->ResourceVersion(), "2");
  EXPECT_EQ((*on_n1)[0], store.Get("a/p"));
}

TEST(StoreIndexTest, AValueAnIndexFuncRepeatsIndexesTheObjectOnce) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{"twice", [](const CachedObject& o) {
                                    return std::vector<std::string>{std::string(o.Namespace()), "x",
                                                                    std::string(o.Namespace())};
                                  }}}));
  store.Replace({Pod("a", "p", "1")}, "1");
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "q", "2"));
  EXPECT_EQ(Keys(*store.ByIndex("twice", "a")), (std::vector<std::string>{"a/p", "a/q"}));
  store.ApplyEvent(DeltaType::kDeleted, Pod("a", "p", "3"));
  EXPECT_EQ(Keys(*store.ByIndex("twice", "a")), std::vector<std::string>{"a/q"});
  EXPECT_EQ(Keys(*store.ByIndex("twice", "x")), std::vector<std::string>{"a/q"});
}

// Random adds, moves and deletes against a plain model of which keys are on which node.
TEST(StoreIndexTest, IndexesMatchAModelThroughRandomEventsAndRelists) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}}));
  std::mt19937 rng(7);
  std::map<std::string, std::string> node_of;  // key → node ("" unscheduled)
  int rv = 0;
  auto check = [&] {
    std::map<std::string, std::vector<std::string>> want;
    for (const auto& [key, node] : node_of) {
      if (!node.empty()) want[node].push_back(key);
    }
    std::vector<std::string> nodes;
    for (auto& [node, keys] : want) nodes.push_back(node);
    ASSERT_EQ(*store.IndexValues(kNodeNameIndex), nodes);
    for (auto& [node, keys] : want) ASSERT_EQ(Keys(*store.ByIndex(kNodeNameIndex, node)), keys) << node;
    ASSERT_EQ(store.Size(), node_of.size());
  };
  for (int step = 0; step < 3000; ++step) {
    const std::string name = "p" + std::to_string(rng() % 60);
    const std::string node = rng() % 5 == 0 ? "" : "n" + std::to_string(rng() % 4);
    const std::string version = std::to_string(++rv);
    if (step % 500 == 499) {  // a relist of a random subset
      std::vector<ObjectPtr> list;
      node_of.clear();
      for (int i = 0; i < 60; ++i) {
        if (rng() % 2) continue;
        const std::string n = "n" + std::to_string(rng() % 4);
        list.push_back(Pod("a", "p" + std::to_string(i), version, n));
        node_of["a/p" + std::to_string(i)] = n;
      }
      store.Replace(std::move(list), version);
    } else if (rng() % 3 == 0) {
      store.ApplyEvent(DeltaType::kDeleted, Pod("a", name, version, node));
      node_of.erase("a/" + name);
    } else {
      store.ApplyEvent(DeltaType::kModified, Pod("a", name, version, node));
      node_of["a/" + name] = node;
    }
    check();
  }
}

// What each handler saw: keys in order, and the threads it ran on.
struct Seen {
  std::vector<std::string> keys;
  std::set<std::thread::id> threads;
};

EventHandler Recording(Seen& seen) {
  auto record = [&seen](const ObjectPtr& o) {
    seen.keys.emplace_back(o->Key());
    seen.threads.insert(std::this_thread::get_id());
  };
  return EventHandler{[record](const ObjectPtr& o, bool initial) {
                        EXPECT_TRUE(initial);
                        record(o);
                      },
                      [record](const ObjectPtr&, const ObjectPtr& o) { record(o); }, nullptr};
}

TEST(StoreIndexTest, AFirstLargeListReachesEveryHandlerInOrderOnOneThreadEach) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}, {kNamespaceIndex, NamespaceIndexFunc()}}));
  std::vector<Seen> seen(4);
  for (Seen& s : seen) store.AddEventHandler(Recording(s), false);
  std::vector<ObjectPtr> list;
  std::vector<std::string> want;
  const size_t n = kConcurrentDispatchMin + 100;
  size_t on_n3 = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i % 10 == 3) ++on_n3;
    list.push_back(Pod("ns" + std::to_string(i % 3), "p" + std::to_string(i), "1", "n" + std::to_string(i % 10)));
    want.push_back("ns" + std::to_string(i % 3) + "/p" + std::to_string(i));
  }
  ReplaceTimings timings = store.Replace(std::move(list), "1");
  ASSERT_EQ(timings.per_handler.size(), 4u);
  for (const Seen& s : seen) {
    EXPECT_EQ(s.keys, want);  // list order, every add once
    EXPECT_EQ(s.threads.size(), 1u);
  }
  EXPECT_EQ(store.ByIndex(kNodeNameIndex, "n3")->size(), on_n3);
  size_t in_namespaces = 0;
  for (const char* ns : {"ns0", "ns1", "ns2"}) in_namespaces += store.ByIndex(kNamespaceIndex, ns)->size();
  EXPECT_EQ(in_namespaces, n);

  // A relist of the same size is not the first: its updates run on the writer's thread.
  for (Seen& s : seen) s = Seen{};
  std::vector<ObjectPtr> again;
  for (size_t i = 0; i < n; ++i) {
    again.push_back(Pod("ns" + std::to_string(i % 3), "p" + std::to_string(i), "2", "n" + std::to_string(i % 10)));
  }
  store.Replace(std::move(again), "2");
  for (const Seen& s : seen) {
    EXPECT_EQ(s.keys, want);
    EXPECT_EQ(s.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST(StoreIndexTest, ABulkHandlerGetsTheFirstListAtOnceAndLaterEventsOneByOne) {
  Store store;
  std::vector<std::vector<std::string>> bulks;
  std::vector<std::string> singles;
  EventHandler bulk{[&](const ObjectPtr& o, bool) { singles.push_back("add " + std::string(o->Key())); },
                    [&](const ObjectPtr&, const ObjectPtr& o) { singles.push_back("update " + std::string(o->Key())); },
                    nullptr,
                    [&](const std::vector<ObjectPtr>& objects) { bulks.push_back(Keys(objects)); }};
  store.AddEventHandler(bulk, false);
  store.Replace({Pod("a", "p", "1"), Pod("a", "q", "1")}, "1");
  ASSERT_EQ(bulks.size(), 1u);
  EXPECT_EQ(bulks[0], (std::vector<std::string>{"a/p", "a/q"}));
  EXPECT_TRUE(singles.empty());
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "r", "2"));
  store.Replace({Pod("a", "p", "3"), Pod("a", "q", "1"), Pod("a", "r", "2"), Pod("a", "s", "3")}, "3");
  EXPECT_EQ(bulks.size(), 1u);  // a relist is not a first list
  EXPECT_EQ(singles, (std::vector<std::string>{"add a/r", "update a/p", "add a/s"}));

  // A handler added later gets the store's objects as one bulk replay.
  std::vector<std::vector<std::string>> late;
  EventHandler late_handler;
  late_handler.on_initial_list = [&](const std::vector<ObjectPtr>& objects) { late.push_back(Keys(objects)); };
  store.AddEventHandler(late_handler, true);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0], (std::vector<std::string>{"a/p", "a/q", "a/r", "a/s"}));
}

}  // namespace
}  // namespace berth::shim
