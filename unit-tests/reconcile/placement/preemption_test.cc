// Tests for DefaultPreemption's victim selection (issue 13): SelectVictimsOnNode's reprieve order
// and PDB handling, each tie-breaker of PickNodeForPreemption, eligibility, and Preempt's
// messages. The oracle here is a one-resource node (cpu); the ClusterSnapshot-backed oracle is
// tested in unit-tests/controllers/scheduler/scheduler_cache_preemption_test.cc.
#include "reconcile/placement/preemption.h"

#include <limits>
#include <map>
#include <set>

#include <gtest/gtest.h>

namespace berth::reconcile::placement {
namespace {

using std::chrono::seconds;
const Time kNow = Time{} + seconds(1'000'000);

VictimPod Pod(std::string name, int32_t priority, std::optional<Time> start = std::nullopt, LabelMap labels = {},
              std::string ns = "default") {
  VictimPod p;
  p.uid = "uid-" + name;
  p.name = std::move(name);
  p.namespace_name = std::move(ns);
  p.labels = std::move(labels);
  p.priority.value = priority;
  p.priority.start_time = start;
  return p;
}

PdbView Pdb(std::string name, LabelMap match, int64_t allowed, std::string ns = "default") {
  PdbView pdb;
  pdb.name = std::move(name);
  pdb.namespace_name = std::move(ns);
  pdb.selector = shim::LabelSelector::FromMap(match);
  pdb.disruptions_allowed = allowed;
  return pdb;
}

// CpuOracle: a node with `capacity` cpu; pods use `cpu_of[name]`; the preemptor needs `want`.
class CpuOracle : public NodeFitOracle {
 public:
  CpuOracle(int64_t capacity, int64_t want, std::map<std::string, int64_t> cpu_of)
      : capacity_(capacity), want_(want), cpu_of_(std::move(cpu_of)) {
    for (const auto& [name, cpu] : cpu_of_) present_.insert(name);
  }
  void RemovePod(const VictimPod& pod) override {
    ASSERT_TRUE(present_.erase(pod.name)) << "removed twice: " << pod.name;
  }
  void AddPod(const VictimPod& pod) override { ASSERT_TRUE(present_.insert(pod.name).second) << pod.name; }
  std::vector<std::string> Fits() override {
    ++fits_calls;
    int64_t used = 0;
    for (const std::string& name : present_) used += cpu_of_.at(name);
    if (capacity_ - used >= want_) return {};
    return {"Insufficient cpu"};
  }
  const std::set<std::string>& present() const { return present_; }
  int fits_calls = 0;

