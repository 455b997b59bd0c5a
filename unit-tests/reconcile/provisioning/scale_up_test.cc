// Tests for reconcile/provisioning/scale_up.h: the bin-packing onto template nodes, and every
// all-or-nothing transition of best-effort-atomic-scale-up through DecidePass against a fake
// cloud (granted, refused, granted in part, nodes missing at the deadline, request gone).
#include "reconcile/provisioning/scale_up.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/conditions.h"
#include "reconcile/provisioning/scale_up_fixtures.h"

namespace berth::reconcile::provisioning {
namespace {

using namespace scale_up_test;  // the suite's fixtures

// ---- PlanScaleUp ---------------------------------------------------------------------------

TEST(PlanScaleUpTest, PacksPodsOntoAsFewTemplateNodesAsPossible) {
  // 5 pods of 3 cpu: 1 per 4-cpu node, 3 per 10-cpu node.
  auto plan = PlanScaleUp({Unfit(5, 3 * kCore)}, {Group("small", 4, 0, 10), Group("large", 10, 0, 10)});
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->group, "large");
  EXPECT_EQ(plan->nodes, 2);
}

TEST(PlanScaleUpTest, MixedPodSetsShareNodes) {
  // 2×3 cpu + 2×1 cpu on 4-cpu nodes: each 3-cpu pod leaves room for one 1-cpu pod.
  auto plan = PlanScaleUp({Unfit(2, 3 * kCore, 0), Unfit(2, 1 * kCore, 1)}, {Group("g", 4, 0, 10)});
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->nodes, 2);
}

TEST(PlanScaleUpTest, EqualNodeCountsGoToTheSmallestGroupName) {
  auto plan = PlanScaleUp({Unfit(2, 3 * kCore)}, {Group("zeta", 4, 0, 5), Group("alpha", 4, 0, 5)});
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->group, "alpha");
  EXPECT_EQ(plan->nodes, 2);
}

TEST(PlanScaleUpTest, HeadroomIsMaxSizeMinusTargetSize) {
  // "large" would need 2 nodes but has room for 1; "small" needs 5 and has 5.
  auto plan = PlanScaleUp({Unfit(5, 3 * kCore)}, {Group("large", 10, 4, 5), Group("small", 4, 1, 6)});
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->group, "small");
  EXPECT_EQ(plan->nodes, 5);
  auto none = PlanScaleUp({Unfit(5, 3 * kCore)}, {Group("large", 10, 4, 5)});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "node group \"large\": needs more than its 1 node(s) of headroom (maxSize 5, targetSize 4)");
}

TEST(PlanScaleUpTest, APodTooBigOrUntoleratedForTheTemplateRulesTheGroupOut) {
  NodeGroupInfo tainted = Group("gpu", 64, 0, 10);
  tainted.template_node->taints.push_back({"nvidia.com/gpu", "", "NoSchedule"});
  NodeGroupInfo missing = Group("bare", 64, 0, 10);
  missing.template_node.reset();
  missing.template_error = "NodeGroupTemplateNodeInfo: UNIMPLEMENTED";
  auto plan = PlanScaleUp({Unfit(1, 8 * kCore)}, {Group("tiny", 4, 0, 10), tainted, missing});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("node group \"tiny\": podSet 0 does not fit its template node: "), std::string::npos)
      << plan.error();
  EXPECT_NE(plan.error().find("Insufficient cpu"), std::string::npos) << plan.error();
  EXPECT_NE(plan.error().find("node group \"gpu\": podSet 0 does not fit its template node: "), std::string::npos);
  EXPECT_NE(plan.error().find("untolerated taint"), std::string::npos) << plan.error();
  EXPECT_NE(plan.error().find("node group \"bare\": no template node (NodeGroupTemplateNodeInfo: UNIMPLEMENTED)"),
            std::string::npos);
}

TEST(PlanScaleUpTest, EachPlannedNodeIsItsOwnHostnameDomain) {
  // Pods that must not share a host (required anti-affinity on kubernetes.io/hostname): the
  // template carries the copied Node's hostname, which Cluster Autoscaler replaces with each new
  // node's name, so three such pods need three nodes, not "can never fit".
  UnfitPodSet spread = Unfit(3, kCore);
  spread.pod.labels = {{"app", "db"}};
  auto affinity = std::make_shared<placement::PodAffinity>();
  placement::PodAffinityTerm term;
  term.selector = *shim::LabelSelector::Parse("app=db");
  term.topology_key = "kubernetes.io/hostname";
  term.namespaces = {"team"};
  affinity->required_anti_affinity = {term};
  spread.pod.pod_affinity = affinity;
  NodeGroupInfo group = Group("pool", 8, 0, 10);
  group.template_node->labels = {{"kubernetes.io/hostname", "pool-node-1"}, {"topology.kubernetes.io/zone", "a"}};
  auto plan = PlanScaleUp({spread}, {group});
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->nodes, 3);
}

