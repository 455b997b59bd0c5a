// SchedulerCache keeps a bound pod only as the snapshot's compact entry (no copy of its view):
// what the filters, preemption and its dry run read of a bound pod still comes from there. Each
// test gives the cache a bound pod, drops every view the test holds, and checks a decision that
// needs one field of it.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_cache.h"
#include "reconcile/placement/pod_constraints.h"
#include "unit-tests/controllers/common/owner_reservation.h"
#include "unit-tests/controllers/common/priority_pod.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

placement::NodeView Node(const std::string& name, int64_t cpu_milli) {
  placement::NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}};
  n.allocatable = {{"cpu", cpu_milli}, {"pods", 110'000}};
  return n;
}

using testing::PriorityPod;

placement::PodAffinityTerm HostnameTerm(const std::string& app) {
  placement::PodAffinityTerm t;
  auto doc = json::Parse(R"({"matchLabels":{"app":")" + app + R"("}})");
  t.selector = *shim::LabelSelector::FromJson(&*doc);
  t.namespaces = {"default"};
  t.topology_key = std::string(placement::kLabelHostname);
  return t;
}

placement::PreemptionOutcome Preempt(SchedulerCache& cache, const placement::PodSpecView& pod,
                                     const std::vector<placement::PdbView>& pdbs = {}) {
  auto decision = cache.ScheduleAndAssumePod(pod);
  EXPECT_FALSE(decision.has_value()) << "the preemptor must not fit as the cluster is";
  if (decision) return {};
  return cache.Preempt(pod, decision.error(), pdbs);
}

std::vector<std::string> VictimNames(const placement::PreemptionOutcome& out) {
  std::vector<std::string> names;
  if (out.chosen) {
    for (const auto& v : out.chosen->victims) names.push_back(v.name);
  }
  return names;
}

TEST(SchedulerCacheCompact, ABoundPodsRequiredAntiAffinityStillRepels) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 4000));
  cache.UpsertNode(Node("n2", 4000));
  {
    placement::PodSpecView loner = PriorityPod("loner", 100, 0, "n1", {{"app", "loner"}});
    auto avoids = std::make_shared<placement::PodAffinity>();
    avoids->required_anti_affinity = {HostnameTerm("web")};
    loner.pod_affinity = avoids;
    cache.UpsertPod(loner);
  }  // the cache holds the only copy of the terms now
  for (int i = 0; i < 3; ++i) {
    auto decision = cache.ScheduleAndAssumePod(PriorityPod("web-" + std::to_string(i), 100, 0, "", {{"app", "web"}}));
    ASSERT_TRUE(decision.has_value()) << decision.error().Message();
    EXPECT_EQ(decision->node_name, "n2") << "the existing pod's anti-affinity keeps web pods off n1";
  }
  // Pinned to n1, the symmetric rule is the reason given.
  auto pinned = cache.ScheduleAndAssumePod(PriorityPod("web-pinned", 100, 0, "n1", {{"app", "web"}}));
  ASSERT_FALSE(pinned.has_value());
  EXPECT_TRUE(pinned.error().reasons.contains(placement::kReasonExistingAntiAffinity)) << pinned.error().Message();
  // A pod with the same labels but no terms repels nothing: its entry carries no affinity.
  cache.RemovePod("uid-loner");
  cache.UpsertPod(PriorityPod("plain", 100, 0, "n1", {{"app", "loner"}}));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(PriorityPod("web-later", 100, 0, "n1", {{"app", "web"}})).has_value());
}

TEST(SchedulerCacheCompact, ABoundPodsHostPortsStillConflict) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 4000));
  placement::PodSpecView holder = PriorityPod("holder", 100, 0, "n1");
  holder.host_ports = {{"TCP", "0.0.0.0", 8080}};
  cache.UpsertPod(holder);
  placement::PodSpecView same_port = PriorityPod("same-port", 100, 0);
  same_port.host_ports = {{"TCP", "10.0.0.1", 8080}};
  auto refused = cache.ScheduleAndAssumePod(same_port);
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(refused.error().reasons.contains(placement::kReasonNodePorts)) << refused.error().Message();
  placement::PodSpecView udp = PriorityPod("udp", 100, 0);
  udp.host_ports = {{"UDP", "0.0.0.0", 8080}};
  EXPECT_TRUE(cache.ScheduleAndAssumePod(udp).has_value()) << "another protocol does not collide";
  EXPECT_TRUE(cache.RemovePod("uid-holder"));
  EXPECT_TRUE(cache.ScheduleAndAssumePod(same_port).has_value()) << "the port is free once its pod is gone";
}

