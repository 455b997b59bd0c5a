#include "clientgo-shim/api/label_selector.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

LabelSelector S(std::string_view s) {
  auto sel = LabelSelector::Parse(s);
  EXPECT_TRUE(sel.has_value()) << s << ": " << (sel ? "" : sel.error().message);
  return sel ? *sel : LabelSelector::Nothing();
}

std::string ParseErr(std::string_view s) {
  auto sel = LabelSelector::Parse(s);
  EXPECT_FALSE(sel.has_value()) << s;
  if (sel) return "";
  EXPECT_EQ(sel.error().code, ErrorCode::kInvalidArgument);
  return sel.error().message;
}

const LabelMap kWeb{{"app", "web"}, {"tier", "frontend"}, {"replicas", "3"}};

TEST(LabelSelectorTest, ParsesAndMatchesEveryOperator) {
  EXPECT_TRUE(S("app=web").Matches(kWeb));
  EXPECT_TRUE(S("app==web").Matches(kWeb));
  EXPECT_FALSE(S("app!=web").Matches(kWeb));
  EXPECT_TRUE(S("app!=db").Matches(kWeb));
  EXPECT_TRUE(S("missing!=x").Matches(kWeb));
  EXPECT_TRUE(S("app in (web,db)").Matches(kWeb));
  EXPECT_FALSE(S("app in (db)").Matches(kWeb));
  EXPECT_FALSE(S("missing in (x)").Matches(kWeb));
  EXPECT_TRUE(S("app notin (db)").Matches(kWeb));
  EXPECT_TRUE(S("missing notin (db)").Matches(kWeb));
  EXPECT_FALSE(S("app notin (web)").Matches(kWeb));
  EXPECT_TRUE(S("app").Matches(kWeb));
  EXPECT_FALSE(S("missing").Matches(kWeb));
  EXPECT_TRUE(S("!missing").Matches(kWeb));
  EXPECT_FALSE(S("!app").Matches(kWeb));
  EXPECT_TRUE(S("replicas>2").Matches(kWeb));
  EXPECT_FALSE(S("replicas<3").Matches(kWeb));
  EXPECT_FALSE(S("app>1").Matches(kWeb));  // non-integer label value never matches
  EXPECT_TRUE(S("  app = web ,\ttier in ( frontend ) ").Matches(kWeb));
  EXPECT_FALSE(S("app=web,tier=backend").Matches(kWeb));
  EXPECT_TRUE(S("app=").Matches(LabelMap{{"app", ""}}));
  EXPECT_TRUE(S("example.com/role=x").Matches(LabelMap{{"example.com/role", "x"}}));
  // "in" and "notin" are ordinary identifiers where a key or value is expected.
  EXPECT_TRUE(S("in in (in,notin)").Matches(LabelMap{{"in", "notin"}}));
}

TEST(LabelSelectorTest, EmptySelectorMatchesEverythingAndNothingMatchesNothing) {
  EXPECT_TRUE(S("").Empty());
  EXPECT_TRUE(S("  ").Matches(LabelMap{}));
  EXPECT_TRUE(LabelSelector().Matches(kWeb));
  EXPECT_FALSE(LabelSelector::Nothing().Matches(kWeb));
  EXPECT_FALSE(LabelSelector::Nothing().Matches(LabelMap{}));
  EXPECT_FALSE(LabelSelector::Nothing().Empty());
  EXPECT_EQ(LabelSelector::Nothing().String(), "");
}

TEST(LabelSelectorTest, StringIsSortedByKeyWithSortedValues) {
  EXPECT_EQ(S("x in (foo,,baz),y,z notin ()").String(), "x in (,baz,foo),y,z notin ()");
  EXPECT_EQ(S("b=2,a!=1,!c,d==4").String(), "a!=1,b=2,!c,d==4");
  EXPECT_EQ(S("a in (z, y ,x)").String(), "a in (x,y,z)");
  EXPECT_EQ(S("a>5,b<7").String(), "a>5,b<7");
}

