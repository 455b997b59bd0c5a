#include "e2e/kubesim/disruption/pdb_status.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "e2e/kubesim/disruption/test_objects.h"

namespace berth::kubesim::disruption {
namespace {

using namespace std::chrono_literals;
using testing::PodSpec;
using testing::Str;
using testing::T0;

std::string Pdb(const std::string& spec, const std::string& status = "", int generation = 4) {
  return R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web-pdb",)"
         R"("namespace":"default","generation":)" +
         std::to_string(generation) + R"(},"spec":)" + spec +
         (status.empty() ? "" : R"(,"status":)" + status) + "}";
}

constexpr const char* kSel = R"("selector":{"matchLabels":{"app":"web"}})";

class PdbStatusTest : public ::testing::Test {
 protected:
  // Deployment "deploy-1" owns ReplicaSets rs-1 and rs-2; StatefulSet sts-1 stands alone.
  PdbStatusTest() {
    scales_["rs-1"] = {"deploy-1", 3};
    scales_["rs-2"] = {"deploy-1", 3};
    scales_["sts-1"] = {"sts-1", 2};
    lookup_ = [this](std::string_view ns, const OwnerRef& ref) -> std::optional<ControllerScale> {
      ++lookups_;
      EXPECT_EQ(ns, "default");
      auto it = scales_.find(ref.uid);
      if (it == scales_.end()) return std::nullopt;
      return it->second;
    };
  }

  PdbStatusResult Run(const std::string& pdb_text, TimePoint now = T0()) {
    return ComputePdbStatus(*store_.Add(pdb_text), pods_, lookup_, now);
  }
  void AddPod(PodSpec p) { pods_.push_back(store_.AddPod(p)); }

  testing::Store store_;
  std::vector<const rapidjson::Value*> pods_;
  std::map<std::string, ControllerScale> scales_;
  ScaleLookup lookup_;
  int lookups_ = 0;
};

TEST_F(PdbStatusTest, MinAvailableIntegerExpectsEverySelectedPod) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  AddPod({.name = "web-2", .ready = false});
  AddPod({.name = "db-0", .labels = R"({"app":"db"})"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})"));
  EXPECT_EQ(Str(r.status),
            R"({"observedGeneration":4,"disruptionsAllowed":1,"currentHealthy":2,)"
            R"("desiredHealthy":1,"expectedPods":3,"conditions":[{"type":"DisruptionAllowed",)"
            R"("status":"True","observedGeneration":4,"lastTransitionTime":"2024-05-01T10:00:00Z",)"
            R"("reason":"SufficientPods","message":""}]})");
  EXPECT_TRUE(r.changed);
  EXPECT_FALSE(r.sync_failed);
  EXPECT_FALSE(r.recheck_at.has_value());
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(lookups_, 0);  // integer minAvailable never needs controller scale
}

TEST_F(PdbStatusTest, MinAvailablePercentRoundsUpAgainstControllerScale) {
  scales_["rs-1"].replicas = 5;
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  AddPod({.name = "web-2"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":"50%"})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 5);
  EXPECT_EQ(r.status["desiredHealthy"].GetInt64(), 3);  // ceil(2.5)
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 3);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);
  EXPECT_STREQ(r.status["conditions"][0]["reason"].GetString(), "InsufficientPods");
  EXPECT_STREQ(r.status["conditions"][0]["status"].GetString(), "False");
}

TEST_F(PdbStatusTest, MaxUnavailableIntegerIsSubtractedFromScale) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  AddPod({.name = "web-2"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":1})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 3);
  EXPECT_EQ(r.status["desiredHealthy"].GetInt64(), 2);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 1);
}

TEST_F(PdbStatusTest, MaxUnavailablePercentRoundsUpAndDesiredFloorsAtZero) {
  scales_["rs-1"].replicas = 5;
  for (int i = 0; i < 5; ++i) AddPod({.name = "web-" + std::to_string(i)});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":"30%"})"));
  EXPECT_EQ(r.status["desiredHealthy"].GetInt64(), 3);  // 5 - ceil(1.5)
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 2);
  auto all = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":9})"));
  EXPECT_EQ(all.status["desiredHealthy"].GetInt64(), 0);
  EXPECT_EQ(all.status["disruptionsAllowed"].GetInt64(), 5);
}

