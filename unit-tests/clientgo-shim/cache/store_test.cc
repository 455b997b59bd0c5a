#include "clientgo-shim/cache/store.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "clientgo-shim/cache/store_test_objects.h"

namespace berth::shim {
namespace {

using testing::Keys;
using testing::Pod;

// Records handler calls as lines: "add a/b 1 initial", "update a/b 1->2", "delete a/b unknown".
struct Recorder {
  std::vector<std::string> lines;
  EventHandler Handler() {
    return EventHandler{
        [this](const ObjectPtr& o, bool initial) {
          lines.push_back("add " + std::string(o->Key()) + " " + std::string(o->ResourceVersion()) +
                          (initial ? " initial" : ""));
        },
        [this](const ObjectPtr& o, const ObjectPtr& n) {
          lines.push_back("update " + std::string(n->Key()) + " " +
                          std::string(o->ResourceVersion()) + "->" +
                          std::string(n->ResourceVersion()));
        },
        [this](const DeletedObject& d) {
          lines.push_back("delete " + d.key + " " + std::string(d.object->ResourceVersion()) +
                          (d.final_state_unknown ? " unknown" : ""));
        }};
  }
  std::vector<std::string> Sorted() const {
    auto s = lines;
    std::sort(s.begin(), s.end());
    return s;
  }
};

TEST(StoreTest, ApplyEventAddsUpdatesAndDeletesByKey) {
  Store store;
  Recorder rec;
  store.AddEventHandler(rec.Handler(), false);
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p", "1"));
  store.ApplyEvent(DeltaType::kModified, Pod("a", "p", "2"));
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "q", "3"));
  store.ApplyEvent(DeltaType::kDeleted, Pod("a", "p", "4"));
  store.ApplyEvent(DeltaType::kDeleted, Pod("a", "never", "5"));  // unknown: ignored
  EXPECT_EQ(rec.lines, (std::vector<std::string>{"add a/p 1", "update a/p 1->2", "add a/q 3",
                                                 "delete a/p 4"}));
  EXPECT_EQ(store.Get("a/p"), nullptr);
  ASSERT_NE(store.Get("a/q"), nullptr);
  EXPECT_EQ(store.Get("a/q")->ResourceVersion(), "3");
  EXPECT_EQ(store.Size(), 1u);
  EXPECT_EQ(store.ResourceVersion(), "5");
}

TEST(StoreTest, AModifiedEventForAnUnknownKeyIsAnAdd) {
  Store store;
  Recorder rec;
  store.AddEventHandler(rec.Handler(), false);
  store.ApplyEvent(DeltaType::kModified, Pod("a", "p", "9"));
  EXPECT_EQ(rec.lines, std::vector<std::string>{"add a/p 9"});
}

TEST(StoreTest, ReplaceEmitsAddsUpdatesAndTombstonesForVanishedObjects) {
  Store store;
  Recorder rec;
  store.AddEventHandler(rec.Handler(), false);
  store.Replace({Pod("a", "keep", "1"), Pod("a", "change", "1"), Pod("a", "gone", "1")}, "10");
  EXPECT_EQ(rec.Sorted(), (std::vector<std::string>{"add a/change 1 initial",
                                                    "add a/gone 1 initial",
                                                    "add a/keep 1 initial"}));
  rec.lines.clear();
  store.Replace({Pod("a", "keep", "1"), Pod("a", "change", "7"), Pod("a", "new", "8")}, "20");
  EXPECT_EQ(rec.Sorted(), (std::vector<std::string>{"add a/new 8", "delete a/gone 1 unknown",
                                                    "update a/change 1->7"}));
  EXPECT_EQ(Keys(store.List()), (std::vector<std::string>{"a/change", "a/keep", "a/new"}));
  EXPECT_EQ(store.ResourceVersion(), "20");
}

TEST(StoreTest, DuplicateKeysInOneListKeepTheLastCopy) {
  Store store;
  store.Replace({Pod("a", "p", "1"), Pod("a", "p", "2")}, "5");
  ASSERT_EQ(store.Size(), 1u);
  EXPECT_EQ(store.Get("a/p")->ResourceVersion(), "2");
}

