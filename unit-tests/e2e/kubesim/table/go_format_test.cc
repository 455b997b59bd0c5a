#include "e2e/kubesim/table/go_format.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace berth::kubesim::table {
namespace {

TEST(FormatGoJsonFloat, MatchesEncodingJson) {
  EXPECT_EQ(FormatGoJsonFloat(1234567.0), "1234567");
  EXPECT_EQ(FormatGoJsonFloat(1e20), "100000000000000000000");
  EXPECT_EQ(FormatGoJsonFloat(1e21), "1e+21");
  EXPECT_EQ(FormatGoJsonFloat(0.000001), "0.000001");
  EXPECT_EQ(FormatGoJsonFloat(1e-7), "1e-7");
}

TEST(GoJsonMarshal, SortsKeysAndEscapesHtml) {
  auto doc = testing::ParseJson(R"({"b":[1,2.5,true,null],"a":{"y":"<&>","x":"q\""}})");
  EXPECT_EQ(GoJsonMarshal(doc), R"({"a":{"x":"q\"","y":"\u003c\u0026\u003e"},"b":[1,2.5,true,null]})");
}

TEST(GoPrintValue, PrintsScalarsRawAndContainersAsJson) {
  auto doc = testing::ParseJson(R"({"s":"24h","i":5,"f":1.5,"b":false,"n":null,"o":{"k":1}})");
  EXPECT_EQ(GoPrintValue(doc["s"]), "24h");
  EXPECT_EQ(GoPrintValue(doc["i"]), "5");
  EXPECT_EQ(GoPrintValue(doc["f"]), "1.5");
  EXPECT_EQ(GoPrintValue(doc["b"]), "false");
  EXPECT_EQ(GoPrintValue(doc["n"]), "null");
  EXPECT_EQ(GoPrintValue(doc["o"]), R"({"k":1})");
}

}  // namespace
}  // namespace berth::kubesim::table