TEST(LabelSelectorTest, RejectsSyntaxErrorsWithUpstreamMessages) {
  EXPECT_EQ(ParseErr(","), "found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(ParseErr("a=b,"), "found '', expected: identifier after ','");
  EXPECT_EQ(ParseErr("a=b c=d"), "found 'c', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseErr("!"), "unable to parse requirement: found '', expected: identifier");
  EXPECT_EQ(ParseErr("!a=b"), "found '=', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseErr("a in x"), "unable to parse requirement: found 'x' expected: '('");
  EXPECT_EQ(ParseErr("a in (x"), "unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(ParseErr("a in (x y)"), "unable to parse requirement: found 'y', expected: ',' or ')'");
  EXPECT_EQ(ParseErr("a in (="), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  EXPECT_EQ(ParseErr("a b"),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(ParseErr("a=(b)"), "unable to parse requirement: found '(', expected: identifier");
  EXPECT_EQ(ParseErr("a>x"),
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
            "operators, the value must be an integer");
}

TEST(LabelSelectorTest, RejectsInvalidKeysAndValuesWithValidationMessages) {
  EXPECT_EQ(ParseErr("-a=b"),
            "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(ParseErr("a=b c"), "found 'c', expected: ',' or 'end of string'");
  EXPECT_EQ(ParseErr("a=-b"),
            "unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label must "
            "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
            "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  std::string long_value(64, 'v');
  EXPECT_NE(ParseErr("a=" + long_value).find("must be no more than 63 characters"),
            std::string::npos);
  EXPECT_NE(ParseErr(std::string(64, 'k')).find("name part must be no more than 63 characters"),
            std::string::npos);
  EXPECT_NE(ParseErr("Example.com/a").find("prefix part a lowercase RFC 1123 subdomain"),
            std::string::npos);
  EXPECT_NE(ParseErr("/a").find("prefix part must be non-empty"), std::string::npos);
  EXPECT_NE(ParseErr("a/").find("name part must be non-empty"), std::string::npos);
  EXPECT_NE(ParseErr("a/b/c").find("a qualified name must consist"), std::string::npos);
  EXPECT_EQ(ValidateLabelKey("app.kubernetes.io/name"), "");
  EXPECT_EQ(ValidateLabelValue(""), "");
  EXPECT_EQ(ValidateLabelValue("a.b_c-d"), "");
}

TEST(LabelSelectorTest, BuildsFromStructuredLabelSelectorJson) {
  auto doc = json::Parse(R"({"matchLabels":{"tier":"frontend","app":"web"},
    "matchExpressions":[{"key":"env","operator":"In","values":["prod","staging"]},
                        {"key":"canary","operator":"DoesNotExist"},
                        {"key":"tier","operator":"Exists","values":[]}]})");
  ASSERT_TRUE(doc);
  auto sel = LabelSelector::FromJson(&*doc);
  ASSERT_TRUE(sel) << sel.error().message;
  EXPECT_EQ(sel->String(), "app=web,!canary,env in (prod,staging),tier=frontend,tier");
  EXPECT_TRUE(sel->Matches(LabelMap{{"app", "web"}, {"tier", "frontend"}, {"env", "prod"}}));
  EXPECT_FALSE(sel->Matches(LabelMap{{"app", "web"}, {"tier", "frontend"}, {"env", "dev"}}));
  EXPECT_FALSE(sel->Matches(
      LabelMap{{"app", "web"}, {"tier", "frontend"}, {"env", "prod"}, {"canary", "1"}}));
}

TEST(LabelSelectorTest, StructuredNullIsNothingAndEmptyIsEverything) {
  EXPECT_TRUE(LabelSelector::FromJson(nullptr)->IsNothing());
  auto null_doc = json::Parse("null");
  EXPECT_TRUE(LabelSelector::FromJson(&*null_doc)->IsNothing());
  auto empty = json::Parse("{}");
  auto sel = LabelSelector::FromJson(&*empty);
  ASSERT_TRUE(sel);
  EXPECT_TRUE(sel->Empty());
  EXPECT_TRUE(sel->Matches(kWeb));
}

TEST(LabelSelectorTest, RejectsInvalidStructuredSelectors) {
  auto err = [](const char* text) {
    auto doc = json::Parse(text);
    EXPECT_TRUE(doc) << text;
    auto sel = LabelSelector::FromJson(&*doc);
    EXPECT_FALSE(sel) << text;
    return sel ? std::string() : sel.error().message;
  };
  EXPECT_EQ(err(R"({"matchExpressions":[{"key":"a","operator":"In"}]})"),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  EXPECT_EQ(err(R"({"matchExpressions":[{"key":"a","operator":"NotIn","values":[]}]})"),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  EXPECT_EQ(err(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})"),
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does "
            "not exist");
  EXPECT_EQ(err(R"({"matchExpressions":[{"key":"a","operator":"Foo"}]})"),
            "\"Foo\" is not a valid label selector operator");
  EXPECT_NE(err(R"({"matchLabels":{"a":"-x-"}})").find("values[0][a]: Invalid value: \"-x-\""),
            std::string::npos);
  EXPECT_NE(err(R"({"matchLabels":{"-a":"x"}})").find("key: Invalid value: \"-a\""),
            std::string::npos);
  EXPECT_NE(err(R"({"matchExpressions":[{"key":"","operator":"Exists"}]})")
                .find("key: Invalid value: \"\": name part must be non-empty; name part must consist"),
            std::string::npos);
  EXPECT_FALSE(err(R"({"matchLabels":{"a":1}})").empty());
  EXPECT_FALSE(err(R"({"matchLabels":[]})").empty());
  EXPECT_FALSE(err(R"({"matchExpressions":{}})").empty());
  EXPECT_FALSE(err(R"([])").empty());
}

TEST(LabelSelectorTest, MatchesLabelsOfAJsonObject) {
  auto pod = json::Parse(R"({"metadata":{"name":"p","labels":{"app":"web","n":1}}})");
  ASSERT_TRUE(pod);
  JsonLabels labels = JsonLabels::OfObject(*pod);
  EXPECT_TRUE(S("app=web").Matches(labels));
  EXPECT_FALSE(S("n").Matches(labels));  // non-string values are not labels
  auto bare = json::Parse(R"({"metadata":{"name":"p"}})");
  EXPECT_TRUE(S("!app").Matches(JsonLabels::OfObject(*bare)));
  EXPECT_FALSE(S("app").Matches(JsonLabels::OfObject(*bare)));
}

TEST(LabelSelectorTest, FromMapSelectsExactly) {
  LabelSelector s = LabelSelector::FromMap({{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(s.String(), "a=1,b=2");
  EXPECT_TRUE(s.Matches(LabelMap{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_FALSE(s.Matches(LabelMap{{"a", "1"}}));
}

}  // namespace
}  // namespace berth::shim
