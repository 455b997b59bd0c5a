#include "controllers/rescheduler/rescheduler_job.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

rapidjson::Document Json(std::string_view text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return std::move(*d);
}

reconcile::rescheduler::Move MoveOf(std::vector<std::string> targets) {
  reconcile::rescheduler::Move m;
  m.strategy = "LowNodeUtilization";
  m.pod_namespace = "default";
  m.pod_name = "web-1";
  m.pod_uid = "u1";
  m.from_node = "node-0";
  m.to_nodes = std::move(targets);
  m.reason = "node node-0 is over its targetThresholds";
  return m;
}

constexpr char kPod[] = R"({"metadata":{"name":"web-1","namespace":"default","uid":"u1","labels":{"app":"web"}},
  "spec":{"nodeName":"node-0","schedulerName":"koord-scheduler","containers":[{"name":"c"}]}})";

TEST(ReschedulingJobTest, AReservationFirstJobWithKoordinatorsAnnotationsAndTheTargetsAsRequiredAffinity) {
  auto job = BuildReschedulingJob(MoveOf({"node-1", "node-2"}), Json(kPod));
  ASSERT_TRUE(job.has_value()) << job.error().message;
  EXPECT_EQ(json::GetString(*job, {"metadata", "generateName"}), "berth-rescheduler-");
  EXPECT_EQ(json::GetString(*job, {"metadata", "annotations", "koordinator.sh/evict-trigger"}), "LowNodeUtilization");
  EXPECT_EQ(json::GetString(*job, {"metadata", "annotations", "koordinator.sh/job-created-by"}), "berth-rescheduler");
  EXPECT_EQ(json::GetString(*job, {"metadata", "annotations", "koordinator.sh/evict-reason"}),
            "node node-0 is over its targetThresholds");
  EXPECT_EQ(json::GetString(*job, {"spec", "mode"}), "ReservationFirst");
  EXPECT_EQ(json::GetString(*job, {"spec", "podRef", "uid"}), "u1");
  const rapidjson::Value* tmpl = json::Find(*job, {"spec", "reservationOptions", "template", "spec", "template"});
  ASSERT_NE(tmpl, nullptr);
  EXPECT_EQ(json::GetString(*tmpl, {"metadata", "labels", "app"}), "web");
  EXPECT_EQ(json::Find(*tmpl, {"spec", "nodeName"}), nullptr);
  EXPECT_EQ(json::GetString(*tmpl, {"spec", "schedulerName"}), "koord-scheduler");
  EXPECT_EQ(json::Serialize(*json::Find(*tmpl, {"spec", "affinity"})),
            R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":)"
            R"([{"key":"metadata.name","operator":"In","values":["node-1","node-2"]}]}]}}})");
}

TEST(ReschedulingJobTest, TheTargetsAreAddedToEveryExistingTermSoThePodsOwnConstraintsStay) {
  auto job = BuildReschedulingJob(MoveOf({"node-1"}), Json(R"({"metadata":{"name":"web-1","namespace":"default"},
    "spec":{"nodeName":"node-0","affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
    {"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},
                          {"matchExpressions":[{"key":"zone","operator":"In","values":["b"]}]}]}}}}})"));
  ASSERT_TRUE(job.has_value()) << job.error().message;
  const rapidjson::Value* terms = json::Find(*job, {"spec", "reservationOptions", "template", "spec", "template", "spec",
                                                    "affinity", "nodeAffinity",
                                                    "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  ASSERT_NE(terms, nullptr);
  ASSERT_EQ(terms->Size(), 2u);
  for (const auto& term : terms->GetArray()) {
    EXPECT_EQ(term["matchExpressions"].Size(), 1u);
    EXPECT_EQ(json::Serialize(term["matchFields"]), R"([{"key":"metadata.name","operator":"In","values":["node-1"]}])");
  }
}

TEST(ReschedulingJobTest, AMalformedPodIsAnErrorNotAJobWithoutItsConstraints) {
  EXPECT_EQ(BuildReschedulingJob(MoveOf({"n"}), Json(R"({"metadata":{"name":"p"}})")).error().message,
            "the pod has no spec");
  EXPECT_EQ(BuildReschedulingJob(MoveOf({"n"}), Json(R"({"spec":{"affinity":"x"}})")).error().message,
            "spec.affinity is not an object");
  EXPECT_EQ(BuildReschedulingJob(MoveOf({"n"}), Json(R"({"spec":{"affinity":{"nodeAffinity":
    {"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[7]}}}}})")).error().message,
            "a nodeSelectorTerm is not an object");
}

}  // namespace
}  // namespace berth::controllers
