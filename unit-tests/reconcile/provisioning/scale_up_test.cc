// Tests for reconcile/provisioning/scale_up.h: the bin-packing onto template nodes, and every
// all-or-nothing transition of best-effort-atomic-scale-up through DecidePass against a fake
// cloud (granted, refused, granted in part, nodes missing at the deadline, request gone).
#include "reconcile/provisioning/scale_up.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/conditions.h"

namespace berth::reconcile::provisioning {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int64_t kCore = 1000;
const Time kT0 = Time{} + hours(24 * 365 * 50);

placement::NodeView Node(std::string name, int64_t cores) {
  placement::NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", int64_t{64} << 30}, {"pods", 110 * 1000}};
  return n;
}

UnfitPodSet Unfit(int64_t count, int64_t milli_cpu, int index = 0) {
  UnfitPodSet u;
  u.index = index;
  u.template_name = "t" + std::to_string(index);
  u.count = count;
  u.of = count;
  u.pod.namespace_name = "team";
  u.pod.requests = {{"cpu", milli_cpu}, {"pods", 1000}};
  return u;
}

NodeGroupInfo Group(std::string id, int64_t cores, int32_t target, int32_t max) {
  NodeGroupInfo g;
  g.id = id;
  g.max_size = max;
  g.target_size = target;
  g.template_node = Node(id + "-template", cores);
  return g;
}

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

TEST(PlanScaleUpTest, NoGroupsIsAnError) {
  auto plan = PlanScaleUp({Unfit(1, kCore)}, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error(), "the cloud provider has no node groups");
}

// ---- the all-or-nothing state machine ------------------------------------------------------

// FakeCloud: node groups whose target moves on IncreaseSize; nodes register when the test says
// (into the pass's snapshot too, as a Node would reach the informer).
class FakeCloud : public NodeGroupPort {
 public:
  struct G {
    NodeGroupInfo info;
    std::vector<RegisteredNode> nodes;
  };
  std::map<std::string, G> groups;
  bool refuse = false;
  std::optional<int32_t> grant_at_most;
  bool fail_delete = false;
  int32_t late_increase = 0;  // applied by ApplyLate (a slow provider finishing after the deadline)
  std::vector<std::string> calls;
  void ApplyLate(const std::string& id) { groups.at(id).info.target_size += late_increase; }

  std::expected<std::vector<NodeGroupInfo>, std::string> NodeGroups() override {
    std::vector<NodeGroupInfo> out;
    for (auto& [id, g] : groups) out.push_back(g.info);
    return out;
  }
  std::expected<int32_t, std::string> TargetSize(const std::string& id) override {
    return groups.at(id).info.target_size;
  }
  bool time_out = false;  // the call fails with DeadlineExceeded, yet takes effect
  std::expected<void, IncreaseError> IncreaseSize(const std::string& id, int32_t delta) override {
    calls.push_back("increase " + id + " " + std::to_string(delta));
    if (refuse) return std::unexpected(IncreaseError{"rpc error: code = ResourceExhausted desc = out of stock"});
    if (time_out) {
      late_increase = delta;
      return std::unexpected(IncreaseError{"rpc NodeGroupIncreaseSize: DeadlineExceeded: ", true});
    }
    groups.at(id).info.target_size += grant_at_most ? std::min(delta, *grant_at_most) : delta;
    return {};
  }
  std::expected<void, std::string> DecreaseTargetSize(const std::string& id, int32_t delta) override {
    calls.push_back("decrease " + id + " " + std::to_string(delta));
    groups.at(id).info.target_size += delta;
    return {};
  }
  std::expected<void, std::string> DeleteNodes(const std::string& id, const std::vector<RegisteredNode>& nodes) override {
    std::string names;
    for (const auto& n : nodes) names += " " + n.name;
    calls.push_back("delete " + id + names);
    if (fail_delete) return std::unexpected("rpc error: code = Unavailable");
    G& g = groups.at(id);
    for (const auto& n : nodes) {
      std::erase_if(g.nodes, [&](const RegisteredNode& r) { return r.name == n.name; });
      --g.info.target_size;
    }
    return {};
  }
  std::expected<std::vector<RegisteredNode>, std::string> RegisteredNodes(const std::string& id) override {
    return groups.at(id).nodes;
  }
};

struct Machine {
  FakeCloud cloud;
  std::vector<std::pair<std::string, ScaleUpResult>> results;
  AtomicScaleUpProvisioner provisioner{cloud, {.registration_timeout = minutes(5)},
                                       [this](const std::string& g, ScaleUpResult r) { results.push_back({g, r}); }};
  placement::ClusterSnapshot snapshot;
  std::set<std::string> node_names;
  PodTemplateView tmpl;
  ProvisioningOptions options;
  PassInput input;

