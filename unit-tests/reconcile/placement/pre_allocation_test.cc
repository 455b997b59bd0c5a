// Tests for reconcile/placement/pre_allocation.h (the pure rules) and ClusterSnapshot's
// pre-allocation decisions and accounting (snapshot_pre_allocation.cc, snapshot.cc).
#include "reconcile/placement/pre_allocation.h"

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;  // milli-bytes
constexpr int64_t kCore = 1000;

PreAllocatablePod Running(std::string name, std::string node, int64_t milli_cpu, int64_t memory,
                          std::optional<std::string> priority = std::nullopt,
                          bool cluster_label = true) {
  PreAllocatablePod p;
  p.pod.namespace_name = "default";
  p.pod.name = name;
  p.pod.uid = name + "-uid";
  p.pod.node_name = std::move(node);
  if (cluster_label) p.pod.labels[std::string(kPreAllocatableLabel)] = "true";
  if (milli_cpu) p.pod.requests["cpu"] = milli_cpu;
  if (memory) p.pod.requests["memory"] = memory;
  p.priority = std::move(priority);
  return p;
}

std::vector<ReservationOwner> Owners(std::string_view selector) {
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse(selector);
  return {owner};
}

const PreAllocationPolicy kCluster{PreAllocationMode::kCluster, false};
const PreAllocationPolicy kClusterMultiple{PreAllocationMode::kCluster, true};
const PreAllocationPolicy kDefaultMode{};

std::vector<std::string> Names(const std::vector<PreAllocationCandidate>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.pod->pod.name);
  return out;
}

std::vector<std::string> Names(const std::vector<PreAllocatedPod>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p.name);
  return out;
}

bool AnyNode(std::string_view) { return true; }

// ---- parsing ---------------------------------------------------------------------------------

TEST(PreAllocationMode, OnlyClusterIsClusterEverythingElseIsDefault) {
  EXPECT_EQ(ParsePreAllocationMode("Cluster"), PreAllocationMode::kCluster);
  EXPECT_EQ(ParsePreAllocationMode("Default"), PreAllocationMode::kDefault);
  EXPECT_EQ(ParsePreAllocationMode(""), PreAllocationMode::kDefault);
  EXPECT_EQ(ParsePreAllocationMode("cluster"), PreAllocationMode::kDefault);
}

