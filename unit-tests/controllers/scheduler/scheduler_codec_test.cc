// scheduler_codec: API JSON → placement views; malformed fields are never fatal, and a quantity
// that does not parse is an error naming the field, never zero.
#include "controllers/scheduler/scheduler_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "controllers/reservation/reservation_codec.h"
#include "reconcile/placement/reservation_affinity.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;
constexpr int64_t kMi = int64_t{1024} * 1024 * 1000;

using json::testing::Parse;

TEST(SchedulerCodecTest, ObjectLabelsAreTheStringLabelsOfACachedObject) {
  auto doc = Parse(R"({"metadata":{"name":"n","resourceVersion":"1","labels":{"zone":"a","odd":7,"tier":""}}})");
  auto obj = shim::CachedObject::FromJson(doc);
  ASSERT_TRUE(obj.has_value());
  EXPECT_EQ(ReadObjectLabels(**obj), (placement::LabelMap{{"tier", ""}, {"zone", "a"}}));
  auto bare = shim::CachedObject::FromJson(Parse(R"({"metadata":{"name":"m","resourceVersion":"1"}})"));
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(ReadObjectLabels(**bare).empty());
}

TEST(SchedulerCodecTest, ANodeViewHasLabelsTaintsCordonAndAllocatableInMilliUnits) {
  auto doc = Parse(R"({"metadata":{"name":"node-1","labels":{"zone":"a"}},
    "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
    "status":{"allocatable":{"cpu":"7800m","memory":"1Gi","pods":"110"}}})");
  placement::NodeView n = ReadNodeView(doc);
  EXPECT_EQ(n.name, "node-1");
  EXPECT_EQ(n.labels.at("zone"), "a");
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0], (placement::Taint{"k", "v", "NoSchedule"}));
  EXPECT_EQ(n.allocatable.at("cpu"), 7800);
  EXPECT_EQ(n.allocatable.at("memory"), 1024 * kMi);
  EXPECT_EQ(n.allocatable.at("pods"), 110000);
}

TEST(SchedulerCodecTest, APodViewReadsRequestsAffinityTolerationsOwnersAndTheAllocatedReservation) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u1","labels":{"app":"x",
      "scheduling.koordinator.sh/reservation-ignored":"true"},
      "annotations":{"scheduling.koordinator.sh/reservation-allocated":"{\"name\":\"r\",\"uid\":\"ruid\"}"},
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"rsu","controller":true}]},
    "spec":{"nodeName":"node-0","nodeSelector":{"disk":"ssd"},
      "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}],
         "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["node-9"]}]}]}}},
      "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],
      "containers":[{"name":"a","resources":{"requests":{"cpu":"200m","memory":"400Mi"}}},
                    {"name":"b","resources":{"requests":{"cpu":"100m"}}}]}})");
  placement::PodSpecView p = ReadPodView(doc);
  EXPECT_EQ(p.namespace_name, "ns");
  EXPECT_EQ(p.uid, "u1");
  EXPECT_EQ(p.node_name, "node-0");
  EXPECT_EQ(p.requests.at("cpu"), 300);
  EXPECT_EQ(p.requests.at("memory"), 400 * kMi);
  EXPECT_EQ(p.reservation_uid, "ruid");
  EXPECT_TRUE(p.reservation_ignored);
  ASSERT_EQ(p.owner_references.size(), 1u);
  EXPECT_TRUE(p.owner_references[0].controller);
  EXPECT_EQ(p.node_selector.at("disk"), "ssd");
  ASSERT_TRUE(p.required_node_affinity.has_value());
  ASSERT_EQ(p.required_node_affinity->size(), 1u);
  const auto& term = (*p.required_node_affinity)[0];
  ASSERT_EQ(term.match_expressions.size(), 1u);
  EXPECT_EQ(term.match_expressions[0].op, placement::NodeSelectorOperator::kIn);
  EXPECT_EQ(term.match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].op, placement::NodeSelectorOperator::kNotIn);
  ASSERT_EQ(p.tolerations.size(), 1u);
  EXPECT_EQ(p.tolerations[0].op, "Exists");
}

