#include "clientgo-shim/base/log.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::log {
namespace {

TEST(LogTest, LinesAreJsonWithLevelLoggerMessageAndEscapedFields) {
  std::string line = FormatLine(Level::kWarn, 1.5, "reservation", "say \"hi\"\n", {{"name", "r\\1"}});
  auto doc = json::Parse(line);
  ASSERT_TRUE(doc.has_value()) << line;
  EXPECT_EQ(json::GetString(*doc, {"level"}), "warn");
  EXPECT_EQ(json::GetString(*doc, {"logger"}), "reservation");
  EXPECT_EQ(json::GetString(*doc, {"msg"}), "say \"hi\"\n");
  EXPECT_EQ(json::GetString(*doc, {"name"}), "r\\1");
  EXPECT_DOUBLE_EQ((*doc)["ts"].GetDouble(), 1.5);
}

TEST(LogTest, LevelsFilterAndParse) {
  Level l;
  EXPECT_TRUE(ParseLevel("debug", l));
  EXPECT_EQ(l, Level::kDebug);
  EXPECT_FALSE(ParseLevel("loud", l));
  SetLevel(Level::kError);
  EXPECT_FALSE(Enabled(Level::kInfo));
  EXPECT_TRUE(Enabled(Level::kError));
  SetLevel(Level::kInfo);
  EXPECT_TRUE(Enabled(Level::kInfo));
}

}  // namespace
}  // namespace berth::log
