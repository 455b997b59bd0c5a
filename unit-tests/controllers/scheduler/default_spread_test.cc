// default_spread: the selector kube-scheduler's PodTopologySpread system defaults spread a pod's
// workload by (helper.DefaultSelector): matching Services merged, the controller's selector ANDed.
#include "controllers/scheduler/default_spread.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

using json::testing::Parse;

placement::PodSpecView PodOwnedBy(std::string api_version, std::string kind, bool controller) {
  placement::PodSpecView pod;
  pod.labels = {{"app", "web"}, {"tier", "front"}, {"pod-template-hash", "abc"}};
  pod.owner_references.push_back({std::move(api_version), std::move(kind), "web-abc", "uid-1", controller});
  return pod;
}

// KindOf: the spread owner kind alone (no pointer into the pod is kept).
SpreadOwnerKind KindOf(const placement::PodSpecView& pod) { return SpreadOwnerOf(pod, nullptr); }

TEST(DefaultSpreadTest, TheControllerMustBeAnAppsV1ReplicaSetOrStatefulSetOrAV1ReplicationController) {
  const placement::PodOwnerReference* owner = nullptr;
  // `owner` points into the pod: the pod must outlive it.
  const placement::PodSpecView replica = PodOwnedBy("apps/v1", "ReplicaSet", true);
  EXPECT_EQ(SpreadOwnerOf(replica, &owner), SpreadOwnerKind::kReplicaSet);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->name, "web-abc");
  EXPECT_EQ(KindOf(PodOwnedBy("apps/v1", "StatefulSet", true)), SpreadOwnerKind::kStatefulSet);
  EXPECT_EQ(KindOf(PodOwnedBy("v1", "ReplicationController", true)),
            SpreadOwnerKind::kReplicationController);
  EXPECT_EQ(KindOf(PodOwnedBy("apps/v1", "ReplicaSet", false)), SpreadOwnerKind::kNone);
  EXPECT_EQ(KindOf(PodOwnedBy("extensions/v1beta1", "ReplicaSet", true)), SpreadOwnerKind::kNone);
  EXPECT_EQ(KindOf(PodOwnedBy("batch/v1", "Job", true)), SpreadOwnerKind::kNone);
}

TEST(DefaultSpreadTest, ReplicaSetSelectorIsANDedWithTheMatchingServices) {
  auto web = Parse(R"({"app":"web"})");
  auto other = Parse(R"({"app":"db"})");        // does not select the pod: left out
  auto everything = Parse(R"({})");             // selects every pod, adds nothing
  auto rs = Parse(R"({"matchLabels":{"pod-template-hash":"abc"},
                      "matchExpressions":[{"key":"tier","operator":"In","values":["front","back"]}]})");
  const placement::PodSpecView pod = PodOwnedBy("apps/v1", "ReplicaSet", true);
  auto selector = DefaultSpreadSelector(pod.labels, {&web, &other, &everything}, SpreadOwnerKind::kReplicaSet, &rs);
  ASSERT_NE(selector, nullptr);
  EXPECT_EQ(selector->String(), "app=web,pod-template-hash in (abc),tier in (back,front)");
  EXPECT_TRUE(selector->Matches(pod.labels));
  EXPECT_FALSE(selector->Matches(placement::LabelMap{{"app", "web"}, {"tier", "front"}}));
}

TEST(DefaultSpreadTest, ServicesAloneOrAReplicationControllerMerge) {
  auto svc = Parse(R"({"app":"web"})");
  auto rc = Parse(R"({"tier":"front"})");
  const placement::PodSpecView pod = PodOwnedBy("v1", "ReplicationController", true);
  auto only_services = DefaultSpreadSelector(pod.labels, {&svc}, SpreadOwnerKind::kNone, nullptr);
  ASSERT_NE(only_services, nullptr);
  EXPECT_EQ(only_services->String(), "app=web");
  auto with_rc = DefaultSpreadSelector(pod.labels, {&svc}, SpreadOwnerKind::kReplicationController, &rc);
  ASSERT_NE(with_rc, nullptr);
  EXPECT_EQ(with_rc->String(), "app=web,tier=front");
}

TEST(DefaultSpreadTest, NoWorkloadNoDefaults) {
  auto null_selector = Parse("null");
  auto malformed_rs = Parse(R"({"matchExpressions":[{"key":"a","operator":"Sometimes"}]})");
  const placement::PodSpecView pod = PodOwnedBy("apps/v1", "ReplicaSet", true);
  EXPECT_EQ(DefaultSpreadSelector(pod.labels, {}, SpreadOwnerKind::kNone, nullptr), nullptr);
  EXPECT_EQ(DefaultSpreadSelector(pod.labels, {&null_selector}, SpreadOwnerKind::kNone, nullptr), nullptr);
  // The ReplicaSet is not cached (nullptr) or its selector does not parse: nothing to spread by.
  EXPECT_EQ(DefaultSpreadSelector(pod.labels, {}, SpreadOwnerKind::kReplicaSet, nullptr), nullptr);
  EXPECT_EQ(DefaultSpreadSelector(pod.labels, {}, SpreadOwnerKind::kReplicaSet, &malformed_rs), nullptr);
}

}  // namespace
}  // namespace berth::controllers