TEST(SchedulerCacheCompact, VictimsComeFromTheCompactEntriesWithLabelsStartTimesAndTermination) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 3000));
  cache.UpsertPod(PriorityPod("older", 1000, 1, "n1", {{"app", "batch"}}));
  cache.UpsertPod(PriorityPod("newer", 1000, 1, "n1", {{"app", "batch"}}));
  cache.UpsertPod(PriorityPod("guarded", 1000, 1, "n1", {{"app", "db"}}));
  cache.SetPodStartTime("uid-older", "2026-01-01T00:00:00Z");
  cache.SetPodStartTime("uid-newer", "2026-06-01T00:00:00Z");
  cache.SetPodStartTime("uid-guarded", "2026-03-01T00:00:00Z");
  // The PDB protects the db pod (its labels come from the interned map), so among the equal
  // batch pods one is a victim: preemption keeps (reprieves) the one that started first.
  placement::PdbView pdb;
  pdb.namespace_name = "default";
  pdb.name = "db";
  auto selector = json::Parse(R"({"matchLabels":{"app":"db"}})");
  pdb.selector = *shim::LabelSelector::FromJson(&*selector);
  pdb.disruptions_allowed = 0;
  auto out = Preempt(cache, PriorityPod("high", 1000, 10), {pdb});
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(VictimNames(out), std::vector<std::string>{"newer"});
  EXPECT_EQ(out.chosen->pdb_violations, 0);
  ASSERT_EQ(out.chosen->victims.size(), 1u);
  const placement::VictimPod& victim = out.chosen->victims[0];
  EXPECT_EQ(victim.uid, "uid-newer");
  EXPECT_EQ(victim.namespace_name, "default");
  EXPECT_EQ(victim.labels, (placement::LabelMap{{"app", "batch"}}));
  ASSERT_TRUE(victim.priority.start_time.has_value());
  EXPECT_FALSE(victim.terminating);

  // A start time that does not parse makes the pod never a victim, as an unreadable priority does.
  cache.SetPodStartTime("uid-newer", "yesterday");
  cache.SetPodStartTime("uid-older", "still wrong");
  out = Preempt(cache, PriorityPod("high", 1000, 10), {pdb});
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(VictimNames(out), std::vector<std::string>{"guarded"}) << "only the PDB-protected pod is left";
  EXPECT_EQ(out.chosen->pdb_violations, 1);

  // A terminating pod is a victim that needs no delete call.
  placement::PodSpecView leaving = PriorityPod("leaving", 1000, 1, "n1", {{"app", "db"}});
  leaving.terminating = true;
  cache.RemovePod("uid-guarded");
  cache.UpsertPod(leaving);
  out = Preempt(cache, PriorityPod("high", 1000, 10));
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  ASSERT_EQ(out.chosen->victims.size(), 1u);
  EXPECT_EQ(out.chosen->victims[0].name, "leaving");
  EXPECT_TRUE(out.chosen->victims[0].terminating);
}

TEST(SchedulerCacheCompact, TheDryRunRestoresAPodWithItsReservationAndAffinity) {
  SchedulerCache cache;
  cache.UpsertNode(Node("n1", 4000));
  cache.UpsertReservation(testing::OwnerReservation("rsv", "n1", 1000, /*allocate_once=*/false));
  placement::PodSpecView loner = PriorityPod("loner", 1000, 1, "n1", {{"app", "owner"}});
  auto avoids = std::make_shared<placement::PodAffinity>();
  avoids->required_anti_affinity = {HostnameTerm("web")};
  loner.pod_affinity = avoids;
  loner.reservation_uid = "ruid-rsv";  // bound into the reservation
  cache.UpsertPod(loner);
  cache.UpsertPod(PriorityPod("filler", 2000, 20, "n1"));  // more important than the preemptor: stays
  auto allocated_before = cache.Allocated("ruid-rsv");
  ASSERT_EQ(allocated_before.at("cpu"), 1000);
  auto usage_before = cache.Usage("n1");
  // The dry run detaches the victim and reattaches it: the reservation's allocation and the
  // node's accounting are as before, and its terms are filed again.
  placement::PodSpecView high = PriorityPod("high", 1000, 10, "", {{"app", "web"}});
  auto out = Preempt(cache, high);
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(VictimNames(out), std::vector<std::string>{"loner"});
  EXPECT_TRUE(reconcile::EqualAmounts(cache.Allocated("ruid-rsv"), allocated_before));
  EXPECT_TRUE(reconcile::EqualAmounts(cache.Usage("n1")->requested, usage_before->requested));
  EXPECT_TRUE(reconcile::EqualAmounts(cache.Usage("n1")->free, usage_before->free));
  // Its anti-affinity is filed again: a small web pod is still kept off n1.
  auto small = cache.ScheduleAndAssumePod(PriorityPod("web-small", 1, 1, "", {{"app", "web"}}));
  ASSERT_FALSE(small.has_value());
  EXPECT_TRUE(small.error().reasons.contains(placement::kReasonExistingAntiAffinity)) << small.error().Message();
}

}  // namespace
}  // namespace berth::controllers