  Machine() {
    AddNode(Node("existing", 4));
    FakeCloud::G g;
    g.info = Group("pool", 4, 0, 10);
    cloud.groups["pool"] = g;
    tmpl.namespace_name = "team";
    tmpl.name = "three-cpu";
    tmpl.containers.push_back({{{"cpu", 3 * kCore}}, {}});
    input.template_lookup = [this](std::string_view, std::string_view name) -> const PodTemplateView* {
      return name == tmpl.name ? &tmpl : nullptr;
    };
    input.node_unschedulable = [this](std::string_view n) -> std::optional<bool> {
      if (!node_names.contains(std::string(n))) return std::nullopt;
      return false;
    };
    input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &provisioner;
  }
  void AddNode(const placement::NodeView& n) {
    snapshot.UpsertNode(n);
    node_names.insert(n.name);
  }
  void Register(int count) {
    FakeCloud::G& g = cloud.groups["pool"];
    for (int i = 0; i < count; ++i) {
      std::string name = "pool-" + std::to_string(g.nodes.size());
      g.nodes.push_back({name, "fake://" + name});
      AddNode(Node(name, 4));
    }
  }
  ProvisioningRequestView Request(int64_t count) {
    ProvisioningRequestView r;
    r.namespace_name = "team";
    r.name = "atomic";
    r.uid = "uid-atomic";
    r.generation = 1;
    r.creation_time = kT0;
    r.class_name = std::string(kClassBestEffortAtomicScaleUp);
    r.pod_sets = {{"three-cpu", count}};
    return r;
  }
  RequestDecision Pass(ProvisioningRequestView& r, Time now) {
    input.requests = {r};
    auto out = DecidePass(input, snapshot, now, options);
    EXPECT_EQ(out.size(), 1u);
    if (out.front().conditions) r.conditions = *out.front().conditions;
    return out.front();
  }
};

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

// ---- persistence across a restart (the berth.dev/scale-up annotation) -------------------------

TEST(ScaleUpStateTest, ARecordRoundTripsThroughItsAnnotation) {
  AtomicScaleUpProvisioner::Record r{"pool", 2, 1, {{"pool-0", "p://0"}, {"pool-9", ""}}, kT0 + minutes(15)};
  r.give_back_pending = true;
  r.watch_until = kT0 + minutes(15);
  const std::string text = EncodeScaleUpRecord(r);
  EXPECT_EQ(text, "{\"group\":\"pool\",\"delta\":2,\"targetBefore\":1,\"nodesBefore\":[\"pool-0\",\"pool-9\"],"
                  "\"deadline\":\"2019-12-20T00:15:00.000000Z\",\"giveBackPending\":true,"
                  "\"watchUntil\":\"2019-12-20T00:15:00.000000Z\"}");
  auto back = DecodeScaleUpRecord(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->group, "pool");
  EXPECT_EQ(back->delta, 2);
  EXPECT_EQ(back->target_before, 1);
  EXPECT_EQ(back->nodes_before.size(), 2u);
  EXPECT_TRUE(back->nodes_before.contains({"pool-9", "anything"}));  // by name
  EXPECT_EQ(back->deadline, r.deadline);
  EXPECT_FALSE(back->settled);
  EXPECT_TRUE(back->give_back_pending);
  EXPECT_EQ(back->watch_until, r.watch_until);
}

TEST(ScaleUpStateTest, AMalformedAnnotationIsAnErrorNamingTheField) {
  const std::map<std::string, std::string> cases = {
      {"{", "berth.dev/scale-up: invalid JSON at offset 1"},
      {"[]", "berth.dev/scale-up: want a JSON object"},
      {R"({"delta":1})", "berth.dev/scale-up: \"group\": want a node group id"},
      {R"({"group":"g","delta":-1})", "berth.dev/scale-up: \"delta\": want a non-negative integer"},
      {R"({"group":"g","delta":"2","targetBefore":0})", "\"delta\": want a non-negative integer"},
      {R"({"group":"g","delta":2})", "\"targetBefore\": want a non-negative integer"},
      {R"({"group":"g","delta":2,"targetBefore":0,"nodesBefore":[1]})", "\"nodesBefore\": want a list of node names"},
      {R"({"group":"g","delta":2,"targetBefore":0,"nodesBefore":[]})", "\"deadline\": want an RFC 3339 time"},
      {R"({"group":"g","delta":2,"targetBefore":0,"nodesBefore":[],"deadline":"soon"})",
       "\"deadline\": parsing time \"soon\""},
      {R"({"group":"g","delta":2,"targetBefore":0,"nodesBefore":[],"deadline":"2026-01-01T00:00:00Z","settled":1})",
       "\"settled\": want true or false"},
  };
  for (const auto& [text, want] : cases) {
    auto r = DecodeScaleUpRecord(text);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().find(want), std::string::npos) << text << " -> " << r.error();
  }
}

