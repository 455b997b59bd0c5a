#include "e2e/kubesim/sim/scale_down_rank.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using std::chrono::seconds;

// A Ready, Running, assigned pod created at t=100 s and Ready since t=200 s: each test changes
// one fact of a copy and checks which of the two goes first, both ways round.
ScaleDownFacts Base(const std::string& name) {
  ScaleDownFacts f;
  f.name = name;
  f.assigned = true;
  f.phase_rank = 2;
  f.ready_since = shim::TimePoint{} + seconds(200);
  f.created = shim::TimePoint{} + seconds(100);
  return f;
}

void ExpectFirst(const ScaleDownFacts& first, const ScaleDownFacts& second) {
  EXPECT_TRUE(DeletesBefore(first, second)) << first.name << " should go before " << second.name;
  EXPECT_FALSE(DeletesBefore(second, first)) << second.name << " should not go before " << first.name;
}

TEST(ScaleDownRankTest, EachRuleOnItsOwn) {
  auto a = Base("a"), b = Base("b");
  a.assigned = false;
  ExpectFirst(a, b);  // 1. unassigned first
  a = Base("a");
  a.phase_rank = 0;
  ExpectFirst(a, b);  // 2. Pending before Running
  a.phase_rank = 1;
  ExpectFirst(a, b);  // Unknown before Running
  a = Base("a");
  a.ready_since.reset();
  ExpectFirst(a, b);  // 3. not Ready first
  a = Base("a");
  a.deletion_cost = -5;
  ExpectFirst(a, b);  // 4. lower cost first
  a = Base("a");
  a.related_on_node = 3;
  b.related_on_node = 2;
  ExpectFirst(a, b);  // 5. crowded node first
  a = Base("a"), b = Base("b");
  a.ready_since = shim::TimePoint{} + seconds(300);
  ExpectFirst(a, b);  // 6. Ready more recently first
  a.ready_since = shim::TimePoint{};
  ExpectFirst(a, b);  // a zero Ready time first
  a = Base("a");
  a.max_restarts = 4;
  ExpectFirst(a, b);  // 7. more restarts first
  a = Base("a");
  a.created = shim::TimePoint{} + seconds(150);
  ExpectFirst(a, b);  // 8. newer first
  a.created.reset();
  ExpectFirst(a, b);  // no creation time first
  a = Base("a");
  ExpectFirst(a, b);  // identical facts: by name, deterministic
}

TEST(ScaleDownRankTest, EarlierRulesBeatTheCost) {
  auto cheap = Base("cheap"), dear = Base("dear");
  cheap.deletion_cost = -1000;
  dear.deletion_cost = 1000;
  dear.assigned = false;
  ExpectFirst(dear, cheap);
  dear = Base("dear");
  dear.deletion_cost = 1000;
  dear.phase_rank = 0;
  ExpectFirst(dear, cheap);
  dear = Base("dear");
  dear.deletion_cost = 1000;
  dear.ready_since.reset();
  ExpectFirst(dear, cheap);
}

TEST(ScaleDownRankTest, CostBeatsLaterRules) {
  auto cheap = Base("cheap"), dear = Base("dear");
  cheap.deletion_cost = 1;
  dear.deletion_cost = 2;
  dear.related_on_node = 10;
  dear.ready_since = shim::TimePoint{} + seconds(900);
  dear.max_restarts = 50;
  dear.created = shim::TimePoint{} + seconds(800);
  ExpectFirst(cheap, dear);
}

rapidjson::Document Pod(const std::string& json_text) { return std::move(*json::Parse(json_text)); }

TEST(ScaleDownRankTest, FactsOfReadsThePod) {
  auto pod = Pod(R"({"metadata":{"name":"p","creationTimestamp":"2024-01-01T00:00:00Z",
    "annotations":{"controller.kubernetes.io/pod-deletion-cost":"-42"}},
    "spec":{"nodeName":"n1"},
    "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:01:00Z"}],
      "containerStatuses":[{"restartCount":2},{"restartCount":5}],"initContainerStatuses":[{"restartCount":1}]}})");
  auto f = FactsOf(pod, {{"n1", 3}, {"n2", 7}});
  EXPECT_EQ(f.name, "p");
  EXPECT_TRUE(f.assigned);
  EXPECT_EQ(f.phase_rank, 2);
  ASSERT_TRUE(f.ready_since.has_value());
  EXPECT_EQ(*f.ready_since, *shim::ParseTimestamp("2024-01-01T00:01:00Z"));
  EXPECT_EQ(f.deletion_cost, -42);
  EXPECT_EQ(f.related_on_node, 3);
  EXPECT_EQ(f.max_restarts, 5);  // the maximum, not the sum
  EXPECT_EQ(*f.created, *shim::ParseTimestamp("2024-01-01T00:00:00Z"));
}

TEST(ScaleDownRankTest, InvalidOrMissingCostCountsAsZeroAsUpstream) {
  for (const char* bad : {"+5", "007", "", "abc", "3000000000", "1.5"}) {
    auto pod = Pod(std::string(R"({"metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":")") +
                   bad + R"("}},"status":{"phase":"Pending"}})");
    EXPECT_EQ(FactsOf(pod, {}).deletion_cost, 0) << bad;
  }
  auto not_string = Pod(R"({"metadata":{"name":"p","annotations":{"controller.kubernetes.io/pod-deletion-cost":5}}})");
  EXPECT_EQ(FactsOf(not_string, {}).deletion_cost, 0);
  auto none = Pod(R"({"metadata":{"name":"p"}})");
  auto f = FactsOf(none, {});
  EXPECT_EQ(f.deletion_cost, 0);
  EXPECT_FALSE(f.assigned);
  EXPECT_FALSE(f.ready_since.has_value());
  EXPECT_FALSE(f.created.has_value());
}

TEST(ScaleDownRankTest, SortingAMixedSetGivesTheUpstreamOrder) {
  std::vector<ScaleDownFacts> pods;
  auto add = [&](const std::string& name, auto&& tweak) {
    auto f = Base(name);
    tweak(f);
    pods.push_back(f);
  };
  add("ready-cost-10", [](auto& f) { f.deletion_cost = 10; });
  add("unassigned", [](auto& f) { f.assigned = false; f.phase_rank = 0; f.ready_since.reset(); });
  add("ready-cost-0-crowded", [](auto& f) { f.related_on_node = 4; });
  add("pending", [](auto& f) { f.phase_rank = 0; f.ready_since.reset(); });
  add("ready-cost-0", [](auto& f) { f.related_on_node = 1; });
  add("not-ready", [](auto& f) { f.ready_since.reset(); f.deletion_cost = 99; });
  add("ready-cost-minus-1", [](auto& f) { f.deletion_cost = -1; f.related_on_node = 1; });
  std::sort(pods.begin(), pods.end(), DeletesBefore);
  std::vector<std::string> order;
  for (const auto& p : pods) order.push_back(p.name);
  EXPECT_EQ(order, (std::vector<std::string>{"unassigned", "pending", "not-ready", "ready-cost-minus-1",
                                             "ready-cost-0-crowded", "ready-cost-0", "ready-cost-10"}));
}

}  // namespace
}  // namespace berth::kubesim