TEST(PreAllocatablePriority, ParsesSignedDecimalIntegers) {
  EXPECT_EQ(ParsePreAllocatablePriority("100"), 100);
  EXPECT_EQ(ParsePreAllocatablePriority("0"), 0);
  EXPECT_EQ(ParsePreAllocatablePriority("-5"), -5);
  EXPECT_EQ(ParsePreAllocatablePriority("+7"), 7);
  EXPECT_EQ(ParsePreAllocatablePriority("007"), 7);
  EXPECT_EQ(ParsePreAllocatablePriority("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParsePreAllocatablePriority("-9223372036854775808"), INT64_MIN);
}

TEST(PreAllocatablePriority, MalformedValuesAreRejected) {
  for (std::string_view bad : {"", "-", "+", " 1", "1 ", "1.5", "1e3", "0x10", "ten", "１",
                               "9223372036854775808", "-9223372036854775809",
                               "99999999999999999999999"}) {
    EXPECT_EQ(ParsePreAllocatablePriority(bad), std::nullopt) << bad;
  }
}

// ---- candidates ------------------------------------------------------------------------------

TEST(PreAllocatable, ClusterModeTakesOnlyPodsLabelledTrue) {
  PreAllocationOptions options;
  EXPECT_TRUE(IsPreAllocatable(Running("a", "n1", 1, 0), {}, kCluster, options));
  PreAllocatablePod unlabelled = Running("b", "n1", 1, 0, std::nullopt, /*cluster_label=*/false);
  EXPECT_FALSE(IsPreAllocatable(unlabelled, {}, kCluster, options));
  PreAllocatablePod wrong = Running("c", "n1", 1, 0);
  wrong.pod.labels[std::string(kPreAllocatableLabel)] = "True";
  EXPECT_FALSE(IsPreAllocatable(wrong, {}, kCluster, options));
}

TEST(PreAllocatable, ClusterModeIgnoresTheOwnersAndHonoursACustomLabelKey) {
  PreAllocationOptions options;
  options.cluster_label_key = "example.com/spare";
  PreAllocatablePod pod = Running("a", "n1", 1, 0, std::nullopt, false);
  EXPECT_FALSE(IsPreAllocatable(pod, Owners("app=x"), kCluster, options));
  pod.pod.labels["example.com/spare"] = "true";
  EXPECT_TRUE(IsPreAllocatable(pod, Owners("app=x"), kCluster, options));
}

TEST(PreAllocatable, ClusterModeDisabledFindsNoCandidates) {
  PreAllocationOptions options;
  options.enable_cluster_mode = false;
  EXPECT_FALSE(IsPreAllocatable(Running("a", "n1", 1, 0), {}, kCluster, options));
}

TEST(PreAllocatable, DefaultModeTakesPodsMatchingTheOwners) {
  PreAllocationOptions options;
  PreAllocatablePod mine = Running("a", "n1", 1, 0, std::nullopt, false);
  mine.pod.labels["app"] = "my-app";
  PreAllocatablePod other = Running("b", "n1", 1, 0);  // labelled pre-allocatable, not an owner
  EXPECT_TRUE(IsPreAllocatable(mine, Owners("app=my-app"), kDefaultMode, options));
  EXPECT_FALSE(IsPreAllocatable(other, Owners("app=my-app"), kDefaultMode, options));
  EXPECT_FALSE(IsPreAllocatable(mine, {}, kDefaultMode, options)) << "no owners match nothing";
}

TEST(PreAllocatable, UnboundTerminalDeletingAndReservationConsumingPodsAreNeverCandidates) {
  PreAllocationOptions options;
  PreAllocatablePod unbound = Running("a", "", 1, 0);
  PreAllocatablePod terminal = Running("b", "n1", 1, 0);
  terminal.terminal = true;
  PreAllocatablePod deleting = Running("c", "n1", 1, 0);
  deleting.deleting = true;
  PreAllocatablePod consumer = Running("d", "n1", 1, 0);
  consumer.pod.reservation_uid = "r-uid";
  PreAllocatablePod no_uid = Running("e", "n1", 1, 0);
  no_uid.pod.uid.clear();
  for (const auto* p : {&unbound, &terminal, &deleting, &consumer, &no_uid}) {
    EXPECT_FALSE(IsPreAllocatable(*p, {}, kCluster, options)) << p->pod.name;
  }
}

TEST(SelectPreAllocatable, HigherPriorityFirstMissingAndMalformedLastTiesByNamespaceThenName) {
  std::vector<PreAllocatablePod> pods = {
      Running("low", "n1", 1, 0, "10"),     Running("none-b", "n1", 1, 0),
      Running("bad", "n1", 1, 0, "high"),   Running("high", "n1", 1, 0, "100"),
      Running("tie-b", "n1", 1, 0, "50"),   Running("tie-a", "n1", 1, 0, "50"),
      Running("neg", "n1", 1, 0, "-1"),     Running("none-a", "n1", 1, 0, ""),
  };
  PreAllocatablePod other_ns = Running("tie-0", "n1", 1, 0, "50");
  other_ns.pod.namespace_name = "zeta";
  pods.push_back(other_ns);
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  EXPECT_EQ(Names(ordered), (std::vector<std::string>{"high", "tie-a", "tie-b", "tie-0", "low", "neg",
                                                      "bad", "none-a", "none-b"}));
  EXPECT_EQ(ordered[0].priority, 100);
  EXPECT_EQ(ordered[6].priority, std::nullopt);
}

TEST(SelectPreAllocatable, LeavesOutPodsAnotherReservationTookAndIneligiblePods) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1, 0, "1"), Running("b", "n1", 1, 0, "2"),
                                         Running("c", "", 1, 0, "3")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {}, {"b-uid"});
  EXPECT_EQ(Names(ordered), (std::vector<std::string>{"a"}));
}

TEST(SelectPreAllocatable, NoCandidatesGivesAnEmptyList) {
  EXPECT_TRUE(SelectPreAllocatable({}, {}, kCluster, {}).empty());
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1, 0, "1", false)};
  EXPECT_TRUE(SelectPreAllocatable(pods, {}, kCluster, {}).empty());
}

// ---- covering ------------------------------------------------------------------------------------

