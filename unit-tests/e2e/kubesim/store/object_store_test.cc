// Tests of kubesim's ObjectStore: resourceVersions, history replay, LIST at an older RV through
// the history overlay, pagination within namespaces, and compaction.
#include "e2e/kubesim/store/object_store.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace berth::kubesim {
namespace {

constexpr char kPods[] = "/pods";
constexpr char kConfigMaps[] = "/configmaps";

ObjectPtr MakeObject(const std::string& ns, const std::string& name, uint64_t rv, const std::string& data = "") {
  auto obj = std::make_shared<StoredObject>();
  obj->namespace_name = ns;
  obj->name = name;
  obj->uid = ns + "/" + name;
  obj->resource_version = rv;
  obj->json = R"({"metadata":{"name":")" + name + R"("},"data":")" + data + R"("})";
  return obj;
}

uint64_t PutObject(ObjectStore& store, const std::string& resource, const std::string& ns, const std::string& name,
                   const std::string& data = "") {
  auto commit = store.Put(resource, ns, name, [&](const ObjectPtr&, uint64_t rv) { return MakeObject(ns, name, rv, data); });
  return commit ? commit->object->resource_version : 0;
}

uint64_t RemoveObject(ObjectStore& store, const std::string& resource, const std::string& ns, const std::string& name) {
  auto commit = store.Remove(resource, ns, name, [&](const ObjectPtr& cur, uint64_t rv) {
    auto copy = std::make_shared<StoredObject>(*cur);
    copy->resource_version = rv;
    return ObjectPtr(copy);
  });
  return commit ? commit->object->resource_version : 0;
}

std::vector<std::string> Names(const ListResult& page) {
  std::vector<std::string> out;
  for (const auto& obj : page.items) out.push_back(obj->namespace_name + "/" + obj->name);
  return out;
}

TEST(ObjectStoreTest, EveryWriteTakesTheNextGlobalResourceVersionAcrossResources) {
  ObjectStore store;
  uint64_t start = store.CurrentResourceVersion();
  uint64_t a = PutObject(store, kPods, "ns", "a");
  uint64_t b = PutObject(store, kConfigMaps, "ns", "b");
  uint64_t a2 = PutObject(store, kPods, "ns", "a", "changed");
  uint64_t gone = RemoveObject(store, kConfigMaps, "ns", "b");
  EXPECT_EQ(a, start + 1);
  EXPECT_EQ(b, a + 1);
  EXPECT_EQ(a2, b + 1);
  EXPECT_EQ(gone, a2 + 1);
  EXPECT_EQ(store.CurrentResourceVersion(), gone);
}

TEST(ObjectStoreTest, ABuilderReturningNullCommitsNothing) {
  ObjectStore store;
  uint64_t before = store.CurrentResourceVersion();
  auto commit = store.Put(kPods, "ns", "x", [](const ObjectPtr&, uint64_t) { return ObjectPtr(); });
  EXPECT_FALSE(commit.has_value());
  EXPECT_EQ(store.CurrentResourceVersion(), before);
  EXPECT_EQ(store.Get(kPods, "ns", "x"), nullptr);
  EXPECT_FALSE(store.Remove(kPods, "ns", "absent", [](const ObjectPtr& c, uint64_t) { return c; }).has_value());
}

TEST(ObjectStoreTest, WatchReplaysTheEventsAfterTheGivenResourceVersionForItsResourceAndNamespace) {
  ObjectStore store;
  uint64_t from = PutObject(store, kPods, "ns", "before");
  PutObject(store, kPods, "ns", "a");
  PutObject(store, kConfigMaps, "ns", "other-resource");
  PutObject(store, kPods, "elsewhere", "other-namespace");
  PutObject(store, kPods, "ns", "a", "v2");
  RemoveObject(store, kPods, "ns", "a");
  WatcherPtr watcher = store.Watch(kPods, "ns", from);
  ASSERT_NE(watcher, nullptr);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  std::vector<WatchEventType> types;
  while (auto event = watcher->Next(deadline)) {
    EXPECT_EQ(event->object->name, "a");
    types.push_back(event->type);
  }
  EXPECT_EQ(types, (std::vector<WatchEventType>{WatchEventType::kAdded, WatchEventType::kModified,
                                                 WatchEventType::kDeleted}));
  // New commits reach the live watcher.
  PutObject(store, kPods, "ns", "live");
  auto event = watcher->Next(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->object->name, "live");
  EXPECT_EQ(event->resource_version, store.CurrentResourceVersion());
  store.StopWatch(watcher);
  EXPECT_TRUE(watcher->closed());
}

TEST(ObjectStoreTest, ListAtAnOlderResourceVersionShowsTheStateOfThatTime) {
  ObjectStore store;
  PutObject(store, kPods, "ns", "kept", "v1");
  PutObject(store, kPods, "ns", "removed");
  uint64_t then = store.CurrentResourceVersion();
  PutObject(store, kPods, "ns", "kept", "v2");
  RemoveObject(store, kPods, "ns", "removed");
  PutObject(store, kPods, "ns", "added-later");

  auto old_page = store.List(kPods, "", nullptr, then, 0, "");
  ASSERT_TRUE(old_page.has_value());
  EXPECT_EQ(old_page->resource_version, then);
  EXPECT_EQ(Names(*old_page), (std::vector<std::string>{"ns/kept", "ns/removed"}));
  EXPECT_NE(old_page->items[0]->json.find("v1"), std::string::npos);

  auto now_page = store.List(kPods, "", nullptr, 0, 0, "");
  EXPECT_EQ(Names(*now_page), (std::vector<std::string>{"ns/added-later", "ns/kept"}));
  EXPECT_NE(now_page->items[1]->json.find("v2"), std::string::npos);
  EXPECT_EQ(now_page->resource_version, store.CurrentResourceVersion());
}

TEST(ObjectStoreTest, PagesWithinANamespaceReturnEachObjectOnceWithTheRemainingCount) {
  ObjectStore store;
  for (const char* ns : {"a", "b", "c"}) {
    for (int i = 0; i < 5; ++i) PutObject(store, kPods, ns, "p" + std::to_string(i));
  }
  std::vector<std::string> seen;
  std::string start;
  uint64_t at = 0, offset = 0;
  std::vector<int64_t> remaining;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = store.List(kPods, "b", nullptr, at, 2, start, offset);
    ASSERT_TRUE(page.has_value());
    at = page->resource_version;
    for (const auto& n : Names(*page)) seen.push_back(n);
    remaining.push_back(page->remaining);
    if (page->next_key.empty()) break;
    start = page->next_key;
    offset = page->next_offset;
    PutObject(store, kPods, "b", "p9-late");  // later writes must not leak into the snapshot
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"b/p0", "b/p1", "b/p2", "b/p3", "b/p4"}));
  EXPECT_EQ(remaining, (std::vector<int64_t>{3, 1, 0}));
}