TEST(SchedulerCodecTest, ATemplateViewIsTheReservationAsAPodInTheTemplateNamespaceOrDefault) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"ru"},"spec":{"template":{"spec":{"nodeName":"node-1",
      "containers":[{"name":"m","resources":{"requests":{"cpu":"6","memory":"20Gi"}}}]}}}})");
  placement::PodSpecView t = ReadTemplateView(doc);
  EXPECT_EQ(t.name, "r");
  EXPECT_EQ(t.uid, "ru");
  EXPECT_EQ(t.namespace_name, "default");
  EXPECT_EQ(t.node_name, "node-1");
  EXPECT_EQ(t.requests.at("cpu"), 6000);
  EXPECT_EQ(t.requests.at("memory"), 20 * 1024 * kMi);
}

TEST(SchedulerCodecTest, AReservationViewReadsOwnersPolicyAndStatus) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"ru",
      "annotations":{"scheduling.koordinator.sh/reservation-restricted-options":"{\"resources\":[\"cpu\"]}"}},
    "spec":{"allocateOnce":false,"allocatePolicy":"Restricted","unschedulable":true,
      "taints":[{"key":"t","effect":"NoSchedule"}],
      "owners":[{"object":{"name":"pod-demo-0","namespace":"default"}},
                {"controller":{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u","controller":true,"namespace":"ns"}},
                {"labelSelector":{"matchLabels":{"app":"app-demo"}}}]},
    "status":{"phase":"Available","nodeName":"node-1","allocatable":{"cpu":"6","memory":"20Gi"},
      "currentOwners":[{"name":"a","namespace":"default","uid":"x"}]}})");
  placement::ReservationView r = ReadReservationView(doc);
  EXPECT_EQ(r.phase, reconcile::Phase::kAvailable);
  EXPECT_EQ(r.node_name, "node-1");
  EXPECT_EQ(r.allocatable.at("cpu"), 6000);
  EXPECT_FALSE(r.allocate_once);
  EXPECT_EQ(r.allocate_policy, placement::AllocatePolicy::kRestricted);
  EXPECT_EQ(r.restricted_resources, (std::vector<std::string>{"cpu"}));
  EXPECT_TRUE(r.unschedulable);
  ASSERT_EQ(r.taints.size(), 1u);
  EXPECT_TRUE(r.has_current_owners);
  ASSERT_EQ(r.owners.size(), 3u);
  ASSERT_TRUE(r.owners[0].object.has_value());
  EXPECT_EQ(r.owners[0].object->name, "pod-demo-0");
  ASSERT_TRUE(r.owners[1].controller.has_value());
  EXPECT_EQ(r.owners[1].controller->controller, std::optional<bool>(true));
  EXPECT_EQ(r.owners[1].controller->namespace_name, "ns");
  ASSERT_TRUE(r.owners[2].label_selector.has_value());
  EXPECT_TRUE(r.owners[2].label_selector->Matches(placement::LabelMap{{"app", "app-demo"}}));
  EXPECT_FALSE(r.owners[2].label_selector->Matches(placement::LabelMap{{"app", "other"}}));
}

