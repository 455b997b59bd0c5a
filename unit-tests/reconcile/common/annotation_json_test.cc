// Tests for reconcile/common/annotation_json.h: annotation JSON parses like json::Parse, and
// nesting deep enough to overflow a recursive parser is an ordinary result, never a crash.
#include "reconcile/common/annotation_json.h"

#include <string>

#include <gtest/gtest.h>

namespace berth::reconcile {
namespace {

// 200,000 levels fit in one 256 KiB annotation and overflow an 8 MiB stack when parsed recursively.
constexpr size_t kDeep = 200000;

TEST(ParseAnnotationJson, ParsesObjectsLikeJsonParse) {
  auto doc = ParseAnnotationJson(R"({"name":"r","uid":"u","n":[1,2]})");
  ASSERT_TRUE(doc.has_value());
  ASSERT_TRUE(doc->IsObject());
  EXPECT_STREQ((*doc)["name"].GetString(), "r");
  EXPECT_EQ((*doc)["n"].Size(), 2u);
}

TEST(ParseAnnotationJson, MalformedTextIsAnInvalidArgumentNamingTheOffset) {
  for (std::string_view bad : {"", "{", "not json", R"({"a":})", "[1,]", "{} x"}) {
    auto doc = ParseAnnotationJson(bad);
    ASSERT_FALSE(doc.has_value()) << bad;
    EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(doc.error().message.rfind("invalid JSON at offset ", 0), 0u) << doc.error().message;
  }
}

// RapidJSON reads "11e308" (1.1e309) as infinity without an error; Go's encoding/json rejects
// it, and an infinite value could not be serialized back. Found by annotation_json_fuzz.
TEST(ParseAnnotationJson, NumbersBeyondDoubleRangeAreRejectedLikeJsonParse) {
  for (std::string_view bad : {"11e308", "[1e400]", R"({"n":-5e308})"}) {
    auto doc = ParseAnnotationJson(bad);
    ASSERT_FALSE(doc.has_value()) << bad;
    EXPECT_NE(doc.error().message.find("Number too big to be stored in double"), std::string::npos)
        << doc.error().message;
  }
  EXPECT_TRUE(ParseAnnotationJson("1e308").has_value());
}

TEST(ParseAnnotationJson, UnbalancedDeepNestingIsAParseErrorNotAStackOverflow) {
  auto doc = ParseAnnotationJson(std::string(kDeep, '['));
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
}

TEST(ParseAnnotationJson, BalancedDeepNestingParses) {
  auto doc = ParseAnnotationJson(std::string(kDeep, '[') + std::string(kDeep, ']'));
  ASSERT_TRUE(doc.has_value());
  EXPECT_TRUE(doc->IsArray());
}

}  // namespace
}  // namespace berth::reconcile
