// provisioning_codec: ProvisioningRequest / PodTemplate JSON → views, with malformed fields
// reported by name (never a silent zero); status body and booking Reservation JSON.
#include "controllers/provisioning/provisioning_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

namespace prov = reconcile::provisioning;

using json::testing::Parse;

constexpr char kRequest[] = R"({"metadata":{"name":"job","namespace":"team","uid":"u1","generation":3,
  "resourceVersion":"42","creationTimestamp":"2026-11-26T06:00:00Z"},
  "spec":{"provisioningClassName":"check-capacity.autoscaling.x-k8s.io","parameters":{"noRetry":"true"},
    "podSets":[{"podTemplateRef":{"name":"a"},"count":2},{"podTemplateRef":{"name":"b"},"count":1}]},
  "status":{"provisioningClassDetails":{"k":"v"},"conditions":[{"type":"Accepted","status":"True",
    "reason":"Accepted","message":"m","lastTransitionTime":"2026-11-26T06:00:01Z","observedGeneration":3}]}})";

TEST(ProvisioningCodecTest, ReadsARequestWithItsConditions) {
  auto doc = Parse(kRequest);
  prov::ProvisioningRequestView r = ReadProvisioningRequest(doc);
  EXPECT_EQ(r.namespace_name, "team");
  EXPECT_EQ(r.uid, "u1");
  EXPECT_EQ(r.generation, 3);
  EXPECT_EQ(r.class_name, "check-capacity.autoscaling.x-k8s.io");
  EXPECT_EQ(r.parameters.at("noRetry"), "true");
  ASSERT_EQ(r.pod_sets.size(), 2u);
  EXPECT_EQ(r.pod_sets[0].template_name, "a");
  EXPECT_EQ(r.pod_sets[0].count, 2);
  EXPECT_TRUE(r.spec_errors.empty());
  ASSERT_EQ(r.conditions.size(), 1u);
  EXPECT_EQ(r.conditions[0].observed_generation, 3);
  EXPECT_TRUE(r.conditions[0].last_transition_time.has_value());
  EXPECT_FALSE(r.deleting);
}

TEST(ProvisioningCodecTest, ReadsThePersistedScaleUpAnnotation) {
  auto doc = Parse(R"({"metadata":{"name":"r","namespace":"ns","uid":"u",)"
                   R"("annotations":{"berth.dev/scale-up":"{\"group\":\"pool\"}"}},)"
                   R"("spec":{"provisioningClassName":"c","podSets":[{"podTemplateRef":{"name":"t"},"count":1}]}})");
  EXPECT_EQ(ReadProvisioningRequest(doc).scale_up_state, R"({"group":"pool"})");
  EXPECT_EQ(ReadProvisioningRequest(Parse(kRequest)).scale_up_state, "");
}

TEST(ProvisioningCodecTest, MalformedSpecFieldsBecomeSpecErrorsNamingTheField) {
  auto doc = Parse(R"({"metadata":{"name":"x","namespace":"n","uid":"u"},
    "spec":{"parameters":{"ValidUntilSeconds":5},"podSets":[{"podTemplateRef":{},"count":"many"},
      {"podTemplateRef":{"name":"t"},"count":0}]}})");
  prov::ProvisioningRequestView r = ReadProvisioningRequest(doc);
  EXPECT_EQ(r.spec_errors, (std::vector<std::string>{
                               "spec.parameters.ValidUntilSeconds: must be a string",
                               "spec.podSets[0].podTemplateRef.name: must be set",
                               "spec.podSets[0].count: must be a positive integer, got \"many\"",
                               "spec.podSets[1].count: must be a positive integer, got 0"}));
  auto no_sets = Parse(R"({"metadata":{"name":"x"},"spec":{"podSets":[]}})");
  EXPECT_EQ(ReadProvisioningRequest(no_sets).spec_errors,
            (std::vector<std::string>{"spec.podSets: must list at least one podSet"}));
  auto no_spec = Parse(R"({"metadata":{"name":"x"},"spec":"oops"})");
  EXPECT_EQ(ReadProvisioningRequest(no_spec).spec_errors, (std::vector<std::string>{"spec: must be an object"}));
}