TEST(SchedulerCodecTest, MalformedFieldsAreSkippedAndAnUnparsableSelectorMatchesNothing) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"ru","labels":"oops",
      "annotations":{"scheduling.koordinator.sh/reservation-restricted-options":"{not json"}},
    "spec":{"allocateOnce":"yes","taints":"x","owners":[7,{"labelSelector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]}}],
      "template":{"spec":{"containers":[{"resources":{"requests":{"cpu":"lots","memory":12}}}],"tolerations":[1]}}},
    "status":{"phase":"Weird","allocatable":["cpu"],"currentOwners":{}}})");
  placement::ReservationView r = ReadReservationView(doc);
  EXPECT_EQ(r.phase, reconcile::Phase::kPending);
  EXPECT_TRUE(r.allocate_once);
  EXPECT_TRUE(r.allocatable.empty());
  EXPECT_TRUE(r.taints.empty());
  EXPECT_TRUE(r.restricted_resources.empty());
  EXPECT_FALSE(r.has_current_owners);
  ASSERT_EQ(r.owners.size(), 1u);
  ASSERT_TRUE(r.owners[0].label_selector.has_value());
  EXPECT_FALSE(r.owners[0].label_selector->Matches(placement::LabelMap{{"a", "b"}}));
  placement::PodSpecView t = ReadTemplateView(doc);
  // "lots" is never read as zero: an error naming the field, and unbounded meanwhile.
  EXPECT_EQ(t.requests.at("cpu"), reconcile::kUnboundedAmount);
  EXPECT_EQ(t.request_errors, (std::vector<std::string>{
                                  "spec.template.spec.containers[0].resources.requests.cpu: invalid quantity \"lots\""}));
  EXPECT_EQ(t.requests.at("memory"), 12000);
  EXPECT_TRUE(t.tolerations.empty());
  EXPECT_TRUE(t.labels.empty());
  auto empty = Parse("{}");
  EXPECT_EQ(ReadNodeView(empty).name, "");
  EXPECT_EQ(ReadPodView(empty).uid, "");
  EXPECT_FALSE(PodIsTerminal(empty));
  auto scalar = Parse("42");
  EXPECT_EQ(ReadPodView(scalar).name, "");
  EXPECT_EQ(ReadReservationView(scalar).name, "");
}

TEST(SchedulerCodecTest, APodViewCarriesTheParsedReservationAffinityOrItsParseError) {
  auto with = Parse(R"({"metadata":{"name":"p","annotations":{
      "scheduling.koordinator.sh/reservation-affinity":"{\"reservationSelector\":{\"pool\":\"b\"}}"}}})");
  placement::PodSpecView v = ReadPodView(with);
  ASSERT_NE(v.reservation_affinity, nullptr);
  EXPECT_EQ(v.reservation_affinity->reservation_selector, (placement::LabelMap{{"pool", "b"}}));
  EXPECT_TRUE(v.reservation_affinity_error.empty());
  // Present but empty still makes a reservation required.
  auto empty = Parse(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-affinity":""}}})");
  EXPECT_NE(ReadPodView(empty).reservation_affinity, nullptr);
  auto bad = Parse(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-affinity":"{\"name\":1}"}}})");
  placement::PodSpecView b = ReadPodView(bad);
  EXPECT_EQ(b.reservation_affinity, nullptr);
  EXPECT_EQ(b.reservation_affinity_error,
            "json: cannot unmarshal number into Go struct field ReservationAffinity.name of type string");
  auto not_string = Parse(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-affinity":3}}})");
  EXPECT_EQ(ReadPodView(not_string).reservation_affinity, nullptr);
  EXPECT_TRUE(ReadPodView(not_string).reservation_affinity_error.empty());
  EXPECT_EQ(ReadPodView(Parse(R"({"metadata":{"name":"p"}})")).reservation_affinity, nullptr);
}

TEST(SchedulerCodecTest, AReservationViewReadsItsLabels) {
  auto r = Parse(R"({"metadata":{"name":"r","labels":{"pool":"a","scheduling.koordinator.sh/reservation-order":"2"}}})");
  EXPECT_EQ(ReadReservationView(r).labels,
            (placement::LabelMap{{"pool", "a"}, {"scheduling.koordinator.sh/reservation-order", "2"}}));
}

