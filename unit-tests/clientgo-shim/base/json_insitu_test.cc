#include "clientgo-shim/base/json_insitu.h"

#include <gtest/gtest.h>

namespace berth::json {
namespace {

using namespace std::string_literals;

// ParseInsitu must accept and reject exactly what Parse does, with the same messages.
TEST(JsonInsituTest, AgreesWithParseOnValidAndMalformedInput) {
  const std::string cases[] = {
      R"({"metadata":{"name":"a","labels":{"x":"y"}},"items":[1,-2,3.5,true,null]})",
      R"({"s":"quote \" slash \\ unicode \u00e9 \ud83d\ude00 tab \t"})",
      "  [1, 2]  \n",
      "{}\0trailing after a NUL"s,
      "",
      "   ",
      R"({"a" 1})",
      R"({"a":1} x)",
      R"({"a":1}{"b":2})",
      R"({"a":"unterminated)",
      "{\"a\":\"nul\0inside\"}"s,
      R"({"a":"\uD800"})",
      R"({"a":"\x"})",
      "[5e308]",
      "[-10e308]",
      R"({"a":[1,{"b":[)",
      "nul",
      "[1,]",
  };
  for (const std::string& text : cases) {
    auto expected = Parse(text);
    std::string buffer = text;
    auto got = ParseInsitu(buffer);
    ASSERT_EQ(got.has_value(), expected.has_value()) << text;
    if (expected) {
      EXPECT_EQ(Serialize(*got), Serialize(*expected)) << text;
    } else {
      EXPECT_EQ(got.error().code, ErrorCode::kInvalidArgument);
      EXPECT_EQ(got.error().message, expected.error().message) << text;
    }
  }
}

TEST(JsonInsituTest, StringsPointIntoTheBuffer) {
  std::string buffer = R"({"name":"pod-1","escaped":"a\"b"})";
  auto doc = ParseInsitu(buffer);
  ASSERT_TRUE(doc);
  const char* name = (*doc)["name"].GetString();
  EXPECT_GE(name, buffer.data());
  EXPECT_LT(name, buffer.data() + buffer.size());
  EXPECT_EQ(std::string((*doc)["escaped"].GetString()), "a\"b");
}

}  // namespace
}  // namespace berth::json