TEST(Covers, EveryRequestedResourceMustBeCovered) {
  EXPECT_TRUE(Covers({{"cpu", 2000}, {"memory", 4}}, {{"cpu", 2000}, {"memory", 4}}));
  EXPECT_TRUE(Covers({{"cpu", 3000}, {"memory", 4}, {"gpu", 1}}, {{"cpu", 2000}, {"memory", 4}}));
  EXPECT_FALSE(Covers({{"cpu", 2000}}, {{"cpu", 2000}, {"memory", 4}}));
  EXPECT_FALSE(Covers({{"cpu", 1999}, {"memory", 4}}, {{"cpu", 2000}, {"memory", 4}}));
  EXPECT_TRUE(Covers({}, {{"cpu", 0}}));
}

std::vector<const PreAllocationCandidate*> Pointers(const std::vector<PreAllocationCandidate>& cs) {
  std::vector<const PreAllocationCandidate*> out;
  for (const auto& c : cs) out.push_back(&c);
  return out;
}

TEST(CoverOnNode, SingleModeTakesTheFirstPodThatCoversAlone) {
  std::vector<PreAllocatablePod> pods = {Running("small", "n1", 1 * kCore, 2 * kGi, "100"),
                                         Running("big", "n1", 2 * kCore, 4 * kGi, "50"),
                                         Running("bigger", "n1", 4 * kCore, 8 * kGi, "10")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  auto chosen = CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, false);
  ASSERT_TRUE(chosen);
  ASSERT_EQ(chosen->size(), 1u);
  EXPECT_EQ((*chosen)[0]->pod->pod.name, "big");
}

TEST(CoverOnNode, SingleModeFailsWhenNoPodCoversAlone) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1 * kCore, 2 * kGi, "100"),
                                         Running("b", "n1", 1 * kCore, 2 * kGi, "90")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  EXPECT_FALSE(CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, false));
}

TEST(CoverOnNode, MultipleModeTakesPodsInPriorityOrderUntilCovered) {
  std::vector<PreAllocatablePod> pods = {Running("batch-job-2", "n1", 1 * kCore, 2 * kGi, "90"),
                                         Running("batch-job-1", "n1", 1 * kCore, 2 * kGi, "100"),
                                         Running("batch-job-3", "n1", 1 * kCore, 2 * kGi, "80")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  auto chosen = CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true);
  ASSERT_TRUE(chosen);
  ASSERT_EQ(chosen->size(), 2u);
  EXPECT_EQ((*chosen)[0]->pod->pod.name, "batch-job-1");
  EXPECT_EQ((*chosen)[1]->pod->pod.name, "batch-job-2");
}

TEST(CoverOnNode, MultipleModeStopsAtOnePodWhenItCoversAlone) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 4 * kCore, 8 * kGi, "100"),
                                         Running("b", "n1", 1 * kCore, 2 * kGi, "90")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  auto chosen = CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->size(), 1u);
}

TEST(CoverOnNode, MultipleModeSkipsPodsThatAddNothingMissing) {
  // cpu-only pod first: it helps; a second cpu-only pod adds nothing once cpu is covered.
  std::vector<PreAllocatablePod> pods = {Running("cpu1", "n1", 2 * kCore, 0, "100"),
                                         Running("cpu2", "n1", 2 * kCore, 0, "90"),
                                         Running("mem", "n1", 0, 4 * kGi, "80")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  auto chosen = CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true);
  ASSERT_TRUE(chosen);
  ASSERT_EQ(chosen->size(), 2u);
  EXPECT_EQ((*chosen)[0]->pod->pod.name, "cpu1");
  EXPECT_EQ((*chosen)[1]->pod->pod.name, "mem");
}

TEST(CoverOnNode, MultipleModeFailsWhenAllPodsTogetherFallShort) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1 * kCore, 2 * kGi, "100"),
                                         Running("b", "n1", 1 * kCore, 1 * kGi, "90")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  EXPECT_FALSE(CoverOnNode(Pointers(ordered), {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true));
}

TEST(CoverOnNode, AReservationRequestingNothingPreAllocatesNothing) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1 * kCore, 2 * kGi, "100")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  EXPECT_FALSE(CoverOnNode(Pointers(ordered), {}, false));
  EXPECT_FALSE(CoverOnNode(Pointers(ordered), {{"cpu", 0}}, true));
}

// ---- choosing the node ---------------------------------------------------------------------------