TEST_F(PdbStatusTest, ControllersAreSummedOnceEachByResolvedUid) {
  AddPod({.name = "web-a0", .owner_uid = "rs-1"});
  AddPod({.name = "web-a1", .owner_uid = "rs-1"});
  AddPod({.name = "web-b0", .owner_uid = "rs-2"});  // same Deployment as rs-1
  AddPod({.name = "web-s0", .owner_kind = "StatefulSet", .owner_uid = "sts-1"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":"50%"})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 5);  // 3 (deploy-1) + 2 (sts-1), not 8
  EXPECT_EQ(r.status["desiredHealthy"].GetInt64(), 2);  // 5 - ceil(2.5)
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 2);
  EXPECT_EQ(lookups_, 3);  // rs-1 once, rs-2 once, sts-1 once
}

TEST_F(PdbStatusTest, DeletingAndUnreadyPodsAreNotHealthyButStillExpected) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1", .deleting = true});
  AddPod({.name = "web-2", .ready = false});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":2})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 3);
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 1);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);  // negative floors at 0
}

TEST_F(PdbStatusTest, ZeroExpectedPodsAllowsNoDisruption) {
  scales_["rs-1"].replicas = 0;
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":0})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 0);
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 2);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);
}

TEST_F(PdbStatusTest, RecentDisruptedPodIsKeptUnhealthyAndSchedulesRecheck) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})",
                   R"({"disruptedPods":{"web-1":"2024-05-01T09:59:30Z"}})"));
  EXPECT_EQ(Str(r.status["disruptedPods"]), R"({"web-1":"2024-05-01T09:59:30Z"})");
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 1);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);
  ASSERT_TRUE(r.recheck_at.has_value());
  EXPECT_EQ(FormatRfc3339(*r.recheck_at), "2024-05-01T10:01:30Z");
  EXPECT_TRUE(r.events.empty());
}

TEST_F(PdbStatusTest, RecheckIsTheEarliestPendingExpiry) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  AddPod({.name = "web-2"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})",
                   R"({"disruptedPods":{"web-0":"2024-05-01T09:59:50Z",)"
                   R"("web-1":"2024-05-01T09:58:30Z"}})"));
  ASSERT_TRUE(r.recheck_at.has_value());
  EXPECT_EQ(FormatRfc3339(*r.recheck_at), "2024-05-01T10:00:30Z");
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 1);
}

TEST_F(PdbStatusTest, ExpiredDisruptedPodIsDroppedWithNotDeletedWarning) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})",
                   R"({"disruptedPods":{"web-1":"2024-05-01T09:57:59Z"}})"));
  EXPECT_FALSE(r.status.HasMember("disruptedPods"));
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 2);
  EXPECT_FALSE(r.recheck_at.has_value());
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, "Warning");
  EXPECT_EQ(r.events[0].reason, "NotDeleted");
  EXPECT_EQ(r.events[0].object_kind, "Pod");
  EXPECT_EQ(r.events[0].object_name, "web-1");
  // Upstream formats the PDB as namespace/namespace; reproduced on purpose.
  EXPECT_EQ(r.events[0].message,
            "Pod was expected by PDB default/default to be deleted but it wasn't");
}

TEST_F(PdbStatusTest, EntryAtExactlyTheTimeoutIsKeptButCountsHealthy) {
  AddPod({.name = "web-0"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":0})",
                   R"({"disruptedPods":{"web-0":"2024-05-01T09:58:00Z"}})"));
  EXPECT_TRUE(r.status.HasMember("disruptedPods"));
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 1);
  ASSERT_TRUE(r.recheck_at.has_value());
  EXPECT_EQ(*r.recheck_at, T0());
}

TEST_F(PdbStatusTest, EntriesOfDeletingMissingOrMalformedPodsAreDroppedSilently) {
  AddPod({.name = "web-0", .deleting = true});
  AddPod({.name = "web-1"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})",
                   R"({"disruptedPods":{"web-0":"2024-05-01T09:59:59Z",)"
                   R"("gone":"2024-05-01T09:59:59Z","web-1":"yesterday"}})"));
  EXPECT_FALSE(r.status.HasMember("disruptedPods"));
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 1);
}