// Annotation values are strings the API server never parses: nesting deep enough to overflow a
// recursive parser (200,000 '[' fit in the 256 KiB limit) must read as malformed, not crash.
TEST(SchedulerCodecTest, DeeplyNestedAnnotationsReadAsMalformedWithoutOverflowingTheStack) {
  const std::string deep(200000, '[');
  rapidjson::Document pod(rapidjson::kObjectType);
  auto& a = pod.GetAllocator();
  rapidjson::Value& annotations = json::EnsureObject(json::EnsureObject(pod, "metadata", a), "annotations", a);
  json::SetString(annotations, "scheduling.koordinator.sh/reservation-affinity", deep, a);
  json::SetString(annotations, "scheduling.koordinator.sh/reservation-allocated", deep, a);
  placement::PodSpecView v = ReadPodView(pod);
  EXPECT_EQ(v.reservation_affinity, nullptr);
  EXPECT_NE(v.reservation_affinity_error.find("invalid JSON"), std::string::npos);
  EXPECT_TRUE(v.reservation_uid.empty());

  rapidjson::Document reservation(rapidjson::kObjectType);
  auto& ra = reservation.GetAllocator();
  rapidjson::Value& rann = json::EnsureObject(json::EnsureObject(reservation, "metadata", ra), "annotations", ra);
  json::SetString(rann, "scheduling.koordinator.sh/reservation-restricted-options", deep, ra);
  json::SetString(rann, "berth.dev/pre-allocated-pods", deep, ra);
  placement::ReservationView r = ReadReservationView(reservation);
  EXPECT_TRUE(r.restricted_resources.empty());
  EXPECT_TRUE(r.pre_allocated.empty());
}

TEST(SchedulerCodecTest, OnlySucceededAndFailedPodsAreTerminal) {
  EXPECT_TRUE(PodIsTerminal(Parse(R"({"status":{"phase":"Succeeded"}})")));
  EXPECT_TRUE(PodIsTerminal(Parse(R"({"status":{"phase":"Failed"}})")));
  EXPECT_FALSE(PodIsTerminal(Parse(R"({"status":{"phase":"Running"}})")));
  EXPECT_FALSE(PodIsTerminal(Parse(R"({"status":"Failed"})")));
}

TEST(SchedulerCodecTest, OnlyAPodWithSchedulingGatesIsGated) {
  EXPECT_TRUE(PodIsSchedulingGated(Parse(R"({"spec":{"schedulingGates":[{"name":"example.com/gate"}]}})")));
  EXPECT_TRUE(PodIsSchedulingGated(Parse(R"({"spec":{"schedulingGates":[{"name":"a"},{"name":"b"}]}})")));
  // Every gate removed (kubectl's JSON patch leaves [] or drops the field): schedulable again.
  EXPECT_FALSE(PodIsSchedulingGated(Parse(R"({"spec":{"schedulingGates":[]}})")));
  EXPECT_FALSE(PodIsSchedulingGated(Parse(R"({"spec":{"schedulingGates":null}})")));
  EXPECT_FALSE(PodIsSchedulingGated(Parse(R"({"spec":{"nodeName":""}})")));
  EXPECT_FALSE(PodIsSchedulingGated(Parse("{}")));
}

TEST(SchedulerCodecTest, QuantitiesThatDoNotParseAreErrorsNamingTheFieldNeverZero) {
  auto doc = Parse(R"({"metadata":{"name":"p","uid":"u"},"spec":{
      "containers":[{"name":"a","resources":{"requests":{"cpu":"abc","memory":"1Gi"}}},
                    {"name":"b","resources":{"limits":{"memory":"1Gb"},"requests":{"nvidia.com/gpu":true}}}],
      "initContainers":[{"name":"i","resources":{"requests":{"cpu":"-1"}}}],
      "overhead":{"memory":"1 Mi"}}})");
  placement::PodSpecView p = ReadPodView(doc);
  EXPECT_EQ(p.request_errors, (std::vector<std::string>{
                                  "spec.containers[0].resources.requests.cpu: invalid quantity \"abc\"",
                                  "spec.containers[1].resources.limits.memory: invalid quantity \"1Gb\"",
                                  "spec.containers[1].resources.requests.nvidia.com/gpu: invalid quantity \"true\"",
                                  "spec.initContainers[0].resources.requests.cpu: must be greater than or equal to 0, got \"-1\"",
                                  "spec.overhead.memory: invalid quantity \"1 Mi\"",
                              }));
  // Counted as unbounded, not as zero (a pod bound by someone else fills its node).
  EXPECT_EQ(p.requests.at("cpu"), reconcile::kUnboundedAmount);
  EXPECT_EQ(p.requests.at("memory"), reconcile::kUnboundedAmount);
  EXPECT_EQ(p.requests.at("nvidia.com/gpu"), reconcile::kUnboundedAmount);
}