TEST(ProvisioningCodecTest, ReadsAPodTemplatesSchedulingFieldsAndContainerResources) {
  auto doc = Parse(R"({"metadata":{"name":"t","namespace":"team"},"template":{"metadata":{"labels":{"a":"b"}},
    "spec":{"nodeSelector":{"pool":"gpu"},"tolerations":[{"key":"gpu","operator":"Exists"}],
      "containers":[{"name":"c","resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"1","memory":"1Gi"}}}],
      "initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}]}}})");
  prov::PodTemplateView t = ReadPodTemplate(doc);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.pod.labels.at("a"), "b");
  EXPECT_EQ(t.pod.node_selector.at("pool"), "gpu");
  ASSERT_EQ(t.pod.tolerations.size(), 1u);
  ASSERT_EQ(t.containers.size(), 1u);
  EXPECT_EQ(t.containers[0].requests.at("cpu"), 500);
  EXPECT_EQ(t.containers[0].limits.at("memory"), (int64_t{1} << 30) * 1000);
  ASSERT_EQ(t.init_containers.size(), 1u);
  EXPECT_TRUE(t.init_containers[0].sidecar);
}

TEST(ProvisioningCodecTest, ABadQuantityInATemplateIsAnErrorNotZero) {
  auto doc = Parse(R"({"metadata":{"name":"t","namespace":"team"},"template":{"spec":{
    "containers":[{"name":"c","resources":{"requests":{"cpu":"lots","memory":true}}}]}}})");
  prov::PodTemplateView t = ReadPodTemplate(doc);
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.errors[0].rfind("template.spec.containers[0].resources.requests.cpu: quantity \"lots\" does not parse", 0), 0u)
      << t.errors[0];
  EXPECT_EQ(t.errors[1], "template.spec.containers[0].resources.requests.memory: must be a quantity");
  EXPECT_TRUE(t.containers[0].requests.empty());
  auto missing = Parse(R"({"metadata":{"name":"t"}})");
  EXPECT_EQ(ReadPodTemplate(missing).errors, (std::vector<std::string>{"template: must be an object"}));
}

TEST(ProvisioningCodecTest, StatusBodyReplacesConditionsAndKeepsTheRestOfStatus) {
  auto doc = Parse(kRequest);
  prov::Condition c{"Provisioned", "True", "CapacityIsFound", "Capacity is found in the cluster",
                    prov::Time{} + std::chrono::seconds(1795500000), 3};
  rapidjson::Document body = StatusBody(doc, {c});
  EXPECT_EQ(json::GetString(body, {"apiVersion"}), "autoscaling.x-k8s.io/v1");
  EXPECT_EQ(json::GetString(body, {"metadata", "resourceVersion"}), "42");
  EXPECT_EQ(json::GetString(body, {"status", "provisioningClassDetails", "k"}), "v");
  const auto& conds = *json::Find(body, {"status", "conditions"});
  ASSERT_EQ(conds.Size(), 1u);
  EXPECT_EQ(json::GetString(conds[0], {"reason"}), "CapacityIsFound");
  EXPECT_EQ(conds[0]["observedGeneration"].GetInt64(), 3);
  EXPECT_EQ(json::GetString(conds[0], {"lastTransitionTime"}), "2026-11-24T06:00:00Z");
}

TEST(ProvisioningCodecTest, StatusBodyCarriesTheVersionItIsWrittenThrough) {
  auto doc = Parse(kRequest);
  rapidjson::Document body = StatusBody(doc, {}, kProvisioningVersionV1beta1);
  EXPECT_EQ(json::GetString(body, {"apiVersion"}), "autoscaling.x-k8s.io/v1beta1");
}