TEST_F(PdbStatusTest, MissingControllerIsSyncFailedKeepingPreviousCounts) {
  AddPod({.name = "web-0", .owner_uid = "rs-unknown"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":1})",
                   R"({"observedGeneration":3,"disruptionsAllowed":2,"currentHealthy":3,)"
                   R"("desiredHealthy":1,"expectedPods":3,"conditions":[{"type":"DisruptionAllowed",)"
                   R"("status":"True","observedGeneration":3,)"
                   R"("lastTransitionTime":"2024-04-01T00:00:00Z","reason":"SufficientPods",)"
                   R"("message":""}]})"));
  EXPECT_TRUE(r.sync_failed);
  EXPECT_EQ(Str(r.status),
            R"({"observedGeneration":3,"disruptionsAllowed":0,"currentHealthy":3,)"
            R"("desiredHealthy":1,"expectedPods":3,"conditions":[{"type":"DisruptionAllowed",)"
            R"("status":"False","observedGeneration":3,"lastTransitionTime":"2024-05-01T10:00:00Z",)"
            R"("reason":"SyncFailed","message":"found no controllers for pod \"web-0\""}]})");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].reason, "CalculateExpectedPodCountFailed");
  EXPECT_EQ(r.events[0].message,
            "Failed to calculate the number of expected pods: found no controllers for pod "
            "\"web-0\"");
  EXPECT_EQ(r.events[0].object_kind, "PodDisruptionBudget");
}

TEST_F(PdbStatusTest, EmptyScaleLookupFailsPercentButNotIntegerMinAvailable) {
  AddPod({.name = "web-0"});
  auto pct = ComputePdbStatus(*store_.Add(Pdb(std::string("{") + kSel + R"(,"minAvailable":"50%"})")),
                              pods_, ScaleLookup{}, T0());
  EXPECT_TRUE(pct.sync_failed);
  auto integer = ComputePdbStatus(*store_.Add(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})")),
                                  pods_, ScaleLookup{}, T0());
  EXPECT_FALSE(integer.sync_failed);
}

TEST_F(PdbStatusTest, PodsWithoutControllerAreSkippedWithUnmanagedPodsWarning) {
  scales_["rs-1"].replicas = 2;
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  AddPod({.name = "bare", .owner_uid = ""});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"maxUnavailable":1})"));
  EXPECT_FALSE(r.sync_failed);
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 2);
  EXPECT_EQ(r.status["currentHealthy"].GetInt64(), 3);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].reason, "UnmanagedPods");
  EXPECT_EQ(r.events[0].message,
            "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:"
            "map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were "
            "found to be unmanaged. As a result, the status of the PDB cannot be calculated "
            "correctly, which may result in undefined behavior. To account for these pods please "
            "set \".spec.minAvailable\" field of the PDB to an integer value.");
}

TEST_F(PdbStatusTest, InvalidPercentIsSyncFailedWithParserMessage) {
  AddPod({.name = "web-0"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":"half"})"));
  EXPECT_TRUE(r.sync_failed);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);
  EXPECT_STREQ(r.status["conditions"][0]["message"].GetString(),
               "invalid value for IntOrString: invalid type: string is not a percentage");
  EXPECT_FALSE(r.status.HasMember("observedGeneration"));  // failSafe does not bump it
}

TEST_F(PdbStatusTest, TransitionTimeIsKeptWhileStatusIsUnchanged) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  const std::string old_true =
      R"({"conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":2,)"
      R"("lastTransitionTime":"2024-04-01T00:00:00Z","reason":"SufficientPods","message":""},)"
      R"({"type":"Other","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z",)"
      R"("reason":"X","message":"kept"}]})";
  auto same = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})", old_true));
  EXPECT_STREQ(same.status["conditions"][0]["lastTransitionTime"].GetString(),
               "2024-04-01T00:00:00Z");
  EXPECT_EQ(same.status["conditions"][0]["observedGeneration"].GetInt64(), 4);
  EXPECT_STREQ(same.status["conditions"][1]["message"].GetString(), "kept");
  auto flipped = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":2})", old_true));
  EXPECT_STREQ(flipped.status["conditions"][0]["lastTransitionTime"].GetString(),
               "2024-05-01T10:00:00Z");
  EXPECT_STREQ(flipped.status["conditions"][0]["reason"].GetString(), "InsufficientPods");
}