TEST(SchedulerCodecTest, RequestsRememberedPerShapeReadAsTheSpecEveryTime) {
  // The requests are remembered by the text of what they are read from: every read below must
  // give what that spec alone gives, whatever was read before it, and an error is named each time.
  auto requests_of = [](const std::string& spec) {
    return ReadPodView(Parse(R"({"metadata":{"name":"p","uid":"u"},"spec":)" + spec + "}"));
  };
  const std::string app = R"({"name":"a","resources":{"requests":{"cpu":"250m","memory":"64Mi"}}})";
  const std::string sidecar = R"({"name":"s","resources":{"requests":{"cpu":"1"}})";
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(requests_of(R"({"containers":[)" + app + "]}").requests,
              (reconcile::ResourceAmounts{{"cpu", 250}, {"memory", 64 * kMi}}));
    // The same container as a sidecar adds up, as an init container counts only at its peak.
    EXPECT_EQ(requests_of(R"({"containers":[)" + app + R"(],"initContainers":[)" + sidecar + R"(,"restartPolicy":"Always"}]})")
                  .requests.at("cpu"),
              1250);
    EXPECT_EQ(requests_of(R"({"containers":[)" + app + R"(],"initContainers":[)" + sidecar + "}]}").requests.at("cpu"), 1000);
    // The same containers in the other list, a limit more, or an overhead are other shapes.
    EXPECT_EQ(requests_of(R"({"containers":[)" + app + "," + app + "]}").requests.at("cpu"), 500);
    EXPECT_EQ(requests_of(R"({"initContainers":[)" + app + "," + app + "]}").requests.at("cpu"), 250);
    EXPECT_EQ(requests_of(R"({"containers":[)" + app + R"(],"overhead":{"cpu":"50m"}})").requests.at("cpu"), 300);
    EXPECT_EQ(requests_of(R"({"containers":[{"name":"a","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"250m"}}}]})")
                  .requests,
              (reconcile::ResourceAmounts{{"cpu", 250}}));
    auto bad_limit = requests_of(R"({"containers":[{"name":"a","resources":{"limits":{"cpu":"x"},"requests":{"cpu":"250m"}}}]})");
    EXPECT_EQ(bad_limit.request_errors.size(), 1u) << "round " << round;
    auto bad = requests_of(R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"lots"}}}]})");
    EXPECT_EQ(bad.request_errors, (std::vector<std::string>{"spec.containers[0].resources.requests.cpu: invalid quantity \"lots\""}))
        << "round " << round;
    auto not_a_list = requests_of(R"({"containers":{"name":"a"}})");
    ASSERT_EQ(not_a_list.request_errors.size(), 1u) << "round " << round;
  }
  // More shapes than a thread remembers: each still reads as itself.
  for (int i = 1; i <= 2500; ++i) {
    auto view = requests_of(R"({"containers":[{"name":"a","resources":{"requests":{"cpu":")" + std::to_string(i) + R"(m"}}}]})");
    ASSERT_EQ(view.requests.at("cpu"), i) << i;
  }
  EXPECT_EQ(requests_of(R"({"containers":[)" + app + "]}").requests.at("cpu"), 250);
}

