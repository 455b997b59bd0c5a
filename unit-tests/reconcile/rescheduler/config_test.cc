#include "reconcile/rescheduler/config.h"

#include <gtest/gtest.h>

namespace berth::reconcile::rescheduler {
namespace {

std::string ErrorOf(std::string_view yaml) {
  auto parsed = ParseReschedulerConfig(yaml);
  EXPECT_FALSE(parsed.has_value()) << yaml;
  return parsed ? "" : parsed.error().message;
}

TEST(ReschedulerConfigTest, EmptyTextGivesTheDefaultsWithEveryStrategyOff) {
  auto parsed = ParseReschedulerConfig("");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, ReschedulerConfig{});
  EXPECT_FALSE(parsed->low_node_utilization.enabled);
  EXPECT_FALSE(parsed->preferred_node_affinity.enabled);
  EXPECT_FALSE(parsed->dry_run);
}

TEST(ReschedulerConfigTest, ReadsEveryField) {
  auto parsed = ParseReschedulerConfig(R"(
dryRun: true
interval: 30s
cooldown: 1h
minImprovement: 5.5
limits: {maxPodsPerCycle: 3, maxPodsPerNode: 1, maxPodsPerNamespace: 2, maxActiveJobs: 0}
lowNodeUtilization:
  enabled: true
  thresholds: {cpu: 10, memory: 15}
  targetThresholds: {cpu: 60, memory: 70}
preferredNodeAffinity: {enabled: true}
)");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_TRUE(parsed->dry_run);
  EXPECT_EQ(parsed->interval, std::chrono::seconds(30));
  EXPECT_EQ(parsed->cooldown, std::chrono::hours(1));
  EXPECT_DOUBLE_EQ(parsed->min_improvement, 5.5);
  EXPECT_EQ(parsed->limits, (Limits{3, 1, 2, 0}));
  EXPECT_TRUE(parsed->low_node_utilization.enabled);
  EXPECT_EQ(parsed->low_node_utilization.thresholds, (ResourcePercents{{"cpu", 10}, {"memory", 15}}));
  EXPECT_EQ(parsed->low_node_utilization.target_thresholds, (ResourcePercents{{"cpu", 60}, {"memory", 70}}));
  EXPECT_TRUE(parsed->preferred_node_affinity.enabled);
}

TEST(ReschedulerConfigTest, MalformedYamlIsAnErrorNamingTheKey) {
  EXPECT_NE(ErrorOf("dryRun: [unclosed").find("config.yaml: yaml:"), std::string::npos);
  EXPECT_EQ(ErrorOf("- a\n- b\n"), "config.yaml: not a YAML mapping");
  EXPECT_EQ(ErrorOf("just text"), "config.yaml: not a YAML mapping");
}

TEST(ReschedulerConfigTest, UnknownFieldsAreRefusedNotIgnored) {
  EXPECT_EQ(ErrorOf("dryrun: true"), "config.yaml: dryrun: unknown field");
  EXPECT_EQ(ErrorOf("limits: {maxPods: 1}"), "config.yaml: limits.maxPods: unknown field");
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {enable: true}"), "config.yaml: lowNodeUtilization.enable: unknown field");
  EXPECT_EQ(ErrorOf("preferredNodeAffinity: {on: true}"), "config.yaml: preferredNodeAffinity.true: unknown field");
}

TEST(ReschedulerConfigTest, WrongTypesAndRangesAreErrorsNeverZero) {
  EXPECT_EQ(ErrorOf("dryRun: maybe"), "config.yaml: dryRun: must be true or false");
  EXPECT_EQ(ErrorOf("interval: 0s"), "config.yaml: interval: must be positive");
  EXPECT_EQ(ErrorOf("interval: 60"), "config.yaml: interval: must be a duration string such as \"1m\"");
  EXPECT_NE(ErrorOf("interval: 1 minute").find("config.yaml: interval: "), std::string::npos);
  EXPECT_EQ(ErrorOf("cooldown: -1m"), "config.yaml: cooldown: must not be negative");
  EXPECT_EQ(ErrorOf("minImprovement: abc"), "config.yaml: minImprovement: must be a number from 0 to 100");
  EXPECT_EQ(ErrorOf("minImprovement: 101"), "config.yaml: minImprovement: must be a number from 0 to 100");
  EXPECT_EQ(ErrorOf("limits: {maxPodsPerCycle: -1}"),
            "config.yaml: limits.maxPodsPerCycle: must be a non-negative integer");
  EXPECT_EQ(ErrorOf("limits: {maxPodsPerNode: 1.5}"),
            "config.yaml: limits.maxPodsPerNode: must be a non-negative integer");
  EXPECT_EQ(ErrorOf("limits: 5"), "config.yaml: limits: must be a map");
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {enabled: yes please}"),
            "config.yaml: lowNodeUtilization.enabled: must be true or false");
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {thresholds: {cpu: high}}"),
            "config.yaml: lowNodeUtilization.thresholds.cpu: must be a number from 0 to 100");
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {thresholds: {}}"),
            "config.yaml: lowNodeUtilization.thresholds: must name at least one resource");
}

TEST(ReschedulerConfigTest, ThresholdsFollowTheDeschedulersValidation) {
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {thresholds: {cpu: 60}, targetThresholds: {cpu: 50}}"),
            "config.yaml: lowNodeUtilization.thresholds.cpu: must not exceed targetThresholds.cpu");
  EXPECT_EQ(ErrorOf("lowNodeUtilization: {thresholds: {cpu: 10}, targetThresholds: {memory: 50}}"),
            "config.yaml: lowNodeUtilization: thresholds and targetThresholds must name the same resources");
}

}  // namespace
}  // namespace berth::reconcile::rescheduler