TEST(AtomicScaleUpTest, ARestartedProvisionerResumesTheScaleUpFromTheAnnotation) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  r.scale_up_state = m.provisioner.PersistedState(r.uid);
  ASSERT_FALSE(r.scale_up_state.empty());
  // berth-manager restarts: a new provisioner, the same cloud; the nodes register meanwhile.
  AtomicScaleUpProvisioner restarted(m.cloud, {.registration_timeout = minutes(5)});
  m.input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &restarted;
  m.Register(1);
  RequestDecision d = m.Pass(r, kT0 + minutes(1));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned), nullptr) << "resumed waiting";
  EXPECT_EQ(d.requeue_after, minutes(4)) << "the persisted deadline";
  m.Register(1);
  m.Pass(r, kT0 + minutes(2));
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned)->reason, kReasonCapacityIsProvisioned);
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2"})) << "not asked twice";
}

TEST(AtomicScaleUpTest, ARestartedProvisionerGivesBackExactlyWhatThePersistedScaleUpObtained) {
  Machine m;
  m.cloud.groups["pool"].nodes.push_back({"old", "fake://old"});  // in the group before
  m.cloud.groups["pool"].info.target_size = 1;
  m.AddNode(Node("old", 4));
  ProvisioningRequestView r = m.Request(5);  // existing and old: 1 each; 3 more
  m.Pass(r, kT0);
  ASSERT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 3"}));
  r.scale_up_state = m.provisioner.PersistedState(r.uid);
  m.Register(1);
  AtomicScaleUpProvisioner restarted(m.cloud, {.registration_timeout = minutes(5)});
  m.input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &restarted;
  m.Pass(r, kT0 + minutes(5));
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 3", "delete pool pool-1", "decrease pool -2"}))
      << "the node registered since, not the one that was there before";
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 1);
  EXPECT_EQ(restarted.PersistedState(r.uid), "") << "the annotation is removed";
}

