#include "controllers/scheduler/pod_requeue.h"

#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json_test_parse.h"

namespace berth::controllers {
namespace {

using json::testing::Parse;

// A pending pod as the informer caches it: `spec`, `labels`, `annotations` and `status` are JSON.
shim::ObjectPtr Pod(const std::string& spec, const std::string& labels = "{}", const std::string& status = "{}",
                    const std::string& annotations = "{}", const std::string& rv = "1") {
  auto cached = shim::CachedObject::FromJson(Parse(
      R"({"metadata":{"name":"p","namespace":"default","uid":"u","resourceVersion":")" + rv + R"(","labels":)" +
      labels + R"(,"annotations":)" + annotations + R"(},"spec":)" + spec + R"(,"status":)" + status + "}"));
  EXPECT_TRUE(cached.has_value());
  return cached ? *cached : nullptr;
}

constexpr char kSpec[] = R"({"schedulerName":"koord-scheduler","tolerations":[],"containers":[{"name":"c"}]})";

TEST(PodRequeueTest, ItsOwnStatusWriteOrANewResourceVersionIsNoChange) {
  auto before = Pod(kSpec, R"({"app":"a"})");
  auto after = Pod(kSpec, R"({"app":"a"})",
                   R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}],
                       "nominatedNodeName":"n1"})",
                   "{}", "2");
  EXPECT_FALSE(PodChangedBeyondStatus(*before, *after));
  // Members in another order are the same object.
  auto reordered = Pod(R"({"containers":[{"name":"c"}],"tolerations":[],"schedulerName":"koord-scheduler"})",
                       R"({"app":"a"})");
  EXPECT_FALSE(PodChangedBeyondStatus(*before, *reordered));
}

TEST(PodRequeueTest, AnAddedTolerationARemovedGateALabelOrAnAnnotationIsAChange) {
  auto before = Pod(kSpec, R"({"app":"a"})");
  auto tolerated = Pod(R"({"schedulerName":"koord-scheduler","containers":[{"name":"c"}],
                          "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]})",
                       R"({"app":"a"})");
  EXPECT_TRUE(PodChangedBeyondStatus(*before, *tolerated));
  auto gated = Pod(R"({"schedulerName":"koord-scheduler","tolerations":[],"containers":[{"name":"c"}],
                      "schedulingGates":[{"name":"g"}]})",
                   R"({"app":"a"})");
  EXPECT_TRUE(PodChangedBeyondStatus(*gated, *before));
  EXPECT_TRUE(PodChangedBeyondStatus(*before, *Pod(kSpec, R"({"app":"b"})")));
  EXPECT_TRUE(PodChangedBeyondStatus(*before, *Pod(kSpec, R"({"app":"a","tier":"x"})")));
  EXPECT_TRUE(PodChangedBeyondStatus(
      *before, *Pod(kSpec, R"({"app":"a"})", "{}", R"({"scheduling.koordinator.sh/reservation-affinity":"{}"})")));
}

}  // namespace
}  // namespace berth::controllers