TEST_F(PdbStatusTest, RecoveringFromSyncFailedKeepsFalseTransitionTimeAndClearsMessage) {
  AddPod({.name = "web-0"});
  auto r = Run(Pdb(std::string("{") + kSel + R"(,"minAvailable":1})",
                   R"({"conditions":[{"type":"DisruptionAllowed","status":"False",)"
                   R"("lastTransitionTime":"2024-04-01T00:00:00Z","reason":"SyncFailed",)"
                   R"("message":"boom"}]})"));
  EXPECT_STREQ(r.status["conditions"][0]["reason"].GetString(), "InsufficientPods");
  EXPECT_STREQ(r.status["conditions"][0]["message"].GetString(), "");
  EXPECT_STREQ(r.status["conditions"][0]["lastTransitionTime"].GetString(),
               "2024-04-01T00:00:00Z");
}

TEST_F(PdbStatusTest, EmptySelectorSelectsEveryPodOfTheNamespaceOnly) {
  AddPod({.name = "web-0"});
  AddPod({.name = "db-0", .labels = R"({"app":"db"})"});
  AddPod({.name = "other-ns", .ns = "kube-system"});
  auto r = Run(Pdb(R"({"selector":{},"minAvailable":1})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 2);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 1);
}

TEST_F(PdbStatusTest, MissingSelectorSelectsNothing) {
  AddPod({.name = "web-0"});
  auto r = Run(Pdb(R"({"minAvailable":0})"));
  EXPECT_EQ(r.status["expectedPods"].GetInt64(), 0);
  EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, "Normal");
  EXPECT_EQ(r.events[0].reason, "NoPods");
  EXPECT_EQ(r.events[0].message, "No matching pods found");
}

TEST_F(PdbStatusTest, InvalidSelectorIsSyncFailedWithNoPodsWarning) {
  AddPod({.name = "web-0"});
  auto r = Run(Pdb(R"({"selector":{"matchExpressions":[{"key":"app","operator":"Near"}]},)"
                   R"("minAvailable":1})"));
  EXPECT_TRUE(r.sync_failed);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, "Warning");
  EXPECT_EQ(r.events[0].message,
            "Failed to get pods: \"Near\" is not a valid label selector operator");
}

TEST_F(PdbStatusTest, RecomputingAnUpToDateStatusReportsNoChange) {
  AddPod({.name = "web-0"});
  AddPod({.name = "web-1"});
  const std::string spec = std::string("{") + kSel + R"(,"minAvailable":1})";
  auto first = Run(Pdb(spec));
  auto second = Run(Pdb(spec, Str(first.status)), T0() + 1h);
  EXPECT_FALSE(second.changed);
  EXPECT_EQ(Str(second.status), Str(first.status));
}

TEST_F(PdbStatusTest, MalformedObjectsNeverCrash) {
  pods_.push_back(nullptr);
  pods_.push_back(store_.Add(R"("not a pod")"));
  pods_.push_back(store_.Add(R"({"metadata":{"labels":"x","ownerReferences":7},"status":5})"));
  for (const char* pdb : {R"("text")", "{}", R"({"spec":5,"status":[],"metadata":[]})",
                          R"({"spec":{"selector":{},"minAvailable":{}},"status":{"disruptedPods":3}})"}) {
    auto r = ComputePdbStatus(*store_.Add(pdb), pods_, lookup_, T0());
    EXPECT_TRUE(r.status.IsObject()) << pdb;
    EXPECT_EQ(r.status["disruptionsAllowed"].GetInt64(), 0) << pdb;
  }
}

}  // namespace
}  // namespace berth::kubesim::disruption
