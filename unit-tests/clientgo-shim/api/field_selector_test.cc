#include "clientgo-shim/api/field_selector.h"

#include <map>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

FieldSelector S(std::string_view s) {
  auto sel = FieldSelector::Parse(s);
  EXPECT_TRUE(sel.has_value()) << s << ": " << (sel ? "" : sel.error().message);
  return sel ? *sel : FieldSelector();
}

FieldSelector::FieldGetter Fields(std::map<std::string, std::string, std::less<>> m) {
  return [m = std::move(m)](std::string_view f) -> std::optional<std::string> {
    auto it = m.find(f);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

TEST(FieldSelectorTest, ParsesEqualsDoubleEqualsAndNotEquals) {
  auto pod = Fields({{"metadata.name", "web-1"}, {"spec.nodeName", "node-a"}, {"status.phase", "Running"}});
  EXPECT_TRUE(S("metadata.name=web-1").Matches(pod));
  EXPECT_TRUE(S("metadata.name==web-1").Matches(pod));
  EXPECT_FALSE(S("metadata.name!=web-1").Matches(pod));
  EXPECT_TRUE(S("spec.nodeName!=").Matches(pod));
  EXPECT_FALSE(S("spec.nodeName=").Matches(pod));
  EXPECT_TRUE(S("status.phase=Running,spec.nodeName=node-a").Matches(pod));
  EXPECT_FALSE(S("status.phase=Running,spec.nodeName=node-b").Matches(pod));
  // A field the object lacks reads as "".
  EXPECT_TRUE(S("spec.other=").Matches(pod));
}

TEST(FieldSelectorTest, EmptySelectorMatchesEverything) {
  EXPECT_TRUE(S("").Empty());
  EXPECT_TRUE(S("").Matches(Fields({})));
  EXPECT_TRUE(S(",,").Empty());
}

TEST(FieldSelectorTest, ExposesSortedRequirementsForTheServerToVet) {
  FieldSelector s = S("spec.nodeName=n1,metadata.name!=x,a==b");
  ASSERT_EQ(s.requirements().size(), 3u);
  EXPECT_EQ(s.requirements()[0].field, "a");
  EXPECT_EQ(s.requirements()[1].field, "metadata.name");
  EXPECT_FALSE(s.requirements()[1].equals);
  EXPECT_EQ(s.requirements()[2].field, "spec.nodeName");
  EXPECT_EQ(s.String(), "a=b,metadata.name!=x,spec.nodeName=n1");
  EXPECT_EQ(s.RequiresExactMatch("spec.nodeName"), "n1");
  EXPECT_EQ(s.RequiresExactMatch("metadata.name"), std::nullopt);
}

TEST(FieldSelectorTest, UnescapesBackslashCommaAndEquals) {
  FieldSelector s = S(R"(metadata.name=a\,b\=c\\d,x=y)");
  ASSERT_EQ(s.requirements().size(), 2u);
  EXPECT_EQ(s.requirements()[0].value, R"(a,b=c\d)");
  EXPECT_EQ(s.String(), R"(metadata.name=a\,b\=c\\d,x=y)");
  EXPECT_TRUE(s.Matches(Fields({{"metadata.name", "a,b=c\\d"}, {"x", "y"}})));
  EXPECT_EQ(EscapeFieldValue("a=b,c\\"), R"(a\=b\,c\\)");
  // The first operator splits: the field part cannot contain "=" or "!=".
  EXPECT_EQ(S(R"(a!=\=b)").requirements()[0].value, "=b");
  EXPECT_FALSE(S(R"(a!=\=b)").requirements()[0].equals);
}

TEST(FieldSelectorTest, RejectsMalformedSelectorsWithUpstreamMessages) {
  auto err = [](std::string_view s) {
    auto sel = FieldSelector::Parse(s);
    EXPECT_FALSE(sel.has_value()) << s;
    if (sel) return std::string();
    EXPECT_EQ(sel.error().code, ErrorCode::kInvalidArgument);
    return sel.error().message;
  };
  EXPECT_EQ(err("metadata.name"), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  EXPECT_EQ(err("a=b,c"), "invalid selector: 'a=b,c'; can't understand 'c'");
  EXPECT_EQ(err(R"(a=b\x)"), R"(invalid field selector: invalid escape sequence: \x)");
  EXPECT_EQ(err(R"(a=b\!)"), R"(invalid field selector: invalid escape sequence: \!)");
  EXPECT_EQ(err(R"(a=b\)"), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(err("a=b=c"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(err("a!=!=c"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(err("a!==b"), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(err("a=b,c=d,e"), "invalid selector: 'a=b,c=d,e'; can't understand 'e'");
}

}  // namespace
}  // namespace berth::shim