TEST(StoreTest, NamespaceAndNodeIndexesFollowUpdatesAndDeletes) {
  Store store;
  ASSERT_TRUE(store.AddIndexers({{kNamespaceIndex, NamespaceIndexFunc()},
                                 {kNodeNameIndex, NodeNameIndexFunc()}}));
  store.Replace({Pod("a", "p1", "1", "n1"), Pod("a", "p2", "1", "n2"), Pod("b", "p3", "1", "n1"),
                 Pod("b", "pending", "1")},
                "1");
  EXPECT_EQ(Keys(*store.ByIndex(kNodeNameIndex, "n1")),
            (std::vector<std::string>{"a/p1", "b/p3"}));
  EXPECT_EQ(Keys(*store.ByIndex(kNamespaceIndex, "b")),
            (std::vector<std::string>{"b/p3", "b/pending"}));
  EXPECT_EQ(*store.IndexValues(kNodeNameIndex), (std::vector<std::string>{"n1", "n2"}));
  // p1 moves to n2, p3 is deleted, pending gets scheduled.
  store.ApplyEvent(DeltaType::kModified, Pod("a", "p1", "2", "n2"));
  store.ApplyEvent(DeltaType::kDeleted, Pod("b", "p3", "3", "n1"));
  store.ApplyEvent(DeltaType::kModified, Pod("b", "pending", "4", "n3"));
  EXPECT_TRUE(store.ByIndex(kNodeNameIndex, "n1")->empty());
  EXPECT_EQ(Keys(*store.ByIndex(kNodeNameIndex, "n2")),
            (std::vector<std::string>{"a/p1", "a/p2"}));
  EXPECT_EQ(Keys(*store.ByIndex(kNodeNameIndex, "n3")), std::vector<std::string>{"b/pending"});
  EXPECT_EQ(*store.IndexValues(kNodeNameIndex), (std::vector<std::string>{"n2", "n3"}));
}

TEST(StoreTest, IndexesAddedLaterCoverExistingObjectsAndNamesMustBeUnique) {
  Store store;
  store.Replace({Pod("a", "p", "1", "n1")}, "1");
  ASSERT_TRUE(store.AddIndexers({{"custom", [](const CachedObject& o) {
                                    return std::vector<std::string>{std::string(o.Name()) + "!"};
                                  }}}));
  EXPECT_EQ(Keys(*store.ByIndex("custom", "p!")), std::vector<std::string>{"a/p"});
  auto dup = store.AddIndexers({{"custom", NamespaceIndexFunc()}});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(dup.error().message, "indexer conflict: custom");
  auto missing = store.ByIndex("nope", "x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "index with name nope does not exist");
}

TEST(StoreTest, ALateHandlerReplaysExistingObjectsAsInitialAdds) {
  Store store;
  store.Replace({Pod("a", "p", "1"), Pod("a", "q", "2")}, "2");
  Recorder late;
  store.AddEventHandler(late.Handler(), true);
  EXPECT_EQ(late.Sorted(), (std::vector<std::string>{"add a/p 1 initial", "add a/q 2 initial"}));
  store.ApplyEvent(DeltaType::kModified, Pod("a", "p", "3"));
  EXPECT_EQ(late.lines.back(), "update a/p 1->3");
}

TEST(StoreTest, RemovedHandlersReceiveNothing) {
  Store store;
  Recorder rec;
  HandlerId id = store.AddEventHandler(rec.Handler(), false);
  store.RemoveEventHandler(id);
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p", "1"));
  EXPECT_TRUE(rec.lines.empty());
}

TEST(StoreTest, HandlersMayReadTheStoreWhileBeingNotified) {
  Store store;
  size_t seen = 0;
  store.AddEventHandler({[&](const ObjectPtr& o, bool) { seen = store.List().size(); }, {}, {}},
                        false);
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p", "1"));
  EXPECT_EQ(seen, 1u);
}

TEST(StoreTest, FootprintGrowsWithObjectsAndShrinksWhenTheyGo) {
  Store store;
  const size_t empty = store.FootprintBytes();
  store.ApplyEvent(DeltaType::kAdded, Pod("a", "p", "1"));
  const size_t one = store.FootprintBytes();
  EXPECT_GT(one, empty);
  store.ApplyEvent(DeltaType::kDeleted, Pod("a", "p", "2"));
  EXPECT_LT(store.FootprintBytes(), one);
}

}  // namespace
}  // namespace berth::shim