TEST(AtomicScaleUpTest, AnAnnotationThatDoesNotParseIsIgnoredSayingSo) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  r.scale_up_state = "{";
  RequestDecision d = m.Pass(r, kT0);
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2"}));
  EXPECT_NE(m.provisioner.PersistedState(r.uid), "{") << "overwritten with the new scale-up";
  // The outcome said so: a refused start carries the message into the condition.
  Machine n;
  n.cloud.refuse = true;
  ProvisioningRequestView q = n.Request(3);
  q.scale_up_state = "{";
  n.Pass(q, kT0);
  EXPECT_NE(FindCondition(q.conditions, kConditionProvisioned)->message.find(
                "berth.dev/scale-up: invalid JSON at offset 1"),
            std::string::npos)
      << FindCondition(q.conditions, kConditionProvisioned)->message;
}

TEST(AtomicScaleUpTest, AnAnnotationTheCacheStillShowsAfterTheGiveBackIsNotResumed) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  const std::string stale = m.provisioner.PersistedState(r.uid);
  m.Register(1);
  RequestDecision d = m.Pass(r, kT0 + minutes(5));  // given back; the record is gone
  m.snapshot.RemoveNode("pool-0");
  m.node_names.erase("pool-0");
  EXPECT_EQ(m.provisioner.PersistedState(r.uid), "");
  r.scale_up_state = stale;  // the annotation's removal has not reached the cache yet
  m.input.backoff[r.uid] = d.backoff;
  m.Pass(r, kT0 + minutes(6));
  EXPECT_EQ(m.cloud.calls.back(), "increase pool 2") << "a fresh scale-up after the backoff, not the old one";
  EXPECT_EQ(DecodeScaleUpRecord(m.provisioner.PersistedState(r.uid))->deadline, kT0 + minutes(11));
}

TEST(AtomicScaleUpTest, AFailedGiveBackIsRetriedOnTheNextPass) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  m.cloud.fail_delete = true;
  m.Pass(r, kT0 + minutes(5));
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);
  EXPECT_NE(FindCondition(r.conditions, kConditionProvisioned)->message.find("giving back failed (retried)"),
            std::string::npos);
  m.provisioner.Retain({r.uid}, kT0 + minutes(6));  // still failing: kept
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);
  m.cloud.fail_delete = false;
  m.provisioner.Retain({r.uid}, kT0 + minutes(6));  // after the next pass, though the request still waits
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);
  EXPECT_EQ(m.results, (std::vector<std::pair<std::string, ScaleUpResult>>{{"pool", ScaleUpResult::kTimeout}}));
}

TEST(AtomicScaleUpTest, PodsThatFitTodayNeedNoScaleUp) {
  Machine m;
  ProvisioningRequestView r = m.Request(1);
  m.Pass(r, kT0);
  EXPECT_TRUE(m.cloud.calls.empty());
  EXPECT_EQ(FindCondition(r.conditions, kConditionProvisioned)->reason, kReasonCapacityIsFound);
}

TEST(AtomicScaleUpTest, ARequestThatStopsWaitingHasItsScaleUpGivenBack) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  m.Register(1);
  m.provisioner.Retain({r.uid}, kT0 + minutes(6));  // still pending: kept
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);
  m.provisioner.Retain({}, kT0 + minutes(6));  // deleted or failed
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  EXPECT_TRUE(m.cloud.groups["pool"].nodes.empty());
}

TEST(AtomicScaleUpTest, ValidUntilSecondsExpiresARequestStillWaitingForNodes) {
  Machine m;
  ProvisioningRequestView r = m.Request(3);
  r.parameters[std::string(kParamValidUntilSeconds)] = "120";
  RequestDecision d = m.Pass(r, kT0);
  EXPECT_EQ(d.requeue_after, minutes(2));  // the earlier of expiry and the registration deadline
  m.Pass(r, kT0 + minutes(2));
  const Condition* failed = FindCondition(r.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->reason, kReasonExpired);
}

