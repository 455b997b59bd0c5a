#include "clientgo-shim/watch/watch_event.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

TEST(WatchEventTest, EveryEventTypeDecodesWithItsObject) {
  const std::pair<const char*, WatchEventType> cases[] = {
      {"ADDED", WatchEventType::kAdded},       {"MODIFIED", WatchEventType::kModified},
      {"DELETED", WatchEventType::kDeleted},   {"BOOKMARK", WatchEventType::kBookmark},
      {"ERROR", WatchEventType::kError}};
  for (auto [name, type] : cases) {
    auto ev = DecodeWatchEvent(std::string(R"({"type":")") + name +
                               R"(","object":{"metadata":{"resourceVersion":"12"}}})");
    ASSERT_TRUE(ev) << name;
    EXPECT_EQ(ev->type, type);
    EXPECT_EQ(ev->ResourceVersion(), "12");
  }
}

TEST(WatchEventTest, MalformedLinesAreDecodeErrors) {
  for (const char* bad : {"", "{", "[]", R"({"type":"ADDED"})", R"({"type":"ADDED","object":[]})",
                          R"({"type":"SYNC","object":{}})", R"({"object":{}})",
                          R"({"type":5,"object":{}})"}) {
    auto ev = DecodeWatchEvent(bad);
    EXPECT_FALSE(ev) << bad;
    if (!ev) {
      EXPECT_EQ(ev.error().code, ErrorCode::kDecode) << bad;
    }
  }
}

TEST(WatchEventTest, AnExpiredStatusBecomesGone) {
  auto st = json::Parse(
      R"j({"kind":"Status","status":"Failure","message":"too old resource version: 1 (9)","reason":"Expired","code":410})j");
  ASSERT_TRUE(st);
  Error e = ErrorFromStatusObject(*st);
  EXPECT_EQ(e.code, ErrorCode::kGone);
  EXPECT_EQ(e.http_status, 410);
  EXPECT_EQ(e.reason, "Expired");
  EXPECT_EQ(e.message, "too old resource version: 1 (9)");
  auto internal = json::Parse(R"({"kind":"Status","message":"etcd down","code":500})");
  EXPECT_EQ(ErrorFromStatusObject(*internal).code, ErrorCode::kInternal);
  auto empty = json::Parse(R"({})");
  EXPECT_EQ(ErrorFromStatusObject(*empty).code, ErrorCode::kInternal);
}

TEST(WatchEventTest, ListPagesExposeItemsRvAndContinue) {
  auto page = DecodeListPage(R"({"metadata":{"resourceVersion":"7","continue":"c1"},"items":[{"a":1},{"a":2}]})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->resource_version, "7");
  EXPECT_EQ(page->continue_token, "c1");
  EXPECT_EQ(page->Items().Size(), 2u);
  auto no_items = DecodeListPage(R"({"metadata":{"resourceVersion":"7"},"items":null})");
  ASSERT_TRUE(no_items);
  EXPECT_EQ(no_items->Items().Size(), 0u);
  for (const char* bad : {"", "[1]", R"({"items":{}})", "{\"items\":[", "null"}) {
    auto p = DecodeListPage(bad);
    EXPECT_FALSE(p) << bad;
  }
}

}  // namespace
}  // namespace berth::shim