TEST(ChoosePreAllocation, TheHighestPriorityPodsNodeWins) {
  std::vector<PreAllocatablePod> pods = {Running("low", "n1", 2 * kCore, 4 * kGi, "10"),
                                         Running("high", "n2", 2 * kCore, 4 * kGi, "100")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  auto choice = ChoosePreAllocation(ordered, {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, false, AnyNode);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->node_name, "n2");
  EXPECT_EQ(Names(choice->pods), (std::vector<std::string>{"high"}));
  EXPECT_EQ(choice->pods[0].uid, "high-uid");
  EXPECT_EQ(choice->pods[0].namespace_name, "default");
  EXPECT_EQ(choice->pod_requests, (ResourceAmounts{{"cpu", 2 * kCore}, {"memory", 4 * kGi}}));
}

TEST(ChoosePreAllocation, ANodeFailingTheFiltersIsSkipped) {
  std::vector<PreAllocatablePod> pods = {Running("low", "n1", 2 * kCore, 4 * kGi, "10"),
                                         Running("high", "n2", 2 * kCore, 4 * kGi, "100")};
  auto ordered = SelectPreAllocatable(pods, {}, kCluster, {});
  auto choice = ChoosePreAllocation(ordered, {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, false,
                                    [](std::string_view n) { return n != "n2"; });
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->node_name, "n1");
  EXPECT_FALSE(ChoosePreAllocation(ordered, {{"cpu", kCore}}, false, [](std::string_view) { return false; }));
}

TEST(ChoosePreAllocation, PodsOfDifferentNodesAreNeverCombined) {
  std::vector<PreAllocatablePod> pods = {Running("a", "n1", 1 * kCore, 2 * kGi, "100"),
                                         Running("b", "n2", 1 * kCore, 2 * kGi, "90")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  EXPECT_FALSE(ChoosePreAllocation(ordered, {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true, AnyNode));
}

TEST(ChoosePreAllocation, EqualPriorityPrefersFewerPodsThenTheSmallerNodeName) {
  std::vector<PreAllocatablePod> pods = {Running("a1", "n1", 1 * kCore, 2 * kGi, "50"),
                                         Running("a2", "n1", 1 * kCore, 2 * kGi, "50"),
                                         Running("b1", "n2", 2 * kCore, 4 * kGi, "50")};
  auto ordered = SelectPreAllocatable(pods, {}, kClusterMultiple, {});
  auto choice = ChoosePreAllocation(ordered, {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, true, AnyNode);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->node_name, "n2");

  std::vector<PreAllocatablePod> same = {Running("x", "n3", 2 * kCore, 4 * kGi, "50"),
                                         Running("y", "n2", 2 * kCore, 4 * kGi, "50")};
  auto again = SelectPreAllocatable(same, {}, kCluster, {});
  choice = ChoosePreAllocation(again, {{"cpu", 2 * kCore}, {"memory", 4 * kGi}}, false, AnyNode);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->node_name, "n2");
}

TEST(ChoosePreAllocation, NoCandidatesGivesNothing) {
  EXPECT_FALSE(ChoosePreAllocation({}, {{"cpu", kCore}}, false, AnyNode));
}

// ---- Waiting → Available -----------------------------------------------------------------------

TEST(DecideWaiting, WaitsWhileAnyPreAllocatedPodRunsThenNeedsRoom) {
  std::vector<PreAllocatedPod> recorded = {{"default", "a", "a-uid"}, {"default", "b", "b-uid"}};
  auto only_b = [](const PreAllocatedPod& p) { return p.uid == "b-uid"; };
  WaitingDecision d = DecideWaiting(recorded, only_b, true);
  EXPECT_EQ(d.state, WaitingState::kPodsRunning);
  EXPECT_EQ(Names(d.running), (std::vector<std::string>{"b"}));
  auto none = [](const PreAllocatedPod&) { return false; };
  EXPECT_EQ(DecideWaiting(recorded, none, true).state, WaitingState::kAvailable);
  EXPECT_EQ(DecideWaiting(recorded, none, false).state, WaitingState::kNoRoom);
  EXPECT_EQ(DecideWaiting({}, none, true).state, WaitingState::kAvailable);
  EXPECT_TRUE(DecideWaiting(recorded, none, true).running.empty());
}

// ---- ClusterSnapshot ---------------------------------------------------------------------------

NodeView Node(std::string name, int64_t cores, int64_t gi) {
  NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", gi * kGi}, {"pods", 110 * 1000}};
  return n;
}

PodSpecView Template(int64_t milli_cpu, int64_t memory) {
  PodSpecView t;
  t.namespace_name = "default";
  t.name = "r";
  t.uid = "r-uid";
  t.requests = {{"cpu", milli_cpu}, {"memory", memory}};
  return t;
}

ReservationView Res(std::string name) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.owners = Owners("app=critical-app");
  return r;
}

struct SnapshotFixture : ::testing::Test {
  ClusterSnapshot snap;
  std::vector<PreAllocatablePod> pods;
  void SetUp() override {
    snap.UpsertNode(Node("n1", 8, 32));
    snap.UpsertNode(Node("n2", 8, 32));
  }
  void Bind(PreAllocatablePod p) {
    snap.UpsertPod(p.pod);
    pods.push_back(std::move(p));
  }
  ResourceAmounts Held(std::string_view node) { return snap.Usage(node)->held; }
};

TEST_F(SnapshotFixture, PlacesOnTheChosenPodsNodeAsWaitingWithoutDoubleCounting) {
  Bind(Running("batch-job-1", "n2", 1 * kCore, 2 * kGi, "100"));
  Bind(Running("batch-job-2", "n2", 1 * kCore, 2 * kGi, "90"));
  ReservationView r = Res("multi");
  auto placed = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), r, pods, kClusterMultiple, {});
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->node_name, "n2");
  EXPECT_EQ(placed->phase, Phase::kWaiting);
  EXPECT_EQ(Names(placed->pre_allocated), (std::vector<std::string>{"batch-job-1", "batch-job-2"}));
  EXPECT_EQ(placed->allocatable, (ResourceAmounts{{"cpu", 2 * kCore}, {"memory", 4 * kGi}}));
  ASSERT_TRUE(snap.AssumeReservation(r, *placed).has_value());
  // While Waiting the node's usage is the pods; the reservation holds nothing on top.
  EXPECT_EQ(snap.Usage("n2")->requested.at("cpu"), 2 * kCore);
  EXPECT_EQ(Held("n2").count("cpu"), 0u);
  EXPECT_EQ(snap.Usage("n2")->free.at("cpu"), 6 * kCore);
  EXPECT_EQ(snap.DecideWaiting("multi-uid").state, WaitingState::kPodsRunning);

  // One pod goes: its capacity is held for the reservation at once, not freed for others.
  snap.RemovePod("batch-job-1-uid");
  EXPECT_EQ(Held("n2").at("cpu"), 1 * kCore);
  EXPECT_EQ(snap.Usage("n2")->free.at("cpu"), 6 * kCore);
  WaitingDecision d = snap.DecideWaiting("multi-uid");
  EXPECT_EQ(d.state, WaitingState::kPodsRunning);
  EXPECT_EQ(Names(d.running), (std::vector<std::string>{"batch-job-2"}));

  snap.RemovePod("batch-job-2-uid");
  EXPECT_EQ(Held("n2").at("cpu"), 2 * kCore);
  EXPECT_EQ(Held("n2").at("memory"), 4 * kGi);
  EXPECT_EQ(snap.Usage("n2")->free.at("cpu"), 6 * kCore);
  EXPECT_EQ(snap.DecideWaiting("multi-uid").state, WaitingState::kAvailable);
}

