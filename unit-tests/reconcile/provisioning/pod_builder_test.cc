// Tests for reconcile/provisioning/pod_builder.h: upstream's PodsForProvisioningRequest.
#include "reconcile/provisioning/pod_builder.h"

#include <gtest/gtest.h>

namespace berth::reconcile::provisioning {
namespace {

PodTemplateView Template(std::string name, ResourceAmounts requests, ResourceAmounts limits = {}) {
  PodTemplateView t;
  t.namespace_name = "team";
  t.name = std::move(name);
  t.pod.labels = {{"app", "train"}};
  t.pod.node_selector = {{"pool", "gpu"}};
  t.pod.tolerations = {{"gpu", "Exists", "", "NoSchedule"}};
  t.containers.push_back({std::move(requests), std::move(limits)});
  return t;
}

ProvisioningRequestView Request(std::vector<PodSetRef> sets) {
  ProvisioningRequestView r;
  r.namespace_name = "team";
  r.name = "job";
  r.uid = "u-1";
  r.pod_sets = std::move(sets);
  return r;
}

TemplateLookup Lookup(const std::vector<PodTemplateView>& templates) {
  return [&templates](std::string_view name) -> const PodTemplateView* {
    for (const PodTemplateView& t : templates) {
      if (t.name == name) return &t;
    }
    return nullptr;
  };
}

TEST(PodBuilder, OnePodPerSetWithCountAndTemplateSchedulingFields) {
  std::vector<PodTemplateView> templates = {Template("small", {{"cpu", 500}}), Template("big", {{"cpu", 4000}})};
  BuiltPods built = BuildPods(Request({{"small", 3}, {"big", 2}}), Lookup(templates));
  ASSERT_TRUE(built.missing.empty());
  ASSERT_EQ(built.error, "");
  ASSERT_EQ(built.pod_sets.size(), 2u);
  EXPECT_EQ(built.pod_sets[0].count, 3);
  EXPECT_EQ(built.pod_sets[1].count, 2);
  EXPECT_EQ(built.pod_sets[1].template_name, "big");
  const placement::PodSpecView& pod = built.pod_sets[1].pod;
  EXPECT_EQ(pod.namespace_name, "team");
  EXPECT_EQ(pod.requests, (ResourceAmounts{{"cpu", 4000}}));
  EXPECT_EQ(pod.node_selector, (placement::LabelMap{{"pool", "gpu"}}));
  ASSERT_EQ(pod.tolerations.size(), 1u);
  EXPECT_EQ(pod.consumes_provisioning_request, "team/job");
  ASSERT_EQ(pod.owner_references.size(), 1u);
  EXPECT_EQ(pod.owner_references[0].kind, "ProvisioningRequest");
  EXPECT_EQ(pod.owner_references[0].uid, "u-1");
  EXPECT_TRUE(pod.owner_references[0].controller);
}

TEST(PodBuilder, PodForIndexNamesCopiesLikeUpstream) {
  std::vector<PodTemplateView> templates = {Template("small", {{"cpu", 500}})};
  ProvisioningRequestView r = Request({{"small", 1}, {"small", 4}});
  BuiltPods built = BuildPods(r, Lookup(templates));
  ASSERT_EQ(built.pod_sets.size(), 2u);
  placement::PodSpecView pod = PodForIndex(r, built.pod_sets[1], 3);
  EXPECT_EQ(pod.name, "job-1-3");
  EXPECT_EQ(pod.uid, "team/job-1-3");
}

TEST(PodBuilder, LimitsAreCopiedIntoMissingRequests) {
  // Upstream's "PodTemplate doesn't specify container resources requests" case: requests
  // default to limits (SetDefaults_Pod); a request that is present is kept.
  std::vector<PodTemplateView> templates = {
      Template("t", {{"cpu", 250}}, {{"cpu", 1000}, {"memory", 2048}, {"nvidia.com/gpu", 1000}})};
  BuiltPods built = BuildPods(Request({{"t", 1}}), Lookup(templates));
  ASSERT_EQ(built.pod_sets.size(), 1u);
  EXPECT_EQ(built.pod_sets[0].pod.requests,
            (ResourceAmounts{{"cpu", 250}, {"memory", 2048}, {"nvidia.com/gpu", 1000}}));
}

TEST(PodBuilder, InitContainersAndOverheadFollowEffectiveRequests) {
  PodTemplateView t = Template("t", {{"cpu", 100}});
  t.init_containers.push_back({{}, {{"cpu", 700}}, false});  // limit only: becomes its request
  t.overhead = {{"cpu", 10}};
  std::vector<PodTemplateView> templates = {t};
  BuiltPods built = BuildPods(Request({{"t", 1}}), Lookup(templates));
  ASSERT_EQ(built.pod_sets.size(), 1u);
  EXPECT_EQ(built.pod_sets[0].pod.requests, (ResourceAmounts{{"cpu", 710}}));
}

TEST(PodBuilder, MissingTemplatesGiveUpstreamsMessage) {
  std::vector<PodTemplateView> templates = {Template("present", {{"cpu", 1}})};
  BuiltPods built = BuildPods(Request({{"present", 1}, {"a", 1}, {"b", 2}}), Lookup(templates));
  EXPECT_TRUE(built.pod_sets.empty());
  EXPECT_EQ(built.missing, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(MissingTemplatesMessage(built),
            "missing pod templates, 3 pod templates were referenced, 2 templates were missing: a,b");
}

// Upstream's errMissingPodTemplates lists the missing template of every podSet, so a template two
// podSets share counts twice (provreqwrapper).
TEST(PodBuilder, AMissingTemplateSharedByTwoPodSetsCountsTwiceAsUpstream) {
  std::vector<PodTemplateView> templates;
  BuiltPods built = BuildPods(Request({{"m", 1}, {"m", 2}}), Lookup(templates));
  EXPECT_TRUE(built.pod_sets.empty());
  EXPECT_EQ(MissingTemplatesMessage(built),
            "missing pod templates, 2 pod templates were referenced, 2 templates were missing: m,m");
}

TEST(PodBuilder, TemplateWithoutContainersIsAnErrorNamingTheField) {
  PodTemplateView empty = Template("empty", {});
  empty.containers.clear();
  std::vector<PodTemplateView> templates = {Template("ok", {{"cpu", 1}}), empty};
  BuiltPods built = BuildPods(Request({{"ok", 1}, {"empty", 1}}), Lookup(templates));
  EXPECT_TRUE(built.pod_sets.empty());
  EXPECT_EQ(built.error,
            "podSets[1] (podTemplate \"empty\"): template.spec.containers is empty: a pod needs at least one "
            "container");
}

TEST(PodBuilder, TemplateCodecErrorsAreReportedWithThePodSet) {
  PodTemplateView bad = Template("bad", {{"cpu", 1}});
  bad.errors = {"template.spec.containers[0].resources.requests.cpu: quantity \"lots\" does not parse"};
  std::vector<PodTemplateView> templates = {bad};
  BuiltPods built = BuildPods(Request({{"bad", 1}}), Lookup(templates));
  EXPECT_TRUE(built.pod_sets.empty());
  EXPECT_EQ(built.error,
            "podSets[0] (podTemplate \"bad\"): template.spec.containers[0].resources.requests.cpu: quantity "
            "\"lots\" does not parse");
}

TEST(PodBuilder, TemplateReservationAnnotationIsNotCarriedOver) {
  PodTemplateView t = Template("t", {{"cpu", 1}});
  t.pod.reservation_uid = "some-reservation";
  std::vector<PodTemplateView> templates = {t};
  BuiltPods built = BuildPods(Request({{"t", 1}}), Lookup(templates));
  ASSERT_EQ(built.pod_sets.size(), 1u);
  EXPECT_EQ(built.pod_sets[0].pod.reservation_uid, "");
}

}  // namespace
}  // namespace berth::reconcile::provisioning
