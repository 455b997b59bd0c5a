#include "reconcile/migration/arbitration.h"

#include <gtest/gtest.h>

#include "reconcile/migration/rate_limiter.h"

namespace berth::reconcile::migration {
namespace {

TEST(ParseIntOrPercentTest, AcceptsIntegersAndPercents) {
  EXPECT_EQ(*ParseIntOrPercent("3"), (IntOrPercent{3, false}));
  EXPECT_EQ(*ParseIntOrPercent("0"), (IntOrPercent{0, false}));
  EXPECT_EQ(*ParseIntOrPercent("25%"), (IntOrPercent{25, true}));
}

TEST(ParseIntOrPercentTest, RejectsMalformedValuesNamingThem) {
  for (const char* bad : {"", "%", "-1", "1.5", "10 %", "abc", "3x", "%5", "99999999999999999999", " 2"}) {
    auto v = ParseIntOrPercent(bad);
    ASSERT_FALSE(v.has_value()) << bad;
    EXPECT_NE(v.error().find("\"" + std::string(bad) + "\""), std::string::npos) << v.error();
  }
}

TEST(ScaledValueTest, PercentRoundsUp) {
  EXPECT_EQ(ScaledValue({10, true}, 11), 2);
  EXPECT_EQ(ScaledValue({10, true}, 10), 1);
  EXPECT_EQ(ScaledValue({50, true}, 3), 2);
  EXPECT_EQ(ScaledValue({4, false}, 100), 4);
}

struct DefaultCase {
  int64_t replicas;
  int64_t want;
};

TEST(WorkloadLimitTest, KoordinatorDefaultsByReplicaCount) {
  for (const auto& c : std::vector<DefaultCase>{{1, 1}, {2, 1}, {3, 1}, {4, 2}, {10, 2}, {11, 2}, {20, 2}, {21, 3},
                                                {100, 10}, {1000, 100}}) {
    EXPECT_EQ(WorkloadLimit(std::nullopt, c.replicas), c.want) << c.replicas << " replicas";
  }
}

TEST(WorkloadLimitTest, ConfiguredValuesAreCappedAtReplicasAndAtLeastOne) {
  EXPECT_EQ(WorkloadLimit(IntOrPercent{5, false}, 3), 3);
  EXPECT_EQ(WorkloadLimit(IntOrPercent{0, false}, 10), 1);
  EXPECT_EQ(WorkloadLimit(IntOrPercent{1, true}, 10), 1);
  EXPECT_EQ(WorkloadLimit(IntOrPercent{30, true}, 10), 3);
  EXPECT_EQ(WorkloadLimit(IntOrPercent{200, true}, 10), 10);
}

MigratingPod Migrating(std::string name, std::string node, std::string ns = "default", std::string workload = "") {
  return {ns + "/" + name, std::move(node), ns, std::move(workload)};
}

ArbitrationInput Input() {
  ArbitrationInput in;
  in.pod_key = "default/web-0";
  in.node_name = "node-a";
  in.namespace_name = "default";
  return in;
}

WorkloadFacts Workload(int64_t replicas, std::set<std::string> unavailable = {}) {
  return {"rs-uid", "ReplicaSet default/web", replicas, std::move(unavailable)};
}

struct ArbitrationCase {
  std::string name;
  ArbitrationInput input;
  ArbitrationLimits limits;
  std::string want_reason;  // "" = admitted
  std::string want_message_part;
};

TEST(ArbitrateTest, Table) {
  std::vector<ArbitrationCase> cases;
  {
    ArbitrationCase c{"nothing migrating", Input(), {}, "", ""};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"one other on the node: under the default 2", Input(), {}, "", ""};
    c.input.migrating = {Migrating("a", "node-a")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"two others on the node: default maxMigratingPerNode 2", Input(), {},
                      std::string(kReasonMaxMigratingPerNode),
                      "maxMigratingPerNode 2 reached: that many pods are migrating on node node-a"};
    c.input.migrating = {Migrating("a", "node-a"), Migrating("b", "node-a"), Migrating("c", "node-b")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"the pod's own job does not count", Input(), {}, "", ""};
    c.input.migrating = {Migrating("a", "node-a"), Migrating("web-0", "node-a")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"per-node limit off", Input(), {}, "", ""};
    c.limits.max_migrating_per_node = std::nullopt;
    c.input.migrating = {Migrating("a", "node-a"), Migrating("b", "node-a"), Migrating("c", "node-a")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"global limit", Input(), {}, std::string(kReasonMaxMigratingGlobally),
                      "maxMigratingGlobally 2 reached"};
    c.limits.max_migrating_globally = 2;
    c.input.migrating = {Migrating("a", "node-b"), Migrating("b", "node-c", "other")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"namespace limit", Input(), {}, std::string(kReasonMaxMigratingPerNamespace),
                      "maxMigratingPerNamespace 1 reached: that many pods are migrating in namespace default"};
    c.limits.max_migrating_per_namespace = 1;
    c.input.migrating = {Migrating("a", "node-b"), Migrating("b", "node-c", "other")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"namespace limit counts only its namespace", Input(), {}, "", ""};
    c.limits.max_migrating_per_namespace = 1;
    c.input.migrating = {Migrating("b", "node-c", "other")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"workload of 10: default maxMigrating 2 reached", Input(), {},
                      std::string(kReasonMaxMigratingPerWorkload),
                      "maxMigratingPerWorkload 2 (10 replicas) reached: that many pods of ReplicaSet default/web are migrating"};
    c.limits.max_migrating_per_node = std::nullopt;
    c.input.workload = Workload(10);
    c.input.migrating = {Migrating("a", "node-b", "default", "rs-uid"), Migrating("b", "node-b", "default", "rs-uid"),
                         Migrating("x", "node-b", "default", "other-rs")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"workload of 10: one migrating, one unavailable: 3 > default maxUnavailable 2", Input(), {},
                      std::string(kReasonMaxUnavailablePerWorkload),
                      "maxUnavailablePerWorkload 2 (10 replicas) reached: that many pods of ReplicaSet default/web are unavailable"};
    c.input.workload = Workload(10, {"default/web-9"});
    c.input.migrating = {Migrating("a", "node-b", "default", "rs-uid")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"workload of 10: a migrating pod that is also unavailable counts once", Input(), {}, "", ""};
    c.input.workload = Workload(10, {"default/a"});
    c.input.migrating = {Migrating("a", "node-b", "default", "rs-uid")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"workload of 10: the pod itself unavailable counts once", Input(), {}, "", ""};
    c.input.workload = Workload(10, {"default/web-0", "default/web-3"});
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"configured maxUnavailable 30% of 10 = 3", Input(), {}, "", ""};
    c.limits.max_unavailable_per_workload = IntOrPercent{30, true};
    c.input.workload = Workload(10, {"default/web-8", "default/web-9"});
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"one replica: ExpectedReplicas", Input(), {}, std::string(kReasonExpectedReplicas),
                      "ReplicaSet default/web expects 1 replica"};
    c.input.workload = Workload(1);
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"replicas equal to maxUnavailable: ExpectedReplicas", Input(), {},
                      std::string(kReasonExpectedReplicas), "expects 3 replicas"};
    c.limits.max_unavailable_per_workload = IntOrPercent{3, false};
    c.input.workload = Workload(3);
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"one replica with the check skipped", Input(), {}, "", ""};
    c.limits.skip_check_expected_replicas = true;
    c.input.workload = Workload(1);
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"the evict annotation bypasses every limit", Input(), {}, "", ""};
    c.input.bypass = true;
    c.limits.max_migrating_globally = 0;
    c.input.workload = Workload(1);
    c.input.migrating = {Migrating("a", "node-a"), Migrating("b", "node-a")};
    cases.push_back(c);
  }
  {
    ArbitrationCase c{"node limit is checked before the workload's", Input(), {},
                      std::string(kReasonMaxMigratingPerNode), ""};
    c.input.workload = Workload(1);
    c.input.migrating = {Migrating("a", "node-a"), Migrating("b", "node-a")};
    cases.push_back(c);
  }
  for (const auto& c : cases) {
    auto hit = Arbitrate(c.input, c.limits);
    if (c.want_reason.empty()) {
      EXPECT_FALSE(hit.has_value()) << c.name << ": held by " << hit->reason << ": " << hit->message;
      continue;
    }
    ASSERT_TRUE(hit.has_value()) << c.name;
    EXPECT_EQ(hit->reason, c.want_reason) << c.name;
    EXPECT_NE(hit->message.find(c.want_message_part), std::string::npos) << c.name << ": " << hit->message;
  }
}

