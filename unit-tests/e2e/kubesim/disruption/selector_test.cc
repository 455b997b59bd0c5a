#include "e2e/kubesim/disruption/selector.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

rapidjson::Document J(const char* text) { return std::move(*json::Parse(text)); }

bool Selects(const char* selector, const char* labels) {
  auto sel_doc = J(selector);
  auto labels_doc = J(labels);
  auto sel = Selector::FromJson(&sel_doc);
  EXPECT_TRUE(sel.has_value()) << selector;
  return sel && sel->Matches(&labels_doc);
}

TEST(Selector, EmptySelectorMatchesEveryPod) {
  EXPECT_TRUE(Selects("{}", "{}"));
  EXPECT_TRUE(Selects("{}", R"({"app":"x"})"));
}

TEST(Selector, MissingOrNullSelectorMatchesNothing) {
  auto none = Selector::FromJson(nullptr);
  ASSERT_TRUE(none.has_value());
  auto labels = J(R"({"app":"x"})");
  EXPECT_FALSE(none->Matches(&labels));
  auto null_doc = J("null");
  auto null_sel = Selector::FromJson(&null_doc);
  ASSERT_TRUE(null_sel.has_value());
  EXPECT_FALSE(null_sel->Matches(&labels));
}

TEST(Selector, MatchLabelsRequireEveryPair) {
  EXPECT_TRUE(Selects(R"({"matchLabels":{"app":"web","tier":"fe"}})",
                      R"({"app":"web","tier":"fe","x":"y"})"));
  EXPECT_FALSE(Selects(R"({"matchLabels":{"app":"web","tier":"fe"}})", R"({"app":"web"})"));
  EXPECT_FALSE(Selects(R"({"matchLabels":{"app":"web"}})", R"({"app":"db"})"));
}

TEST(Selector, ExpressionOperatorsFollowLabelSemantics) {
  const char* in = R"({"matchExpressions":[{"key":"env","operator":"In","values":["a","b"]}]})";
  EXPECT_TRUE(Selects(in, R"({"env":"b"})"));
  EXPECT_FALSE(Selects(in, R"({"env":"c"})"));
  EXPECT_FALSE(Selects(in, "{}"));
  const char* not_in = R"({"matchExpressions":[{"key":"env","operator":"NotIn","values":["a"]}]})";
  EXPECT_TRUE(Selects(not_in, "{}"));  // NotIn also matches pods without the key
  EXPECT_TRUE(Selects(not_in, R"({"env":"b"})"));
  EXPECT_FALSE(Selects(not_in, R"({"env":"a"})"));
  const char* exists = R"({"matchExpressions":[{"key":"env","operator":"Exists"}]})";
  EXPECT_TRUE(Selects(exists, R"({"env":""})"));
  EXPECT_FALSE(Selects(exists, "{}"));
  const char* absent = R"({"matchExpressions":[{"key":"env","operator":"DoesNotExist"}]})";
  EXPECT_TRUE(Selects(absent, "{}"));
  EXPECT_FALSE(Selects(absent, R"({"env":"a"})"));
}

TEST(Selector, InvalidSelectorsAreErrors) {
  for (const char* s :
       {R"({"matchExpressions":[{"key":"env","operator":"Like","values":["a"]}]})",
        R"({"matchExpressions":[{"key":"env","operator":"In"}]})",
        R"({"matchExpressions":[{"key":"env","operator":"Exists","values":["a"]}]})",
        R"({"matchLabels":{"bad key":"x"}})", R"({"matchLabels":{"app":"-bad"}})",
        R"({"matchLabels":{"app":1}})", R"({"matchLabels":[]})", R"({"matchExpressions":{}})",
        R"({"matchExpressions":[1]})", R"("text")"}) {
    auto doc = J(s);
    EXPECT_FALSE(Selector::FromJson(&doc).has_value()) << s;
  }
  auto doc = J(R"({"matchExpressions":[{"key":"env","operator":"Like","values":["a"]}]})");
  EXPECT_EQ(Selector::FromJson(&doc).error().message,
            "\"Like\" is not a valid label selector operator");
}

TEST(Selector, PrefixedKeysAreValid) {
  EXPECT_TRUE(Selects(R"({"matchLabels":{"app.kubernetes.io/name":"web"}})",
                      R"({"app.kubernetes.io/name":"web"})"));
}

TEST(Selector, DescribeMatchesGoFormatting) {
  auto doc = J(R"({"matchLabels":{"tier":"fe","app":"web"},
                   "matchExpressions":[{"key":"env","operator":"In","values":["a","b"]}]})");
  EXPECT_EQ(DescribeLabelSelector(&doc),
            "&LabelSelector{MatchLabels:map[string]string{app: web,tier: fe,},"
            "MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,"
            "Operator:In,Values:[a b],},},}");
  EXPECT_EQ(DescribeLabelSelector(nullptr), "nil");
}

}  // namespace
}  // namespace berth::kubesim::disruption