TEST_F(SnapshotFixture, APodAnotherWaitingReservationPreAllocatesIsNotTakenTwice) {
  Bind(Running("batch-job-1", "n1", 2 * kCore, 4 * kGi, "100"));
  Bind(Running("spare", "n2", 2 * kCore, 4 * kGi, "1"));
  ReservationView first = Res("first");
  auto a = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), first, pods, kCluster, {});
  ASSERT_TRUE(a);
  EXPECT_EQ(Names(a->pre_allocated), (std::vector<std::string>{"batch-job-1"}));
  ASSERT_TRUE(snap.AssumeReservation(first, *a).has_value());
  ReservationView second = Res("second");
  auto b = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), second, pods, kCluster, {});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->node_name, "n2");
  EXPECT_EQ(Names(b->pre_allocated), (std::vector<std::string>{"spare"}));
  // Re-deciding the first reservation itself may still see its own pod.
  auto again = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), first, pods, kCluster, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->node_name, "n1");
}

TEST_F(SnapshotFixture, TheTemplatesNonResourceFiltersApplyToThePodsNode) {
  NodeView tainted = Node("n1", 8, 32);
  tainted.taints = {{"dedicated", "batch", "NoSchedule"}};
  snap.UpsertNode(tainted);
  Bind(Running("batch-job-1", "n1", 2 * kCore, 4 * kGi, "100"));
  EXPECT_FALSE(snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), Res("r"), pods, kCluster, {}));
  PodSpecView tolerant = Template(2 * kCore, 4 * kGi);
  tolerant.tolerations = {{"dedicated", "Exists", "", "NoSchedule"}};
  EXPECT_TRUE(snap.PlacePreAllocation(tolerant, Res("r"), pods, kCluster, {}));
  PodSpecView pinned = Template(2 * kCore, 4 * kGi);
  pinned.tolerations = tolerant.tolerations;
  pinned.node_name = "n2";
  EXPECT_FALSE(snap.PlacePreAllocation(pinned, Res("r"), pods, kCluster, {}));
}