TEST(ArbitrateTest, TheMessageDoesNotChangeWithTheCountBeyondTheLimit) {
  ArbitrationInput in = Input();
  in.workload = Workload(10, {"default/a", "default/b"});
  auto first = Arbitrate(in, {});
  in.workload->unavailable_pods.insert("default/c");
  auto second = Arbitrate(in, {});
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first, *second);
}

// koordinator counts a job for its workload only while its pod exists: an evicted pod that is gone
// frees its maxMigratingPerWorkload slot and its node's; its replacement, not yet Ready, still
// holds maxUnavailablePerWorkload.
TEST(ArbitrateTest, AJobWhosePodIsGoneCountsOnlyGloballyAndForItsNamespace) {
  ArbitrationInput in = Input();
  in.workload = Workload(30);  // defaults: 10% → 3 migrating, 3 unavailable
  for (const char* name : {"web-1", "web-2", "web-3"}) in.migrating.push_back(Migrating(name, "node-b", "default", "rs-uid"));
  auto held = Arbitrate(in, {});
  ASSERT_TRUE(held);
  EXPECT_EQ(held->reason, kReasonMaxMigratingPerWorkload);

  for (auto& m : in.migrating) m.pod_gone = true;
  EXPECT_FALSE(Arbitrate(in, {})) << "gone pods hold no workload slot";

  // Their replacements, not yet Ready, are the workload's unavailable pods: the limit still holds.
  in.workload->unavailable_pods = {"default/web-new-1", "default/web-new-2", "default/web-new-3"};
  held = Arbitrate(in, {});
  ASSERT_TRUE(held);
  EXPECT_EQ(held->reason, kReasonMaxUnavailablePerWorkload);

  in.workload->unavailable_pods.clear();
  ArbitrationLimits one_per_namespace;
  one_per_namespace.max_migrating_per_namespace = 1;
  held = Arbitrate(in, one_per_namespace);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->reason, kReasonMaxMigratingPerNamespace) << "a running job counts for its namespace until it ends";

  ArbitrationInput on_node = Input();
  on_node.migrating = {Migrating("web-1", "node-a"), Migrating("web-2", "node-a")};
  ASSERT_TRUE(Arbitrate(on_node, {}));
  on_node.migrating[0].pod_gone = true;
  EXPECT_FALSE(Arbitrate(on_node, {})) << "a gone pod is no longer on its node";
}