TEST(PlanScaleUpTest, NoGroupsIsAnError) {
  auto plan = PlanScaleUp({Unfit(1, kCore)}, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error(), "the cloud provider has no node groups");
}

// ---- the all-or-nothing state machine ------------------------------------------------------

TEST(AtomicScaleUpTest, AskedForAllNodesAtOnceThenProvisionedOnceTheyRegisterAndThePodsFit) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);  // 1 fits on "existing", 2 need new nodes
  RequestDecision d = m.Pass(r, kT0);
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2"}));
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 2);
  EXPECT_TRUE(IsTrue(r.conditions, kConditionAccepted));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned), nullptr);  // waiting, not failed
  EXPECT_TRUE(d.book.empty());
  EXPECT_EQ(d.requeue_after, minutes(5));  // the registration deadline, exactly

  m.Register(1);  // one of two: still waiting, no new request to the cloud
  d = m.Pass(r, kT0 + minutes(1));
  EXPECT_EQ(m.cloud.calls.size(), 1u);
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned), nullptr);
  EXPECT_EQ(d.requeue_after, minutes(4));

  m.Register(1);
  d = m.Pass(r, kT0 + minutes(2));
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->status, "True");
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsProvisioned);
  std::set<std::string> booked;
  for (const BookedSlice& s : d.book) booked.insert(s.node_name);
  EXPECT_EQ(booked, (std::set<std::string>{"existing", "pool-0", "pool-1"}));
  EXPECT_EQ(m.results, (std::vector<std::pair<std::string, ScaleUpResult>>{{"pool", ScaleUpResult::kSuccess}}));
  // The status write may fail: a repeated pass still says CapacityIsProvisioned, counted once.
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);
  r.conditions.clear();
  for (int j = 0; j < 3; ++j) m.snapshot.ForgetPod("team/atomic-0-" + std::to_string(j));  // a fresh snapshot
  m.Pass(r, kT0 + minutes(2));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned)->reason, kReasonCapacityIsProvisioned);
  EXPECT_EQ(m.results.size(), 1u);
  m.provisioner.Retain({}, kT0 + minutes(2));  // Provisioned: forgotten without giving anything back
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 2);
  EXPECT_EQ(m.cloud.calls.size(), 1u);
}

TEST(AtomicScaleUpTest, ARefusedIncreaseIsCapacityIsNotFoundWithBackoffAndTheTargetUntouched) {
  Machine m;
  m.cloud.refuse = true;
  ProvisioningRequestView r = m.Request(3);
  RequestDecision d = m.Pass(r, kT0);
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->status, "False");
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
  EXPECT_NE(provisioned->message.find("asked for 2 node(s) of node group \"pool\": refused: rpc error: code = "
                                      "ResourceExhausted desc = out of stock"),
            std::string::npos)
      << provisioned->message;
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  EXPECT_EQ(d.requeue_after, minutes(1));  // upstream's initial backoff
  EXPECT_EQ(m.results, (std::vector<std::pair<std::string, ScaleUpResult>>{{"pool", ScaleUpResult::kRefused}}));
  EXPECT_TRUE(d.book.empty());

  // Backing off: no call before the backoff ends; after it, asked again.
  m.input.backoff[r.uid] = d.backoff;
  m.Pass(r, kT0 + seconds(30));
  EXPECT_EQ(m.cloud.calls.size(), 1u);
  m.cloud.refuse = false;
  m.Pass(r, kT0 + minutes(1));
  EXPECT_EQ(m.cloud.calls.back(), "increase pool 2");
}