TEST(AtomicScaleUpTest, TheCloudProviderFailingToListGroupsIsCapacityIsNotFoundSayingSo) {
  struct Broken : FakeCloud {
    std::expected<std::vector<NodeGroupInfo>, std::string> NodeGroups() override {
      return std::unexpected("rpc error: code = Unavailable desc = connection refused");
    }
  };
  Broken cloud;
  AtomicScaleUpProvisioner p(cloud, {});
  ProvisioningRequestView r;
  r.uid = "u";
  placement::ClusterSnapshot empty;
  ScaleUpOutcome out = p.Provision(r, {Unfit(1, kCore)}, empty, kT0);
  EXPECT_EQ(out.kind, ScaleUpOutcome::Kind::kNotFound);
  EXPECT_EQ(out.message, "cloud provider: rpc error: code = Unavailable desc = connection refused");
}

TEST(AtomicScaleUpTest, TheCapacityAScaleUpCountsOnIsNotTakenByALaterRequestWhileItsNodesCome) {
  Machine m;
  ProvisioningRequestView atomic = m.Request(3);  // one pod on "existing", two on new nodes
  ProvisioningRequestView later;
  later.namespace_name = "team";
  later.name = "later";
  later.uid = "uid-later";
  later.generation = 1;
  later.creation_time = kT0 + seconds(1);
  later.class_name = std::string(kClassCheckCapacity);
  later.pod_sets = {{"three-cpu", 1}};
  m.input.requests = {later, atomic};
  auto out = DecidePass(m.input, m.snapshot, kT0 + seconds(2), m.options);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "atomic");
  EXPECT_EQ(m.cloud.calls, (std::vector<std::string>{"increase pool 2"}));
  ASSERT_TRUE(out[1].conditions);
  EXPECT_EQ(FindCondition(*out[1].conditions, kConditionProvisioned)->reason, kReasonCapacityIsNotFound);
}

TEST(AtomicScaleUpTest, ATimedOutIncreaseThatLandsLateIsGivenBackAndKeepsTheGroupBusy) {
  Machine m;
  m.cloud.time_out = true;
  ProvisioningRequestView r = m.Request(3);
  m.Pass(r, kT0);
  const Condition* provisioned = FindCondition(r.conditions, kConditionProvisioned);
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ(provisioned->reason, kReasonCapacityIsNotFound);
  EXPECT_NE(provisioned->message.find("refused: rpc NodeGroupIncreaseSize: DeadlineExceeded"), std::string::npos);
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);
  EXPECT_EQ(m.provisioner.Find(r.uid)->watch_until, kT0 + minutes(5));

  // The slow provider finishes: the target grows and one node registers. After the next pass
  // both are given back.
  m.cloud.ApplyLate("pool");
  m.Register(1);
  m.provisioner.Retain({r.uid}, kT0 + seconds(10));
  EXPECT_EQ(m.cloud.groups["pool"].info.target_size, 0);
  EXPECT_TRUE(m.cloud.groups["pool"].nodes.empty());
  ASSERT_NE(m.provisioner.Find(r.uid), nullptr);  // still watching until the deadline

  // Another request finds the group busy meanwhile.
  ProvisioningRequestView other = m.Request(3);
  other.name = "other";
  other.uid = "uid-other";
  other.creation_time = kT0 + seconds(1);
  m.cloud.time_out = false;
  m.input.requests = {other};
  auto out = DecidePass(m.input, m.snapshot, kT0 + seconds(20), m.options);
  ASSERT_TRUE(out.front().conditions);
  const Condition* busy = FindCondition(*out.front().conditions, kConditionProvisioned);
  ASSERT_NE(busy, nullptr);
  EXPECT_NE(busy->message.find("busy with another request's scale-up: \"pool\""), std::string::npos) << busy->message;

  m.provisioner.Retain({r.uid}, kT0 + minutes(5));  // the watch ends
  EXPECT_EQ(m.provisioner.Find(r.uid), nullptr);
}

}  // namespace
}  // namespace berth::reconcile::provisioning