TEST_F(SnapshotFixture, NoCandidateGivesNoPlacement) {
  Bind(Running("unlabelled", "n1", 2 * kCore, 4 * kGi, "100", false));
  EXPECT_FALSE(snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), Res("r"), pods, kCluster, {}));
  EXPECT_FALSE(snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), Res("r"), {}, kDefaultMode, {}));
}

TEST_F(SnapshotFixture, AWaitingReservationSeenFromTheWatchKeepsThePodsAccounting) {
  // After a restart: the reservation arrives from the informer with its recorded pods.
  Bind(Running("batch-job-1", "n1", 2 * kCore, 4 * kGi, "100"));
  ReservationView r = Res("seen");
  r.phase = Phase::kWaiting;
  r.node_name = "n1";
  r.allocatable = {{"cpu", 2 * kCore}, {"memory", 4 * kGi}};
  r.pre_allocated = {{"default", "batch-job-1", "batch-job-1-uid"}};
  snap.UpsertReservation(r);
  EXPECT_EQ(Held("n1").count("cpu"), 0u);
  EXPECT_EQ(snap.DecideWaiting("seen-uid").state, WaitingState::kPodsRunning);
  // A pod arriving after the reservation is still netted out.
  ReservationView late = Res("late");
  late.phase = Phase::kWaiting;
  late.node_name = "n2";
  late.allocatable = {{"cpu", 1 * kCore}};
  late.pre_allocated = {{"default", "late-pod", "late-pod-uid"}};
  snap.UpsertReservation(late);
  EXPECT_EQ(Held("n2").at("cpu"), 1 * kCore);
  Bind(Running("late-pod", "n2", 1 * kCore, 0, "1"));
  EXPECT_EQ(Held("n2").count("cpu"), 0u);
  // Once Available, the full reservation is held and the record no longer nets anything.
  r.phase = Phase::kAvailable;
  snap.UpsertReservation(r);
  EXPECT_EQ(Held("n1").at("cpu"), 2 * kCore);
}

TEST_F(SnapshotFixture, AWaitingReservationWhosePodsAreGoneStillNeedsRoom) {
  Bind(Running("batch-job-1", "n1", 2 * kCore, 4 * kGi, "100"));
  ReservationView r = Res("r");
  auto placed = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), r, pods, kCluster, {});
  ASSERT_TRUE(placed);
  ASSERT_TRUE(snap.AssumeReservation(r, *placed).has_value());
  snap.RemovePod("batch-job-1-uid");
  // Another scheduler's pod fills the node: the reservation cannot turn Available yet.
  PreAllocatablePod filler = Running("filler", "n1", 7 * kCore, 0, std::nullopt, false);
  snap.UpsertPod(filler.pod);
  EXPECT_EQ(snap.DecideWaiting("r-uid").state, WaitingState::kNoRoom);
  snap.RemovePod("filler-uid");
  EXPECT_EQ(snap.DecideWaiting("r-uid").state, WaitingState::kAvailable);
}

TEST_F(SnapshotFixture, ForgettingTheAssumptionReleasesThePods) {
  Bind(Running("batch-job-1", "n1", 2 * kCore, 4 * kGi, "100"));
  ReservationView r = Res("r");
  auto placed = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), r, pods, kCluster, {});
  ASSERT_TRUE(placed);
  ASSERT_TRUE(snap.AssumeReservation(r, *placed).has_value());
  snap.ForgetReservation("r-uid");
  ReservationView other = Res("other");
  auto b = snap.PlacePreAllocation(Template(2 * kCore, 4 * kGi), other, pods, kCluster, {});
  ASSERT_TRUE(b);
  EXPECT_EQ(Names(b->pre_allocated), (std::vector<std::string>{"batch-job-1"}));
  EXPECT_EQ(Held("n1").count("cpu"), 0u);
}

}  // namespace
}  // namespace berth::reconcile::placement