 private:
  int64_t capacity_, want_;
  std::map<std::string, int64_t> cpu_of_;
  std::set<std::string> present_;
};

std::vector<std::string> Names(const std::vector<VictimPod>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p.name);
  return out;
}

// ---- SelectVictimsOnNode ----------------------------------------------------------------------

struct VictimCase {
  std::string name;
  int32_t preemptor_priority;
  int64_t capacity, want;
  std::vector<std::pair<VictimPod, int64_t>> pods;  // pod, cpu
  std::vector<PdbView> pdbs;
  std::vector<std::string> victims;  // expected, in order; empty with `error`
  int pdb_violations = 0;
  std::string error;  // expected single reason
};

class SelectVictimsTable : public ::testing::TestWithParam<VictimCase> {};

TEST_P(SelectVictimsTable, ChoosesTheFewestLeastImportantVictims) {
  const VictimCase& c = GetParam();
  std::map<std::string, int64_t> cpu;
  std::vector<VictimPod> pods;
  for (const auto& [pod, amount] : c.pods) {
    cpu[pod.name] = amount;
    pods.push_back(pod);
  }
  CpuOracle oracle(c.capacity, c.want, cpu);
  auto got = SelectVictimsOnNode(c.preemptor_priority, "n1", pods, c.pdbs, oracle, kNow);
  std::set<std::string> all;
  for (const auto& [name, amount] : cpu) all.insert(name);
  EXPECT_EQ(oracle.present(), all) << "the oracle's node is left as it was found";
  if (!c.error.empty()) {
    ASSERT_FALSE(got.has_value());
    EXPECT_EQ(got.error(), std::vector<std::string>{c.error});
    return;
  }
  ASSERT_TRUE(got.has_value()) << got.error().front();
  EXPECT_EQ(got->node_name, "n1");
  EXPECT_EQ(Names(got->victims), c.victims);
  EXPECT_EQ(got->pdb_violations, c.pdb_violations);
}

const Time kEarly = kNow - seconds(600);
const Time kLate = kNow - seconds(60);

INSTANTIATE_TEST_SUITE_P(
    Cases, SelectVictimsTable,
    ::testing::Values(
        VictimCase{"NoLowerPriorityPod", 10, 4, 2, {{Pod("a", 10), 4}, {Pod("b", 20), 0}}, {}, {}, 0,
                   std::string(kReasonNoPreemptionVictims)},
        VictimCase{"DoesNotFitWithAllLowerRemoved", 10, 4, 3, {{Pod("a", 5), 2}, {Pod("b", 50), 2}}, {}, {}, 0,
                   "Insufficient cpu"},
        VictimCase{"HigherPriorityReprievedFirst",
                   10, 4, 2, {{Pod("low", 1), 2}, {Pod("mid", 2), 2}}, {}, {"low"}, 0, ""},
        VictimCase{"OnlyWhatIsNeeded",
                   10, 6, 2, {{Pod("a", 1), 2}, {Pod("b", 1), 2}, {Pod("c", 1), 2}}, {}, {"c"}, 0, ""},
        VictimCase{"SeveralVictimsMostImportantFirst",
                   10, 4, 4, {{Pod("x", 3), 2}, {Pod("y", 1), 2}, {Pod("z", 12), 0}}, {}, {"x", "y"}, 0, ""},
        VictimCase{"EqualPriorityEarlierStartIsMoreImportant",
                   10, 4, 2, {{Pod("late", 1, kLate), 2}, {Pod("early", 1, kEarly), 2}}, {}, {"late"}, 0, ""},
        VictimCase{"UnstartedCountsAsStartedNow",
                   10, 4, 2, {{Pod("unstarted", 1), 2}, {Pod("started", 1, kLate), 2}}, {}, {"unstarted"}, 0, ""},
        VictimCase{"PdbProtectedPodReprievedFirst",
                   10, 4, 2,
                   {{Pod("guarded", 1, kLate, {{"app", "db"}}), 2}, {Pod("free", 5, kEarly), 2}},
                   {Pdb("db", {{"app", "db"}}, 0)}, {"free"}, 0, ""},
        VictimCase{"PdbViolatedWhenNoOtherWay",
                   10, 4, 4,
                   {{Pod("guarded", 1, kLate, {{"app", "db"}}), 2}, {Pod("free", 5, kEarly), 2}},
                   {Pdb("db", {{"app", "db"}}, 0)}, {"free", "guarded"}, 1, ""},
        VictimCase{"PdbAllowingOneDisruptionIsNotViolated",
                   10, 4, 4,
                   {{Pod("g1", 1, kLate, {{"app", "db"}}), 2}, {Pod("g2", 1, kEarly, {{"app", "db"}}), 2}},
                   {Pdb("db", {{"app", "db"}}, 1)}, {"g2", "g1"}, 1, ""},
        VictimCase{"DisruptedPodTakesNoBudget",
                   10, 4, 2,
                   {{Pod("g1", 1, kLate, {{"app", "db"}}), 2}, {Pod("g2", 1, kEarly, {{"app", "db"}}), 2}},
                   {[] {
                     PdbView p = Pdb("db", {{"app", "db"}}, 0);
                     p.disrupted_pods = {"g1", "g2"};
                     return p;
                   }()},
                   {"g1"}, 0, ""},
        VictimCase{"PdbOfAnotherNamespaceDoesNotCount",
                   10, 4, 2,
                   {{Pod("g", 1, kLate, {{"app", "db"}}), 2}, {Pod("h", 1, kEarly), 2}},
                   {Pdb("db", {{"app", "db"}}, 0, "other")}, {"g"}, 0, ""},
        VictimCase{"EmptyPdbSelectorSelectsNothing",
                   10, 4, 2,
                   {{Pod("g", 1, kLate, {{"app", "db"}}), 2}, {Pod("h", 1, kEarly), 2}},
                   {Pdb("all", {}, 0)}, {"g"}, 0, ""}),
    [](const ::testing::TestParamInfo<VictimCase>& info) { return info.param.name; });

TEST(SplitByPdbViolation, BudgetIsSharedAcrossThePodsInOrder) {
  std::vector<VictimPod> pods = {Pod("a", 1, {}, {{"app", "x"}}), Pod("b", 1, {}, {{"app", "x"}}),
                                 Pod("c", 1, {}, {{"app", "x"}}), Pod("d", 1)};
  std::vector<VictimPod> violating, fine;
  SplitByPdbViolation(pods, {Pdb("x", {{"app", "x"}}, 2)}, violating, fine);
  EXPECT_EQ(Names(fine), (std::vector<std::string>{"a", "b", "d"}));
  EXPECT_EQ(Names(violating), (std::vector<std::string>{"c"}));
}

// ---- PickNodeForPreemption: one case per tie-breaker -----------------------------------------

constexpr int32_t kLowest = std::numeric_limits<int32_t>::min();

NodeVictims Victims(std::string node, std::vector<VictimPod> pods, int violations = 0) {
  return NodeVictims{std::move(node), std::move(pods), violations};
}

struct PickCase {
  std::string name;
  std::vector<NodeVictims> candidates;
  std::string want;
};

class PickNodeTable : public ::testing::TestWithParam<PickCase> {};

TEST_P(PickNodeTable, FollowsKubeSchedulersOrder) {
  const PickCase& c = GetParam();
  auto got = PickNodeForPreemption(c.candidates, kNow);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(c.candidates[*got].node_name, c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PickNodeTable,
    ::testing::Values(
        PickCase{"FewestPdbViolations",
                 {Victims("a", {Pod("p", 1)}, 1), Victims("b", {Pod("q", 100), Pod("r", 100)}, 0)}, "b"},
        PickCase{"LowestHighestVictimPriority",
                 {Victims("a", {Pod("p", 5)}), Victims("b", {Pod("q", 4), Pod("r", 4), Pod("s", 4)})}, "b"},
        PickCase{"SmallestSumOfPriorities",
                 {Victims("a", {Pod("p", 5), Pod("q", 3)}), Victims("b", {Pod("r", 5), Pod("s", 1)})}, "b"},
        PickCase{"NegativePrioritiesAreNotSavings",
                 {Victims("a", {Pod("p", -5), Pod("q", -10)}), Victims("b", {Pod("r", -5)})}, "b"},
        PickCase{"FewestVictims",
                 // At the lowest priority every shifted priority is 0, so the sums tie and the count decides.
                 {Victims("a", {Pod("p", kLowest), Pod("q", kLowest)}), Victims("b", {Pod("r", kLowest)}),
                  Victims("c", {})},
                 "b"},
        PickCase{"LatestStartOfHighestPriorityVictims",
                 {Victims("a", {Pod("p", 3, kEarly), Pod("q", 1, kLate)}),
                  Victims("b", {Pod("r", 3, kLate), Pod("s", 1, kEarly)})},
                 "b"},
        PickCase{"FirstCandidateOnAFullTie",
                 {Victims("c", {Pod("p", 3, kLate)}), Victims("a", {Pod("q", 3, kLate)})}, "c"}),
    [](const ::testing::TestParamInfo<PickCase>& info) { return info.param.name; });

TEST(PickNodeForPreemption, NoCandidates) { EXPECT_FALSE(PickNodeForPreemption({}, kNow).has_value()); }

TEST(NumCandidates, TenPercentAtLeastAHundredAtMostAll) {
  EXPECT_EQ(NumCandidates(5), 5);
  EXPECT_EQ(NumCandidates(100), 100);
  EXPECT_EQ(NumCandidates(999), 100);
  EXPECT_EQ(NumCandidates(5000), 500);
}

// ---- Eligibility and Preempt ------------------------------------------------------------------

TEST(IneligibleToPreempt, NeverAndTerminatingVictimsOnTheNominatedNode) {
  PodPriority never;
  never.value = 100;
  never.preempt_never = true;
  EXPECT_EQ(IneligibleToPreempt(never, nullptr), std::string(kPreemptNeverMessage));

  PodPriority nominated;
  nominated.value = 100;
  nominated.nominated_node_name = "n1";
  VictimPod going = Pod("going", 1);
  going.priority.terminating_by_preemption = true;
  std::vector<VictimPod> on_node = {going};
  EXPECT_EQ(IneligibleToPreempt(nominated, &on_node), std::string(kTerminatingVictimMessage));
  on_node[0].priority.value = 200;  // a higher-priority pod terminating is not our victim
  EXPECT_EQ(IneligibleToPreempt(nominated, &on_node), std::nullopt);
  on_node[0].priority.value = 1;
  on_node[0].priority.terminating_by_preemption = false;  // deleted for another reason
  EXPECT_EQ(IneligibleToPreempt(nominated, &on_node), std::nullopt);
  nominated.nominated_node_name.clear();
  on_node[0].priority.terminating_by_preemption = true;
  EXPECT_EQ(IneligibleToPreempt(nominated, &on_node), std::nullopt) << "no nominated node";
}

struct Cluster {
  std::map<std::string, CpuOracle> oracles;
  OracleFor For() {
    return [this](const std::string& node) -> NodeFitOracle& { return oracles.at(node); };
  }
};

TEST(Preempt, PicksANodeWithoutPdbViolationOverOneWithFewerVictims) {
  Cluster cluster;
  cluster.oracles.emplace("n1", CpuOracle(2, 2, {{"guarded", 2}}));
  cluster.oracles.emplace("n2", CpuOracle(2, 2, {{"a", 1}, {"b", 1}}));
  std::vector<PreemptionNode> nodes = {
      {"n1", true, {Pod("guarded", 1, kEarly, {{"app", "db"}})}},
      {"n2", true, {Pod("a", 1, kEarly), Pod("b", 1, kEarly)}},
  };
  PodPriority preemptor;
  preemptor.value = 10;
  auto out = Preempt(preemptor, nodes, {Pdb("db", {{"app", "db"}}, 0)}, nullptr, 2, cluster.For(), kNow);
  ASSERT_TRUE(out.chosen.has_value()) << out.message;
  EXPECT_EQ(out.chosen->node_name, "n2");
  EXPECT_EQ(Names(out.chosen->victims), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(out.chosen->pdb_violations, 0);
  EXPECT_TRUE(out.message.empty());
}

TEST(Preempt, NoCandidateGivesUpstreamsHistogramAndClearsTheNomination) {
  Cluster cluster;
  cluster.oracles.emplace("n1", CpuOracle(2, 4, {{"a", 1}}));
  cluster.oracles.emplace("n2", CpuOracle(4, 4, {{"b", 4}}));
  std::vector<PreemptionNode> nodes = {
      {"n1", true, {Pod("a", 1)}},          // still too small with a removed
      {"n2", true, {Pod("b", 50)}},         // only a more important pod
      {"n3", false, {}},                    // tainted: removing pods cannot help
  };
  PodPriority preemptor;
  preemptor.value = 10;
  auto out = Preempt(preemptor, nodes, {}, nullptr, 3, cluster.For(), kNow);
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_TRUE(out.clear_nomination);
  EXPECT_EQ(out.message,
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming "
            "pod, 1 Preemption is not helpful for scheduling.");
  EXPECT_EQ(WithPostFilterMessage("0/3 nodes are available: 3 Insufficient cpu.", out.message),
            "0/3 nodes are available: 3 Insufficient cpu. " + out.message);
}

TEST(Preempt, NeverPreemptsAndKeepsTheNomination) {
  Cluster cluster;
  cluster.oracles.emplace("n1", CpuOracle(2, 2, {{"a", 2}}));
  PodPriority never;
  never.value = 10;
  never.preempt_never = true;
  auto out = Preempt(never, {{"n1", true, {Pod("a", 1)}}}, {}, nullptr, 1, cluster.For(), kNow);
  EXPECT_FALSE(out.chosen.has_value());
  EXPECT_FALSE(out.clear_nomination);
  EXPECT_EQ(out.message, "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(cluster.oracles.at("n1").fits_calls, 0) << "no dry run";
}

TEST(Preempt, StopsAfterEnoughCandidatesWithOneWithoutViolations) {
  Cluster cluster;
  std::vector<PreemptionNode> nodes;
  for (int i = 0; i < 150; ++i) {
    std::string name = "n" + std::to_string(1000 + i);
    cluster.oracles.emplace(name, CpuOracle(1, 1, {{"p" + name, 1}}));
    nodes.push_back({name, true, {Pod("p" + name, 1)}});
  }
  PodPriority preemptor;
  preemptor.value = 10;
  auto out = Preempt(preemptor, nodes, {}, nullptr, 150, cluster.For(), kNow);
  ASSERT_TRUE(out.chosen.has_value());
  EXPECT_EQ(out.chosen->node_name, "n1000") << "a full tie goes to the first candidate";
  EXPECT_GT(cluster.oracles.at("n1099").fits_calls, 0);
  EXPECT_EQ(cluster.oracles.at("n1100").fits_calls, 0) << "NumCandidates(150) = 100 nodes evaluated";
}

}  // namespace
}  // namespace berth::reconcile::placement