TEST(HeldJobsToWakeTest, TheOldestNotYetAdmittedFirstBounded) {
  std::set<HeldJob> pending = {{0, "2026-01-01T00:00:02Z", "c", "uid-c"},
                               {0, "2026-01-01T00:00:01Z", "b", "uid-b"},
                               {0, "2026-01-01T00:00:01Z", "a", "uid-a"},
                               {0, "2026-01-01T00:00:03Z", "d", "uid-d"}};
  EXPECT_EQ(HeldJobsToWake(pending, {}, 2), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(HeldJobsToWake(pending, {"uid-a", "uid-c"}, 2), (std::vector<std::string>{"b", "d"}))
      << "admitted jobs are skipped, not counted";
  EXPECT_EQ(HeldJobsToWake(pending, {}, 10).size(), 4u);
  EXPECT_TRUE(HeldJobsToWake(pending, {}, 0).empty());
  EXPECT_TRUE(HeldJobsToWake({}, {}, 3).empty());
}

TEST(HeldJobsToWakeTest, LowerPodPriorityFirstThenTheOldest) {
  // The seed: lower priority is evicted first; among equals, the oldest job.
  std::set<HeldJob> pending = {{1000, "2026-01-01T00:00:01Z", "old-high", "uid-1"},
                               {0, "2026-01-01T00:00:05Z", "new-default", "uid-2"},
                               {-10, "2026-01-01T00:00:09Z", "newest-negative", "uid-3"},
                               {0, "2026-01-01T00:00:02Z", "old-default", "uid-4"},
                               {2000000000, "2026-01-01T00:00:00Z", "critical", "uid-5"}};
  EXPECT_EQ(HeldJobsToWake(pending, {}, 5),
            (std::vector<std::string>{"newest-negative", "old-default", "new-default", "old-high", "critical"}));
  EXPECT_EQ(HeldJobsToWake(pending, {"uid-3"}, 1), (std::vector<std::string>{"old-default"}));
}

const Time kT0 = std::chrono::sys_days{std::chrono::year{2026} / 1 / 1};

TEST(TokenBucketTest, KoordinatorDefaultsTenPerSecondBurstOne) {
  TokenBucket bucket(10, 1);
  EXPECT_EQ(bucket.TryTake(kT0), Duration::zero());
  Duration wait = bucket.TryTake(kT0);
  EXPECT_GT(wait, std::chrono::milliseconds(99));
  EXPECT_LE(wait, std::chrono::milliseconds(100));
  EXPECT_GT(bucket.TryTake(kT0 + std::chrono::milliseconds(50)), Duration::zero());
  EXPECT_EQ(bucket.TryTake(kT0 + std::chrono::milliseconds(100)), Duration::zero());
  // An idle bucket fills to its burst, no more.
  EXPECT_EQ(bucket.TryTake(kT0 + std::chrono::seconds(10)), Duration::zero());
  EXPECT_GT(bucket.TryTake(kT0 + std::chrono::seconds(10)), Duration::zero());
}

TEST(TokenBucketTest, BurstAllowsThatManyAtOnce) {
  TokenBucket bucket(1, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.TryTake(kT0), Duration::zero()) << i;
  EXPECT_NEAR(std::chrono::duration<double>(bucket.TryTake(kT0)).count(), 1.0, 1e-6);
}

TEST(TokenBucketTest, ZeroQpsIsUnlimited) {
  TokenBucket bucket(0, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(bucket.TryTake(kT0), Duration::zero());
}

TEST(TokenBucketTest, ClockGoingBackwardsAddsNoTokens) {
  TokenBucket bucket(1, 1);
  EXPECT_EQ(bucket.TryTake(kT0), Duration::zero());
  EXPECT_GT(bucket.TryTake(kT0 - std::chrono::seconds(5)), Duration::zero());
}

}  // namespace
}  // namespace berth::reconcile::migration
