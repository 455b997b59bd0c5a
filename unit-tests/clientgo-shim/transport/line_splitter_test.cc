#include "clientgo-shim/transport/line_splitter.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

struct Collector {
  std::vector<std::string> lines;
  bool Add(std::string_view l) {
    lines.emplace_back(l);
    return true;
  }
};

TEST(LineSplitterTest, LinesSplitAcrossReadsAreJoined) {
  LineSplitter s;
  Collector c;
  auto add = [&](std::string_view l) { return c.Add(l); };
  ASSERT_TRUE(s.Feed("{\"type\":\"ADD", add).value());
  EXPECT_TRUE(c.lines.empty());
  EXPECT_EQ(s.Pending(), 12u);
  ASSERT_TRUE(s.Feed("ED\"}\n{\"a\":1}\n{\"b\"", add).value());
  ASSERT_TRUE(s.Feed(":2}\r\n", add).value());
  EXPECT_EQ(c.lines, (std::vector<std::string>{"{\"type\":\"ADDED\"}", "{\"a\":1}", "{\"b\":2}"}));
  EXPECT_EQ(s.Pending(), 0u);
}

TEST(LineSplitterTest, EmptyLinesAreSkipped) {
  LineSplitter s;
  Collector c;
  ASSERT_TRUE(s.Feed("\n\r\na\n\n", [&](std::string_view l) { return c.Add(l); }).value());
  EXPECT_EQ(c.lines, std::vector<std::string>{"a"});
}

TEST(LineSplitterTest, StopsWhenCallbackReturnsFalse) {
  LineSplitter s;
  int n = 0;
  auto r = s.Feed("a\nb\nc\n", [&](std::string_view) { return ++n < 2; });
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(*r);
  EXPECT_EQ(n, 2);
}

TEST(LineSplitterTest, FinishDeliversAnUnterminatedLastLine) {
  LineSplitter s;
  Collector c;
  auto add = [&](std::string_view l) { return c.Add(l); };
  ASSERT_TRUE(s.Feed("x\ntail", add).value());
  EXPECT_TRUE(s.Finish(add));
  EXPECT_EQ(c.lines, (std::vector<std::string>{"x", "tail"}));
  EXPECT_TRUE(s.Finish(add));
  EXPECT_EQ(c.lines.size(), 2u);
}

TEST(LineSplitterTest, OverlongLineIsADecodeError) {
  LineSplitter s(8);
  auto r = s.Feed("0123456789", [](std::string_view) { return true; });
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kDecode);
  LineSplitter t(8);
  ASSERT_TRUE(t.Feed("01234", [](std::string_view) { return true; }).has_value());
  EXPECT_FALSE(t.Feed("56789\n", [](std::string_view) { return true; }).has_value());
}

TEST(LineSplitterTest, ByteAtATimeFeedingGivesTheSameLines) {
  const std::string body = "{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n";
  LineSplitter s;
  Collector c;
  for (char ch : body) {
    ASSERT_TRUE(s.Feed(std::string_view(&ch, 1), [&](std::string_view l) { return c.Add(l); })
                    .value());
  }
  EXPECT_EQ(c.lines, (std::vector<std::string>{"{\"type\":\"ADDED\"}", "{\"type\":\"DELETED\"}"}));
}

}  // namespace
}  // namespace berth::shim