TEST(ProvisioningCodecTest, BookingReservationIsPinnedLabelledAndReadBackAsItsSlice) {
  prov::ProvisioningRequestView r;
  r.namespace_name = "team";
  r.name = "job";
  r.uid = "u1";
  prov::BookedSlice slice;
  slice.node_name = "node-1";
  slice.reservation_name = BookingReservationName("u1", "node-1");
  slice.resources = {{"cpu", 3000}, {"memory", int64_t{100} * 1024 * 1024 * 1000}};
  EXPECT_EQ(slice.reservation_name, BookingReservationName("u1", "node-1")) << "deterministic";
  EXPECT_NE(slice.reservation_name, BookingReservationName("u1", "node-2"));
  EXPECT_EQ(slice.reservation_name.rfind("provreq-u1-", 0), 0u);
  rapidjson::Document res = BookingReservation(r, slice, "koord-scheduler", 660);
  EXPECT_EQ(json::GetString(res, {"spec", "template", "spec", "nodeName"}), "node-1");
  EXPECT_EQ(json::GetString(res, {"spec", "template", "spec", "schedulerName"}), "koord-scheduler");
  EXPECT_EQ(json::GetString(res, {"metadata", "labels", kBookingUidLabel}), "u1");
  EXPECT_EQ(json::GetString(res, {"metadata", "labels", kBookingNameLabel}), "job");
  EXPECT_EQ(json::GetString(res, {"metadata", "annotations", kBookingForAnnotation}), "team/job");
  EXPECT_EQ(json::GetString(res, {"spec", "ttl"}), "660s");
  EXPECT_FALSE((*json::Find(res, {"spec", "allocateOnce"})).GetBool());
  // The scheduler's view: only team/job's consumers may allocate it.
  reconcile::placement::ReservationView view = ReadReservationView(res);
  EXPECT_EQ(view.provisioning_request, "team/job");
  json::SetString(json::EnsureObject(res, "metadata", res.GetAllocator()), "uid", "res-uid", res.GetAllocator());
  prov::BookedSlice back = ReadBookedSlice(res);
  EXPECT_EQ(back.node_name, "node-1");
  EXPECT_EQ(back.reservation_uid, "res-uid");
  EXPECT_EQ(back.resources, slice.resources);
}

TEST(ProvisioningCodecTest, ALongRequestNameIsNotALabelButStaysInTheAnnotation) {
  prov::ProvisioningRequestView r;
  r.namespace_name = "team";
  r.name = std::string(80, 'a');
  r.uid = "u1";
  prov::BookedSlice slice{"provreq-u1-x", "", "node-1", {{"cpu", 1000}}, 1};
  rapidjson::Document res = BookingReservation(r, slice, "koord-scheduler", 60);
  EXPECT_EQ(json::Find(res, {"metadata", "labels", kBookingNameLabel}), nullptr);
  EXPECT_EQ(json::GetString(res, {"metadata", "annotations", kBookingForAnnotation}), "team/" + r.name);
}

TEST(ProvisioningCodecTest, SchedulerReadsBothConsumeAnnotationsWithThePodsNamespace) {
  auto current = Parse(R"({"metadata":{"name":"p","namespace":"team",
    "annotations":{"autoscaling.x-k8s.io/consume-provisioning-request":"job"}},"spec":{}})");
  EXPECT_EQ(ReadPodView(current).consumes_provisioning_request, "team/job");
  auto deprecated = Parse(R"({"metadata":{"name":"p","namespace":"team",
    "annotations":{"cluster-autoscaler.kubernetes.io/consume-provisioning-request":"old"}},"spec":{}})");
  EXPECT_EQ(ReadPodView(deprecated).consumes_provisioning_request, "team/old");
  auto none = Parse(R"({"metadata":{"name":"p","namespace":"team"},"spec":{}})");
  EXPECT_EQ(ReadPodView(none).consumes_provisioning_request, "");
}

}  // namespace
}  // namespace berth::controllers

namespace berth::controllers {
namespace {

TEST(ProvisioningCodecTest, ThePodTemplateTransformKeepsTheTemplateAndStripsTheRest) {
  auto doc = json::Parse(R"({"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"t","namespace":"team",
    "managedFields":[{"manager":"kubectl"}]},"template":{"spec":{"containers":[{"name":"c"}]}}})");
  ASSERT_TRUE(doc.has_value());
  ASSERT_TRUE(PodTemplateTransform()(*doc, doc->GetAllocator()).has_value());
  EXPECT_EQ(json::Find(*doc, {"metadata", "managedFields"}), nullptr);
  EXPECT_EQ(json::GetString(*doc, {"metadata", "name"}), "t");
  ASSERT_NE(json::Find(*doc, {"template", "spec", "containers"}), nullptr);
  EXPECT_EQ(ReadPodTemplate(*doc).containers.size(), 1u);
  auto bare = json::Parse(R"({"metadata":{"name":"t"}})");
  ASSERT_TRUE(PodTemplateTransform()(*bare, bare->GetAllocator()).has_value());
  EXPECT_EQ(json::Find(*bare, {"template"}), nullptr);
}

}  // namespace
}  // namespace berth::controllers
