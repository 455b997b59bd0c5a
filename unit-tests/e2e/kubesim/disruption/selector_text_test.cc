#include "e2e/kubesim/disruption/selector_text.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

rapidjson::Document J(const char* text) { return std::move(*json::Parse(text)); }

TEST(DescribeLabelSelector, SortsLabelsAndListsExpressionsLikeGo) {
  auto doc = J(R"({"matchLabels":{"tier":"fe","app":"web"},
                   "matchExpressions":[{"key":"env","operator":"In","values":["a","b"]},
                                       {"key":"canary","operator":"DoesNotExist"}]})");
  EXPECT_EQ(DescribeLabelSelector(&doc),
            "&LabelSelector{MatchLabels:map[string]string{app: web,tier: fe,},"
            "MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},"
            "LabelSelectorRequirement{Key:canary,Operator:DoesNotExist,Values:[],},},}");
}

TEST(DescribeLabelSelector, EmptyAndMissingSelectors) {
  auto empty = J("{}");
  EXPECT_EQ(DescribeLabelSelector(&empty),
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{},}");
  EXPECT_EQ(DescribeLabelSelector(nullptr), "nil");
  auto null_doc = J("null");
  EXPECT_EQ(DescribeLabelSelector(&null_doc), "nil");
}

TEST(DescribeLabelSelector, MalformedMembersAreSkippedNotFatal) {
  auto doc = J(R"({"matchLabels":{"a":1},"matchExpressions":[3,{"key":"k","values":[1,"v"]}]})");
  EXPECT_EQ(DescribeLabelSelector(&doc),
            "&LabelSelector{MatchLabels:map[string]string{a: ,},"
            "MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:k,Operator:,Values:[v],},},}");
  auto text = J(R"("app=web")");
  EXPECT_EQ(DescribeLabelSelector(&text), "nil");
}

}  // namespace
}  // namespace berth::kubesim::disruption