TEST(SchedulerCodecTest, QuantitiesBeyondInt64MilliAreUnboundedNotZero) {
  auto doc = Parse(R"({"metadata":{"name":"p"},"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"1e30","memory":"100Ei"}}},
      {"name":"b","resources":{"requests":{"cpu":"1","ephemeral-storage":"9223372036854775807m"}}}]}})");
  placement::PodSpecView p = ReadPodView(doc);
  EXPECT_TRUE(p.request_errors.empty());
  EXPECT_EQ(p.requests.at("cpu"), reconcile::kUnboundedAmount);  // saturated, 1 cpu more stays there
  EXPECT_EQ(p.requests.at("memory"), reconcile::kUnboundedAmount);
  EXPECT_EQ(p.requests.at("ephemeral-storage"), reconcile::kUnboundedAmount);
  auto node = Parse(R"({"metadata":{"name":"n"},"status":{"allocatable":{"cpu":"1e30","memory":"abc","pods":"110"}}})");
  placement::NodeView n = ReadNodeView(node);
  EXPECT_EQ(n.allocatable.at("cpu"), reconcile::kUnboundedAmount);
  EXPECT_EQ(n.allocatable.count("memory"), 0u);  // no capacity: nothing needing memory fits
  EXPECT_EQ(n.allocatable.at("pods"), 110000);
}

TEST(SchedulerCodecTest, ATemplateNamesItsFieldsUnderSpecTemplateSpec) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"ru"},"spec":{"template":{"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"abc"}}}]}}}})");
  placement::PodSpecView t = ReadTemplateView(doc);
  EXPECT_EQ(t.request_errors, (std::vector<std::string>{
                                  "spec.template.spec.containers[0].resources.requests.cpu: invalid quantity \"abc\""}));
}

TEST(SchedulerCodecTest, AReservationViewCarriesTheLifecycleExpiryDeadline) {
  auto ttl_only = Parse(R"({"metadata":{"name":"r","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"ttl":"1h","owners":[{"object":{"name":"p"}}]}})");
  auto deadline = ReadReservationView(ttl_only).expiry_deadline;
  ASSERT_TRUE(deadline.has_value());
  EXPECT_EQ(shim::FormatTimestamp(*deadline), "2026-01-01T01:00:00Z");
  auto both = Parse(R"({"metadata":{"name":"r","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"ttl":"1h","expires":"2026-01-01T00:05:00Z","owners":[{"object":{"name":"p"}}]}})");
  deadline = ReadReservationView(both).expiry_deadline;
  ASSERT_TRUE(deadline.has_value());
  EXPECT_EQ(shim::FormatTimestamp(*deadline), "2026-01-01T00:05:00Z") << "expires wins over ttl";
  auto never = Parse(R"({"metadata":{"name":"r","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"ttl":"0s","owners":[{"object":{"name":"p"}}]}})");
  EXPECT_FALSE(ReadReservationView(never).expiry_deadline.has_value());
  // A malformed ttl is a spec error the lifecycle controller reports; it is no deadline here.
  auto malformed = Parse(R"({"metadata":{"name":"r","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"ttl":"soon","owners":[{"object":{"name":"p"}}]}})");
  EXPECT_FALSE(ReadReservationView(malformed).expiry_deadline.has_value());
}

}  // namespace
TEST(ReadReservationViewTest, ASpecErrorMarksTheViewInvalid) {
  auto bad = Parse(R"({"metadata":{"name":"r","uid":"u"},"spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"-1Gi"}}}]}}},
    "status":{"phase":"Available","nodeName":"n1","allocatable":{"memory":"0"}}})");
  EXPECT_TRUE(ReadReservationView(bad).invalid_spec);
  auto good = Parse(R"({"metadata":{"name":"r","uid":"u"},"spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"1Gi"}}}]}}}})");
  EXPECT_FALSE(ReadReservationView(good).invalid_spec);
}