// Upstream reads noRetry only in the check-capacity class ("Currently supported only for
// checkcapacity class"): a refused best-effort-atomic scale-up is retried with backoff whatever it says.
TEST(AtomicScaleUpTest, NoRetryIsIgnoredByBestEffortAtomicScaleUp) {
  for (const char* value : {"true", "yes"}) {
    Machine m;
    m.cloud.refuse = true;
    ProvisioningRequestView r = m.Request(3);
    r.parameters["noRetry"] = value;
    RequestDecision d = m.Pass(r, kT0);
    EXPECT_EQ(FindCondition(r.conditions, kConditionFailed), nullptr) << value;
    const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
    ASSERT_NE(provisioned, nullptr) << value;
    EXPECT_EQ(provisioned->status, "False");
    EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
    EXPECT_EQ(provisioned->message.rfind(kMessageCapacityIsNotFound, 0), 0u) << provisioned->message;
    EXPECT_EQ(provisioned->message.find("noRetry"), std::string::npos) << provisioned->message;
    EXPECT_EQ(d.requeue_after, minutes(1));
    m.input.backoff[r.uid] = d.backoff;
    m.cloud.refuse = false;
    m.Pass(r, kT0 + minutes(1));
    EXPECT_EQ(m.cloud.calls.back(), "increase pool 2") << value;
  }
}

TEST(AtomicScaleUpTest, APartialGrantIsGivenBackAtOnce) {
  Machine m;
  m.cloud.grant_at_most = 1;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2", "decrease pool -1"}));
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
  EXPECT_NE(provisioned->message.find("the target size grew by 1 only (all or nothing); gave back node group "
                                      "\"pool\": lowered the target size by 1"),
            std::string::npos)
      << provisioned->message;
  EXPECT_EQ(m.results, (std::vector<std::pair<std::string, ScaleUpResult>>{{"pool", ScaleUpResult::kPartial}}));
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);
}

TEST(AtomicScaleUpTest, NodesMissingAtTheDeadlineAreAllGivenBack) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  RequestDecision d = m.Pass(r, kT0 + minutes(5) - seconds(1));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned), nullptr);
  EXPECT_EQ(d.requeue_after, seconds(1));
  d = m.Pass(r, kT0 + minutes(5));
  // The registered node is deleted (DecreaseTargetSize must not delete instances), the missing
  // one is taken off the target: the group is back where it was.
  EXPECT_EQ(m.cloud.calls,
            (std::vector<std::string>{"increase pool 2", "delete pool pool-0", "decrease pool -1"}));
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
  EXPECT_NE(provisioned->message.find("only 1 of 2 new node(s) of node group \"pool\" registered in time"),
            std::string::npos)
      << provisioned->message;
  EXPECT_TRUE(d.book.empty());
  EXPECT_EQ(m.results, (std::vector<std::pair<std::string, ScaleUpResult>>{{"pool", ScaleUpResult::kTimeout}}));
}

// The give-back deletes the registered node (and any stale booking Reservations), which the
// controller reports as capacity_freed: that must not start the next IncreaseSize before the
// backoff ends. Freed capacity still books the request at once when its pods fit on existing
// nodes, without calling the cloud.
TEST(AtomicScaleUpTest, CapacityFreedByAGiveBackDoesNotRestartTheScaleUpBeforeTheBackoff) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  RequestDecision d = m.Pass(r, kT0 + minutes(5));
  m.snapshot.RemoveNode("pool-0");  // deleted by the give-back; the informer reports it
  m.node_names.erase("pool-0");
  const Condition given_back = *FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_EQ(given_back.reason, kReasonCapacityIsNotFound);
  EXPECT_EQ(d.requeue_after, minutes(1));
  m.input.backoff[r.uid] = d.backoff;

  m.input.capacity_freed = true;
  d = m.Pass(r, kT0 + minutes(5) + seconds(1));
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2", "delete pool pool-0", "decrease pool -1"}))
      << "no IncreaseSize before the backoff ends";
  EXPECT_FALSE(d.conditions.has_value()) << "still CapacityIsNotFound, same message";
  EXPECT_EQ(d.backoff, m.input.backoff[r.uid]) << "the backoff is neither restarted nor doubled";
  EXPECT_EQ(d.requeue_after, minutes(1) - seconds(1));
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);

  // Real room on existing nodes: booked at once, CapacityIsFound, still without the cloud.
  m.AddNode(Node("freed", 8));
  d = m.Pass(r, kT0 + minutes(5) + seconds(2));
  ASSERT_TRUE(d.conditions.has_value());
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  EXPECT_EQ(provisioned->status, "True");
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsFound);
  EXPECT_EQ(m.cloud.calls.size(), 3u);
  EXPECT_FALSE(d.book.empty());

  // Once the backoff ends (no freed capacity needed), the cloud is asked again.
  Machine again;
  ProvisioningRequestView r2 = again.Request(3);
  again.cloud.refuse = true;
  RequestDecision first = again.Pass(r2, kT0);
  again.input.backoff[r2.uid] = first.backoff;
  again.cloud.refuse = false;
  again.Pass(r2, kT0 + minutes(1));
  EXPECT_EQ(again.cloud.calls, (std::vector<std::string>{"increase pool 2", "increase pool 2"}));
}