TEST(ObjectStoreTest, FiltersApplyBeforePaging) {
  ObjectStore store;
  for (int i = 0; i < 6; ++i) PutObject(store, kPods, "ns", "p" + std::to_string(i));
  ObjectFilter even = [](const StoredObject& o) { return (o.name.back() - '0') % 2 == 0; };
  auto page = store.List(kPods, "ns", even, 0, 2, "");
  EXPECT_EQ(Names(*page), (std::vector<std::string>{"ns/p0", "ns/p2"}));
  // With a filter the count of what remains is unknown (the apiserver leaves it unset), but
  // the page still says there is more.
  EXPECT_EQ(page->remaining, -1);
  EXPECT_FALSE(page->next_key.empty());
  auto last = store.List(kPods, "ns", even, page->resource_version, 2, page->next_key, page->next_offset);
  EXPECT_EQ(Names(*last), (std::vector<std::string>{"ns/p4"}));
  EXPECT_TRUE(last->next_key.empty());
}

TEST(ObjectStoreTest, CompactedResourceVersionsAreRefusedForListAndWatch) {
  ObjectStore store(3);
  uint64_t old = PutObject(store, kPods, "ns", "a");
  for (int i = 0; i < 5; ++i) PutObject(store, kPods, "ns", "b" + std::to_string(i));
  EXPECT_GT(store.OldestRetainedResourceVersion(), old);
  EXPECT_FALSE(store.List(kPods, "ns", nullptr, old, 0, "").has_value());
  EXPECT_EQ(store.Watch(kPods, "ns", old), nullptr);
  // The oldest retained RV itself still works: history holds every later event.
  uint64_t oldest = store.OldestRetainedResourceVersion();
  EXPECT_TRUE(store.List(kPods, "ns", nullptr, oldest, 0, "").has_value());
  EXPECT_NE(store.Watch(kPods, "ns", oldest), nullptr);
}

TEST(ObjectStoreTest, ShrinkingTheHistoryWindowCompactsAtOnce) {
  ObjectStore store(100);
  uint64_t first = PutObject(store, kPods, "ns", "a");
  for (int i = 0; i < 10; ++i) PutObject(store, kPods, "ns", "a", std::to_string(i));
  ASSERT_TRUE(store.List(kPods, "ns", nullptr, first, 0, "").has_value());
  store.SetHistoryWindow(2);
  EXPECT_EQ(store.HistoryWindow(), 2u);
  EXPECT_FALSE(store.List(kPods, "ns", nullptr, first, 0, "").has_value());
}

TEST(ObjectStoreTest, CloseAllWatchersEndsEveryWatch) {
  ObjectStore store;
  WatcherPtr w1 = store.Watch(kPods, "", store.CurrentResourceVersion());
  WatcherPtr w2 = store.Watch(kConfigMaps, "ns", store.CurrentResourceVersion());
  store.CloseAllWatchers();
  EXPECT_TRUE(w1->closed());
  EXPECT_TRUE(w2->closed());
  EXPECT_FALSE(w1->Next(std::chrono::steady_clock::now() + std::chrono::seconds(5)).has_value());
}

TEST(ObjectStoreTest, ListenersSeeCommitsInOrder) {
  ObjectStore store;
  std::vector<uint64_t> seen;
  store.Subscribe([&](const HistoryEvent& e) { seen.push_back(e.resource_version); });
  uint64_t a = PutObject(store, kPods, "ns", "a");
  uint64_t b = RemoveObject(store, kPods, "ns", "a");
  EXPECT_EQ(seen, (std::vector<uint64_t>{a, b}));
  EXPECT_EQ(store.ObjectCount(), 0u);
}

}  // namespace
}  // namespace berth::kubesim
