#include "clientgo-shim/base/json.h"

#include <string>

#include <gtest/gtest.h>

namespace berth::json {
namespace {

TEST(JsonParseTest, ParsesNestedObjectsAndFindsPaths) {
  auto doc = Parse(R"({"metadata":{"name":"a","labels":{"x":"y"}}})");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(GetString(*doc, {"metadata", "name"}), "a");
  EXPECT_EQ(GetString(*doc, {"metadata", "labels", "x"}), "y");
  EXPECT_EQ(Find(*doc, {"metadata", "missing"}), nullptr);
  EXPECT_EQ(GetString(*doc, {"metadata"}, "fallback"), "fallback");
}

TEST(JsonParseTest, RejectsMalformedInputWithOffset) {
  auto doc = Parse(R"({"a" 1})");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(doc.error().message.find("offset 5"), std::string::npos) << doc.error().message;
}

TEST(JsonParseTest, RejectsTrailingGarbageAndEmptyInput) {
  EXPECT_FALSE(Parse(R"({"a":1} x)").has_value());
  EXPECT_FALSE(Parse("").has_value());
}

TEST(JsonParseTest, NumbersBeyondDoubleAreErrorsNotInfinity) {
  // RapidJSON alone reads these as ±inf, which Serialize cannot write back (json_fuzz found it).
  for (const char* text : {"[5e308]", "[-5e308]", R"({"a":[1,{"b":-10e308}]})"}) {
    auto doc = Parse(text);
    ASSERT_FALSE(doc.has_value()) << text;
    EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(doc.error().message.find("Number too big"), std::string::npos) << doc.error().message;
  }
  auto largest = Parse("[1.7976931348623157e308,-1.7976931348623157e308,5e-324]");
  ASSERT_TRUE(largest.has_value());
  auto again = Parse(Serialize(*largest));
  ASSERT_TRUE(again.has_value()) << Serialize(*largest);
  EXPECT_EQ((*again)[0].GetDouble(), 1.7976931348623157e308);
  EXPECT_EQ((*again)[1].GetDouble(), -1.7976931348623157e308);
}

TEST(JsonNestingTest, CountsOnlyBracketsOutsideStrings) {
  EXPECT_FALSE(NestsDeeperThan(R"({"a":[{"b":[]}]})", 4));
  EXPECT_TRUE(NestsDeeperThan(R"({"a":[{"b":[]}]})", 3));
  // Brackets in strings, escaped quotes included, are text.
  EXPECT_FALSE(NestsDeeperThan(R"({"a":"[[[[{{{{\"[[[["})", 1));
  EXPECT_TRUE(NestsDeeperThan(R"({"a":"\"", "b":[[]]})", 2));
  // Closing brackets bring the depth down: siblings do not add up.
  EXPECT_FALSE(NestsDeeperThan("[[],[],[],[]]", 2));
  EXPECT_FALSE(NestsDeeperThan("", 0));
  EXPECT_TRUE(NestsDeeperThan(std::string(1'000'000, '['), 10000));  // a loop, no recursion
  EXPECT_FALSE(NestsDeeperThan(std::string(10000, '[') + std::string(10000, ']'), 10000));
}

TEST(JsonEditTest, SettingANullViewStoresAnEmptyString) {
  // GetString's fallback for an absent path is a null view; its data() must not reach RapidJSON's
  // memcpy (undefined behaviour UBSan reports).
  rapidjson::Document doc(rapidjson::kObjectType);
  std::string_view absent = json::GetString(doc, {"metadata", "namespace"});
  EXPECT_TRUE(absent.empty());
  json::SetString(doc, "a", std::string_view(), doc.GetAllocator());
  json::SetString(doc, "b", absent, doc.GetAllocator());
  EXPECT_EQ(json::Serialize(doc), R"({"a":"","b":""})");
}

TEST(JsonEditTest, SetAndRemoveMembersRoundTrip) {
  Document doc;
  doc.SetObject();
  Value& meta = EnsureObject(doc, "metadata", doc.GetAllocator());
  SetString(meta, "name", "pod-1", doc.GetAllocator());
  SetString(meta, "name", "pod-2", doc.GetAllocator());
  EXPECT_EQ(Serialize(doc), R"({"metadata":{"name":"pod-2"}})");
  EXPECT_TRUE(RemoveMember(meta, "name"));
  EXPECT_FALSE(RemoveMember(meta, "name"));
  EXPECT_EQ(Serialize(doc), R"({"metadata":{}})");
}

}  // namespace
}  // namespace berth::json

TEST(JsonFindTest, KeysThatAreNotNulTerminatedViewsMatchByLength) {
  auto doc = berth::json::Parse(R"({"meta":1,"metadata":{"name":"x"}})");
  ASSERT_TRUE(doc);
  const std::string buffer = "metadataXYZ";
  const std::string_view metadata(buffer.data(), 8);  // "metadata", followed by more bytes
  const berth::json::Value* found = berth::json::Member(*doc, metadata);
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(found->IsObject());
  const std::string_view meta(buffer.data(), 4);
  ASSERT_NE(berth::json::Member(*doc, meta), nullptr);
  EXPECT_EQ(berth::json::Member(*doc, meta)->GetInt(), 1);
  EXPECT_EQ(berth::json::GetString(*doc, {metadata, std::string_view(buffer.data(), 4)}), "");
  EXPECT_EQ(berth::json::GetString(*doc, {metadata, std::string_view("nameless", 4)}), "x");
}