// The pass right after a give-back may come before the cache shows its Provisioned=False (the
// deleted Node's event races the status write's): the backoff still holds.
TEST(AtomicScaleUpTest, ThePassBeforeTheCacheShowsTheGiveBackStillBacksOff) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  const ProvisioningRequestView cached = r;  // Accepted only
  RequestDecision d = m.Pass(r, kT0 + minutes(5));
  ASSERT_EQ(FindCondition(r.conditions, kConditionProvisioned)->reason, kReasonCapacityIsNotFound);
  m.snapshot.RemoveNode("pool-0");
  m.node_names.erase("pool-0");
  m.input.backoff[r.uid] = d.backoff;

  ProvisioningRequestView stale = cached;
  d = m.Pass(stale, kT0 + minutes(5) + seconds(1));
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2", "delete pool pool-0", "decrease pool -1"}));
  EXPECT_FALSE(d.conditions.has_value()) << "nothing written from the stale view";
  EXPECT_FALSE(d.checked);
  EXPECT_EQ(d.requeue_after, minutes(1) - seconds(1));
}

// Over the node group max: more pods than the existing nodes hold even when empty plus every
// group at its maxSize. Failed at once, naming the field, and the cloud is not asked.
TEST(AtomicScaleUpTest, ACountOverWhatTheGroupsCouldEverAddFailsWithoutAskingTheCloud) {
  Machine m;  // "existing" holds 1 pod of 3 cpu; "pool" (4-cpu nodes, maxSize 10) at most 10 more
  ProvisioningRequestView r = m.Request(12);
  RequestDecision d = m.Pass(r, kT0);
  const Condition* failed = FindCondition(r.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->reason, kReasonCapacityIsNotFound);
  EXPECT_EQ(failed->message,
            "CA could not find requested capacity: spec.podSets[0].count: 12 pods of podTemplate \"three-cpu\" can "
            "never fit: the cluster's 1 node(s) hold at most 1 of them even when empty, and every node group at its "
            "maxSize at most 10 more");
  EXPECT_TRUE(m.cloud.calls.empty());
  EXPECT_EQ(d.state, RequestState::kFailed);

  // 11 could fit once the group grows to its max: asked for, not failed.
  Machine n;
  ProvisioningRequestView fits = n.Request(11);
  n.Pass(fits, kT0);
  EXPECT_EQ(FindCondition(fits.conditions, kConditionFailed), nullptr);
  EXPECT_EQ(n.cloud.calls, (std::vector<std::string>{"increase pool 10"}));
}

TEST(AtomicScaleUpTest, WhenTheCloudCannotBeAskedTheCountIsNotJudgedNeverFitting) {
  struct Broken : FakeCloud {
    std::expected<std::vector<NodeGroupInfo>, std::string> NodeGroups() override {
      return std::unexpected("rpc error: code = Unavailable desc = connection refused");
    }
  };
  Broken cloud;
  AtomicScaleUpProvisioner p(cloud, {});
  Machine m;
  m.input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &p;
  ProvisioningRequestView r = m.Request(12);
  m.Pass(r, kT0);
  EXPECT_EQ(FindCondition(r.conditions, kConditionFailed), nullptr);
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
  EXPECT_NE(provisioned->message.find("cloud provider: rpc error"), std::string::npos) << provisioned->message;
}

// The cloud may report a node registered before the Node reaches the informer (and so the
// pass's snapshot): the pods not fitting then proves nothing, the scale-up keeps waiting.
TEST(AtomicScaleUpTest, ANodeTheCloudReportsButTheSnapshotLacksIsNotCountedAsArrived) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  m.cloud.groups["pool"].nodes.push_back({"pool-1", "fake://pool-1"});  // not in the snapshot yet
  RequestDecision d = m.Pass(r, kT0 + minutes(1));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned), nullptr) << "still waiting, nothing given back";
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2"}));
  EXPECT_EQ(d.requeue_after, minutes(4));
  m.AddNode(Node("pool-1", 4));  // the informer delivers it
  m.Pass(r, kT0 + minutes(1) + seconds(1));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned)->reason, kReasonCapacityIsProvisioned);
}

}  // namespace
}  // namespace berth::reconcile::provisioning