TEST(ReadTemplateViewTest, ResizeAllocatableReplacesTheTemplateRequests) {
  auto doc = Parse(R"({"metadata":{"name":"r","uid":"u","annotations":{
      "scheduling.koordinator.sh/reservation-resize-allocatable":"{\"resources\":{\"cpu\":\"3\",\"memory\":\"1Gi\"}}"}},
    "spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"4Gi"}}}]}}}})");
  placement::PodSpecView t = ReadTemplateView(doc);
  EXPECT_EQ(t.requests.at("cpu"), 3000);
  EXPECT_EQ(t.requests.at("memory"), (int64_t{1} << 30) * 1000);
  EXPECT_TRUE(ReadReservation(doc).spec_errors.empty());
}

TEST(ReadTemplateViewTest, AMalformedResizeAnnotationIsASpecErrorAndChangesNothing) {
  for (const char* value : {R"(not json)", R"([1])", R"({\"resources\":{\"cpu\":\"lots\"}})",
                            R"({\"resources\":{\"cpu\":\"-1\"}})", R"({\"resources\":7})"}) {
    std::string text = std::string(R"({"metadata":{"name":"r","uid":"u","annotations":{
      "scheduling.koordinator.sh/reservation-resize-allocatable":")") + value + R"("}},
      "spec":{"owners":[{"object":{"name":"p"}}],
      "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}})";
    auto doc = Parse(text);
    EXPECT_EQ(ReadTemplateView(doc).requests.at("cpu"), 1000) << value;
    auto errors = ReadReservation(doc).spec_errors;
    ASSERT_EQ(errors.size(), 1u) << value;
    EXPECT_EQ(errors[0].rfind("metadata.annotations[scheduling.koordinator.sh/reservation-resize-allocatable]", 0), 0u)
        << errors[0];
    EXPECT_TRUE(ReadReservationView(doc).invalid_spec) << value;
  }
}

TEST(ReadPodViewTest, HostPortsOfContainersAndSidecarsWithDefaults) {
  auto doc = Parse(R"({"metadata":{"name":"p","namespace":"d","uid":"u"},"spec":{
    "containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080},{"containerPort":81},
                                       {"containerPort":53,"hostPort":53,"protocol":"UDP","hostIP":"10.0.0.1"},
                                       {"hostPort":"x"},7]}],
    "initContainers":[{"name":"once","ports":[{"hostPort":1000}]},
                      {"name":"side","restartPolicy":"Always","ports":[{"hostPort":2000}]}]}})");
  placement::PodSpecView v = ReadPodView(doc);
  EXPECT_EQ(v.host_ports, (std::vector<placement::HostPort>{{"TCP", "0.0.0.0", 8080},
                                                            {"UDP", "10.0.0.1", 53},
                                                            {"TCP", "0.0.0.0", 2000}}));
}

TEST(SchedulerCodecTest, NodeImagesAndPodContainerImagesForImageLocality) {
  auto node = Parse(R"({"metadata":{"name":"n"},"status":{"images":[
    {"names":["docker.io/library/nginx@sha256:aa","docker.io/library/nginx:1.25"],"sizeBytes":187000000},
    {"names":["pause:3.9"],"sizeBytes":"big"},
    {"names":["busybox:latest"]},
    "oops"]}})");
  placement::NodeView n = ReadNodeView(node);
  const std::map<std::string, int64_t, std::less<>> want = {{"docker.io/library/nginx@sha256:aa", 187000000},
                                                             {"docker.io/library/nginx:1.25", 187000000}};
  EXPECT_EQ(n.image_sizes, want);  // entries without a usable size are left out, never size 0
  auto pod = Parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u"},"spec":{
    "initContainers":[{"name":"i","image":"busybox"}],
    "containers":[{"name":"c","image":"docker.io/library/nginx:1.25"},{"name":"d","image":"registry:5000/app"}]}})");
  EXPECT_EQ(ReadPodView(pod).container_images,
            (std::vector<std::string>{"busybox:latest", "docker.io/library/nginx:1.25", "registry:5000/app:latest"}));
}

}  // namespace berth::controllers
