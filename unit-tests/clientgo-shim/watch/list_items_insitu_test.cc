// DecodeListItemsInsitu walks a JSON LIST page's root itself and parses items one at a time; it
// must hand over exactly the items the whole-page document holds, read the same metadata, and
// refuse every page the document parse refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/watch/watch_event.h"

namespace berth::shim {
namespace {

struct ItemByItem {
  Result<ListMetadata> meta;
  std::vector<std::string> items;  // serialized as handed over
};

ItemByItem DecodeItemByItem(std::string body) {
  ItemByItem out;
  out.meta = DecodeListItemsInsitu(body, [&](rapidjson::Value& item, rapidjson::Document::AllocatorType&) -> Status {
    out.items.push_back(json::Serialize(item));
    return {};
  });
  return out;
}

// ExpectSameAsTheDocument: the page decodes item by item exactly as the whole-page document does
// (both succeed with the same items and metadata, or both fail).
void ExpectSameAsTheDocument(const std::string& body) {
  std::string copy = body;
  auto page = DecodeListPageInsitu(copy);
  ItemByItem got = DecodeItemByItem(body);
  ASSERT_EQ(static_cast<bool>(page), static_cast<bool>(got.meta))
      << body << "\n" << (page ? "" : page.error().message) << (got.meta ? "" : got.meta.error().message);
  if (!page) {
    EXPECT_EQ(got.meta.error().code, page.error().code) << body;
    EXPECT_EQ(got.meta.error().message.rfind("list: ", 0), 0u) << got.meta.error().message;
    return;
  }
  EXPECT_EQ(got.meta->resource_version, page->resource_version) << body;
  EXPECT_EQ(got.meta->continue_token, page->continue_token) << body;
  const rapidjson::Value& items = page->Items();
  ASSERT_EQ(got.items.size(), items.Size()) << body;
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) EXPECT_EQ(got.items[i], json::Serialize(items[i])) << body;
}

TEST(ListItemsInsituTest, FixturesDecodeAsTheWholePageDocument) {
  for (const char* body : {
           R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c1"},"items":[{"a":1},{"b":"x\"y\u00e9"}]})",
           R"({"items":[{"metadata":{"name":"p"}}],"metadata":{"resourceVersion":"9"}})",  // metadata last
           R"( { "metadata" : { "resourceVersion" : "7" } , "items" : [ ] } )",            // whitespace everywhere
           R"({"metadata":{"resourceVersion":"7"},"items":null})",
           R"({})",
           R"({"items":[1,"two",null,[3],{"n":-1.5e3}]})",  // non-object items are handed over too (the cache drops them)
           R"({"metadata":{"resourceVersion":"1"},"metadata":{"resourceVersion":"2"},"items":[{"a":1}],"items":[{"b":2}]})",
           R"({"metadata":null,"items":[{"deep":{"a":[{"b":[{"c":{}}]}]}}]})",
           "{\"items\":[{\"a\":1}]}\n\n",
       }) {
    ExpectSameAsTheDocument(body);
  }
  // The text ends at a NUL byte for both (in-place parsing reads a C string).
  ExpectSameAsTheDocument(std::string("{\"items\":[{\"a\":1}]}\0trailing", 28));
}

TEST(ListItemsInsituTest, MalformedPagesAreRefusedAsTheDocumentRefusesThem) {
  for (const char* bad : {"", "   ", "[1]", "null", "7", R"("s")", R"({"items":{}})", R"({"items":3})", "{\"items\":[",
                          "{\"items\":[{\"a\":1}", "{\"items\":[{\"a\":1},]}", "{\"items\":[,]}", "{\"items\":[{\"a\":1}}",
                          "{\"items\":[]", "{\"items\":[]}}", "{\"items\":[] x}", "{,}", "{\"a\":1,}", "{\"a\" 1}",
                          "{a:1}", "{\"a\":}", "{\"items\":[{\"a\":1e999}]}", "{\"items\":[{\"a\":tru}]}",
                          "{\"metadata\":{\"resourceVersion\":\"7\"}", "{\"items\":[]} {}", "{\"items\":[\"\\x\"]}"}) {
    SCOPED_TRACE(bad);
    ExpectSameAsTheDocument(bad);
    EXPECT_FALSE(DecodeItemByItem(bad).meta);
  }
}

TEST(ListItemsInsituTest, RandomPagesDecodeAsTheWholePageDocument) {
  std::mt19937 rng(7);
  // Random JSON values: nested objects and arrays of strings (with escapes), numbers, literals.
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (rng() % (depth > 3 ? 5 : 7)) {
      case 0: return "null";
      case 1: return rng() % 2 ? "true" : "false";
      case 2: return std::to_string(static_cast<int>(rng() % 20000) - 10000);
      case 3: return std::to_string(rng() % 1000) + ".25e" + std::to_string(rng() % 5);
      case 4: return rng() % 3 ? R"("w)" + std::to_string(rng() % 50) + R"(")" : R"("a\"b\\c\n\u00e9")";
      case 5: {
        std::string out = "[";
        for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) out += (i ? "," : "") + value(depth + 1);
        return out + "]";
      }
      default: {
        std::string out = "{";
        for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) {
          out += (i ? "," : "") + (R"("k)" + std::to_string(i) + R"(":)") + value(depth + 1);
        }
        return out + "}";
      }
    }
  };
  for (int page = 0; page < 200; ++page) {
    std::vector<std::string> members;
    if (rng() % 4) members.push_back(R"("metadata":{"resourceVersion":")" + std::to_string(page) + R"(")" +
                                     (rng() % 2 ? R"(,"continue":"c)" + std::to_string(page) + R"(")" : "") + "}");
    if (rng() % 4) {
      std::string items = "[";
      for (int n = static_cast<int>(rng() % 6), i = 0; i < n; ++i) items += (i ? "," : "") + value(0);
      members.push_back(R"("items":)" + items + "]");
    }
    if (rng() % 2) members.push_back(R"("kind":"PodList")");
    std::shuffle(members.begin(), members.end(), rng);
    std::string body = "{";
    for (size_t i = 0; i < members.size(); ++i) body += (i ? (rng() % 2 ? "," : " ,\n ") : "") + members[i];
    body += "}";
    ExpectSameAsTheDocument(body);
    // Cut short anywhere, it is refused by both.
    ExpectSameAsTheDocument(body.substr(0, rng() % body.size()));
  }
}

TEST(ListItemsInsituTest, AnItemCallbackErrorStopsThePage) {
  std::string body = R"({"items":[{"a":1},{"a":2},{"a":3}]})";
  int seen = 0;
  auto meta = DecodeListItemsInsitu(body, [&](rapidjson::Value&, rapidjson::Document::AllocatorType&) -> Status {
    if (++seen == 2) return MakeError(ErrorCode::kInvalidArgument, "second item refused");
    return {};
  });
  ASSERT_FALSE(meta);
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(meta.error().message, "second item refused");
}

}  // namespace
}  // namespace berth::shim
