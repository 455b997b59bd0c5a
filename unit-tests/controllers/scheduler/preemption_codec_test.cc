// preemption_codec: a pod's priority fields and PDBs as preemption reads them, malformed values
// named rather than read as zero, and the victim's DisruptionTarget patch.
#include "controllers/scheduler/preemption_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

placement::PodPriority Read(const std::string& text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return ReadPodPriority(*doc);
}

TEST(ReadPodPriority, ReadsTheFieldsPreemptionUses) {
  auto p = Read(R"({"metadata":{"deletionTimestamp":"2026-11-26T10:00:00Z"},
                    "spec":{"priority":-5,"preemptionPolicy":"Never"},
                    "status":{"startTime":"2026-11-26T09:00:00Z","nominatedNodeName":"n1",
                              "conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}]}})");
  EXPECT_EQ(p.value, -5);
  EXPECT_TRUE(p.preempt_never);
  EXPECT_EQ(p.nominated_node_name, "n1");
  ASSERT_TRUE(p.start_time.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(p.start_time->time_since_epoch()).count(), 1795683600);
  EXPECT_TRUE(p.terminating_by_preemption);
  EXPECT_TRUE(p.error.empty());
  auto plain = Read(R"({"spec":{},"status":{"conditions":[{"type":"DisruptionTarget","status":"True",
                        "reason":"PreemptionByScheduler"}]}})");
  EXPECT_EQ(plain.value, 0);
  EXPECT_FALSE(plain.preempt_never);
  EXPECT_FALSE(plain.start_time.has_value());
  EXPECT_FALSE(plain.terminating_by_preemption) << "not being deleted";
}

TEST(ReadPodPriority, MalformedConditionsOfADeletingPodAreNotAPreemption) {
  // Conditions are status a kubelet or controller writes; a shape berth cannot read never makes a
  // pod a preemption's victim, nor its priority unreadable.
  const std::string head = R"({"metadata":{"deletionTimestamp":"2026-11-26T10:00:00Z"},"spec":{"priority":3},"status":)";
  for (const char* status : {R"({"conditions":{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}})",
                             R"({"conditions":"DisruptionTarget"})", R"({"conditions":null})", R"({"conditions":[7,null,[]]})",
                             R"({"conditions":[{"type":"DisruptionTarget","status":true,"reason":"PreemptionByScheduler"}]})",
                             R"({"conditions":[{"type":"DisruptionTarget","status":"True"}]})",
                             R"({"conditions":[{"type":"DisruptionTarget","status":"False","reason":"PreemptionByScheduler"}]})",
                             R"({"conditions":[{"type":["DisruptionTarget"],"status":"True","reason":"PreemptionByScheduler"}]})",
                             R"("Running")"}) {
    auto p = Read(head + status + "}");
    EXPECT_FALSE(p.terminating_by_preemption) << status;
    EXPECT_EQ(p.value, 3) << status;
    EXPECT_TRUE(p.error.empty()) << status << ": " << p.error;
  }
  // A well-formed DisruptionTarget among malformed entries still counts.
  auto mixed = Read(head + R"({"conditions":[7,{"type":"Ready"},{"type":"DisruptionTarget","status":"True",)"
                           R"("reason":"PreemptionByScheduler"}]}})");
  EXPECT_TRUE(mixed.terminating_by_preemption);
}

TEST(ReadPodPriority, MalformedValuesAreNamedNotZero) {
  EXPECT_EQ(Read(R"({"spec":{"priority":"high"}})").error, R"(spec.priority: not an int32: "high")");
  EXPECT_EQ(Read(R"({"spec":{"priority":3000000000}})").error, "spec.priority: not an int32: 3000000000");
  EXPECT_EQ(Read(R"({"spec":{"priority":1.5}})").error, "spec.priority: not an int32: 1.5");
  auto start = Read(R"({"status":{"startTime":"yesterday"}})");
  EXPECT_EQ(start.error.rfind("status.startTime: ", 0), 0u) << start.error;
  EXPECT_FALSE(start.start_time.has_value());
  EXPECT_EQ(Read(R"({"status":{"startTime":7}})").error, "status.startTime: not a string: 7");
}

TEST(ReadPdbView, BudgetSelectorAndDisruptedPods) {
  auto doc = json::Parse(R"({"metadata":{"namespace":"ns","name":"db"},
    "spec":{"selector":{"matchLabels":{"app":"db"}}},
    "status":{"disruptionsAllowed":2,"disruptedPods":{"db-0":"2026-11-26T10:00:00Z"}}})");
  auto pdb = ReadPdbView(*doc);
  EXPECT_EQ(pdb.namespace_name, "ns");
  EXPECT_EQ(pdb.name, "db");
  EXPECT_EQ(pdb.disruptions_allowed, 2);
  EXPECT_EQ(pdb.disrupted_pods, std::vector<std::string>{"db-0"});
  EXPECT_TRUE(pdb.selector.Matches(placement::LabelMap{{"app", "db"}}));
  EXPECT_FALSE(pdb.selector.Matches(placement::LabelMap{{"app", "web"}}));
  auto bad = json::Parse(R"({"metadata":{"name":"x"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In"}]}}})");
  EXPECT_TRUE(ReadPdbView(*bad).selector.IsNothing()) << "a selector that does not convert selects nothing";
}

TEST(DisruptionTargetPatch, KubeSchedulersConditionWording) {
  auto patch = json::Parse(DisruptionTargetPatch("koord-scheduler", "2026-11-26T10:00:00Z"));
  ASSERT_TRUE(patch.has_value());
  const auto& c = (*json::Find(*patch, {"status", "conditions"}))[0];
  EXPECT_EQ(json::GetString(c, {"type"}), "DisruptionTarget");
  EXPECT_EQ(json::GetString(c, {"status"}), "True");
  EXPECT_EQ(json::GetString(c, {"reason"}), "PreemptionByScheduler");
  EXPECT_EQ(json::GetString(c, {"message"}), "koord-scheduler: preempting to accommodate a higher priority pod");
}

}  // namespace
}  // namespace berth::controllers
