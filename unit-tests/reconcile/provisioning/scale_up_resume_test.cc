// Tests for reconcile/provisioning/scale_up.h across a restart: the berth.dev/scale-up annotation
// that persists a scale-up, resuming and giving back from it; and the late transitions (a
// request that stops waiting, validUntilSeconds, capacity counted on while nodes come).
#include "reconcile/provisioning/scale_up.h"

#include <gtest/gtest.h>

#include "reconcile/provisioning/conditions.h"
#include "reconcile/provisioning/scale_up_fixtures.h"

namespace berth::reconcile::provisioning {
namespace {

using namespace scale_up_test;  // the suite's fixtures

// ---- persistence across a restart (the berth.dev/scale-up annotation) -------------------------

TEST(ScaleUpStateTest, ARecordRoundTripsThroughItsAnnotation) {
  AtomicScaleUpProvisioner::Record r{.group = "pool",
                                     .delta = 2,
                                     .target_before = 1,
                                     .nodes_before = {{"pool-0", "p://0"}, {"pool-9", ""}},
                                     .deadline = kT0 + minutes(15),
                                     .give_back_pending = true,
                                     .watch_until = kT0 + minutes(15)};
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
