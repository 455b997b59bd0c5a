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

TEST(WatchEventTest, InsituListPagesDecodeLikeCopiedOnes) {
  std::string body = R"({"metadata":{"resourceVersion":"7","continue":"c1"},"items":[{"a":"x\"y"}]})";
  auto page = DecodeListPageInsitu(body);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->resource_version, "7");
  EXPECT_EQ(page->continue_token, "c1");
  ASSERT_EQ(page->Items().Size(), 1u);
  EXPECT_EQ(std::string(page->Items()[0]["a"].GetString()), "x\"y");
  for (std::string bad : {"", "[1]", R"({"items":{}})", "{\"items\":[", "null"}) {
    EXPECT_FALSE(DecodeListPageInsitu(bad)) << bad;
  }
}

TEST(WatchEventTest, ScanListMetadataReadsTheTokenWithoutTheItems) {
  // The items after the metadata are not read, so a page cut short there still scans.
  auto meta = ScanListMetadata(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"eyJ2Ijo=",)"
      R"("remainingItemCount":7,"x":{"continue":"nested"}},"items":[{"metadata":{"continue":"no")");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->resource_version, "42");
  EXPECT_EQ(meta->continue_token, "eyJ2Ijo=");
  // Metadata after the items (allowed JSON, not what apiservers write): read to the end.
  auto late = ScanListMetadata(
      R"({"items":[{"metadata":{"resourceVersion":"1"}}],"metadata":{"resourceVersion":"9"}})");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->resource_version, "9");
  EXPECT_EQ(late->continue_token, "");
  // The last page: no continue; metadata null or absent reads as empty, as DecodeListPage does.
  for (const char* last : {R"({"metadata":{"resourceVersion":"5"},"items":[]})",
                           R"({"metadata":null,"items":[]})", R"({"items":[]})"}) {
    auto m = ScanListMetadata(last);
    ASSERT_TRUE(m) << last;
    EXPECT_EQ(m->continue_token, "") << last;
  }
  // Malformed: not an object, broken JSON before or in the metadata, or anywhere when there is
  // no metadata before the items.
  for (const char* bad : {"", "[]", "null", "\"x\"", R"({"metadata":{"resourceVersion":5)",
                          R"({"metadata" {}})", R"({"items":[1,,2]})", R"({"metadata":{}},"items":[])"}) {
    auto m = ScanListMetadata(bad);
    ASSERT_FALSE(m) << bad;
    EXPECT_EQ(m.error().code, ErrorCode::kDecode) << bad;
  }
}

}  // namespace
}  // namespace berth::shim
