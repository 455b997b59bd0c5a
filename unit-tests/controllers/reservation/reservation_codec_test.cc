#include "controllers/reservation/reservation_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

rapidjson::Document Doc(std::string_view text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return std::move(*d);
}

TEST(ReadReservationTest, ReadsSpecAndStatusFromTheUserGuideShape) {
  auto doc = Doc(R"({"metadata":{"name":"reservation-demo","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"ttl":"1h","allocateOnce":false,"owners":[{"object":{"name":"pod-demo-0","namespace":"default"}}],
      "template":{"spec":{"containers":[{"name":"stress","resources":{"requests":{"cpu":"500m","memory":"800Mi"}}}]}}},
    "status":{"phase":"Available","nodeName":"node-0","allocatable":{"cpu":"500m","memory":"800Mi"},
      "conditions":[{"type":"Ready","status":"True","reason":"Available","lastTransitionTime":"2026-01-01T00:00:01Z"}]}})");
  auto r = ReadReservation(doc);
  EXPECT_EQ(r.name, "reservation-demo");
  EXPECT_EQ(r.ttl, std::chrono::nanoseconds(std::chrono::hours(1)));
  EXPECT_FALSE(r.allocate_once);
  EXPECT_TRUE(r.spec_errors.empty());
  EXPECT_EQ(r.status.phase, reconcile::Phase::kAvailable);
  EXPECT_EQ(r.status.allocatable.at("cpu"), 500);
  EXPECT_EQ(r.status.allocatable.at("memory"), 800LL * 1024 * 1024 * 1000);
  ASSERT_EQ(r.status.conditions.size(), 1u);
  EXPECT_TRUE(r.status.conditions[0].last_transition_time.has_value());
}

TEST(ReadReservationTest, TheCachedObjectReaderAgreesWithTheJsonReaderOnEveryShape) {
  const char* reservations[] = {
      R"({"metadata":{"name":"reservation-demo","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"b"}},
        "spec":{"ttl":"1h","allocateOnce":false,"owners":[{"object":{"name":"pod-demo-0","namespace":"default"}}],
          "template":{"spec":{"containers":[{"name":"stress","resources":{"requests":{"cpu":"500m","memory":"800Mi"}}}]}}},
        "status":{"phase":"Available","nodeName":"node-0","allocatable":{"cpu":"500m","memory":"800Mi"},"allocated":{"cpu":"200m"},
          "currentOwners":[{"name":"p","namespace":"default","uid":"pu"}],
          "conditions":[{"type":"Ready","status":"True","reason":"Available","message":"m","lastTransitionTime":"2026-01-01T00:00:01Z",
                         "lastProbeTime":"2026-01-01T00:00:02Z"}]}})",
      R"({"metadata":{"name":"gone","uid":"u2","creationTimestamp":"2026-01-01T00:00:00Z","deletionTimestamp":"2026-01-02T00:00:00Z"},
        "spec":{"expires":"2026-01-03T00:00:00Z","owners":[{"labelSelector":{"matchLabels":{"app":"x"}}}]}})",
      R"({"metadata":{"name":"bad","creationTimestamp":"not a time","deletionTimestamp":5},
        "spec":{"ttl":"-1h","expires":7,"owners":[{}],"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}},
        "status":{"phase":"Bogus","allocatable":[],"currentOwners":{},"conditions":[1,{"type":7}]}})",
      R"({"metadata":{"name":"nospec"}})",
  };
  for (const char* text : reservations) {
    auto doc = Doc(text);
    auto cached = shim::CachedObject::FromJson(doc);
    ASSERT_TRUE(cached.has_value()) << text;
    reconcile::ReservationSnapshot a = ReadReservation(doc);
    reconcile::ReservationSnapshot b = ReadReservation(**cached);
    EXPECT_EQ(b.name, a.name) << text;
    EXPECT_EQ(b.uid, a.uid) << text;
    EXPECT_EQ(b.creation_time, a.creation_time) << text;
    EXPECT_EQ(b.deleting, a.deleting) << text;
    EXPECT_EQ(b.ttl, a.ttl) << text;
    EXPECT_EQ(b.ttl_text, a.ttl_text) << text;
    EXPECT_EQ(b.expires, a.expires) << text;
    EXPECT_EQ(b.allocate_once, a.allocate_once) << text;
    EXPECT_EQ(b.spec_errors, a.spec_errors) << text;
    EXPECT_EQ(b.status, a.status) << text;
  }
  // The first shape's values, so agreement is not agreement on empty snapshots.
  auto demo = shim::CachedObject::FromJson(Doc(reservations[0]));
  ASSERT_TRUE(demo.has_value());
  auto r = ReadReservation(**demo);
  EXPECT_EQ(r.uid, "u1");
  EXPECT_EQ(r.status.node_name, "node-0");
  ASSERT_EQ(r.status.current_owners.size(), 1u);
  EXPECT_EQ(r.status.allocated.at("cpu"), 200);
  auto gone = shim::CachedObject::FromJson(Doc(reservations[1]));
  ASSERT_TRUE(gone.has_value());
  EXPECT_TRUE(ReadReservation(**gone).deleting);
  EXPECT_TRUE(ReadReservation(**gone).expires.has_value());
}

TEST(ReadReservationTest, BadSpecsBecomeSpecErrorsNotFailures) {
  auto doc = Doc(R"({"metadata":{"name":"r"},"spec":{"ttl":"-5m","expires":"tomorrow","owners":[{}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}}})");
  auto r = ReadReservation(doc);
  ASSERT_EQ(r.spec_errors.size(), 4u);
  EXPECT_NE(r.spec_errors[0].find("spec.ttl"), std::string::npos);
  EXPECT_NE(r.spec_errors[1].find("spec.expires"), std::string::npos);
  EXPECT_NE(r.spec_errors[2].find("spec.owners[0]"), std::string::npos);
  EXPECT_NE(r.spec_errors[3].find("requests.cpu"), std::string::npos);
  EXPECT_FALSE(r.ttl.has_value());
  EXPECT_FALSE(r.expires.has_value());
}

// An unreadable creation time would count the TTL from the epoch and expire the reservation at once:
// it is named as an error, and no expiry deadline is derived from it.
TEST(ReadReservationTest, AnUnparsableCreationTimestampIsASpecErrorAndGivesNoDeadline) {
  auto doc = Doc(R"({"metadata":{"name":"r","creationTimestamp":"last tuesday"},"spec":{"ttl":"10m","owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c"}]}}}})");
  auto r = ReadReservation(doc);
  ASSERT_EQ(r.spec_errors.size(), 1u);
  EXPECT_EQ(r.spec_errors[0], "metadata.creationTimestamp: Invalid value: \"last tuesday\": not an RFC 3339 time");
  EXPECT_FALSE(ReadExpiryDeadline(doc).has_value());
  auto fine = Doc(R"({"metadata":{"name":"r","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"ttl":"10m"}})");
  EXPECT_TRUE(ReadExpiryDeadline(fine).has_value());
}

TEST(ReadReservationTest, TemplateQuantitiesThatDoNotParseOrAreNegativeAreSpecErrors) {
  auto doc = Doc(R"({"metadata":{"name":"r"},"spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"abc","memory":"-1Gi"},
                                                              "limits":{"cpu":"1e"}}}],
                        "initContainers":[{"name":"i","resources":{"requests":{"cpu":"1e30"}}}]}}}})");
  auto r = ReadReservation(doc);
  EXPECT_EQ(r.spec_errors, (std::vector<std::string>{
                               "spec.template.spec.containers[0].resources.limits.cpu: invalid quantity \"1e\"",
                               "spec.template.spec.containers[0].resources.requests.cpu: invalid quantity \"abc\"",
                               "spec.template.spec.containers[0].resources.requests.memory: must be greater than or "
                               "equal to 0, got \"-1Gi\"",
                           }));
  // "1e30" is a valid quantity: not a spec error; the scheduler finds no node for it.
  auto ok = ReadReservation(Doc(R"({"metadata":{"name":"r"},"spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1e30"}}}]}}}})"));
  EXPECT_TRUE(ok.spec_errors.empty());
}

TEST(ReadConsumerPodTest, AnUnparsableRequestCountsAsUnboundedNotZero) {
  auto pod = Doc(R"({"metadata":{"name":"p","namespace":"d","uid":"u"},
    "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"abc","memory":"1Gi"}}}]}})");
  reconcile::ConsumerPod c = ReadConsumerPod(pod);
  EXPECT_EQ(c.requests.at("cpu"), reconcile::kUnboundedAmount);
  EXPECT_EQ(c.requests.at("memory"), (int64_t{1} << 30) * 1000);
  EXPECT_EQ(c.node_name, "");
  EXPECT_EQ(ReadConsumerPod(Doc(R"({"metadata":{"name":"p"},"spec":{"nodeName":"node-3"}})")).node_name, "node-3");
}

TEST(ReadReservationTest, MissingSpecIsReportedAndNothingCrashes) {
  auto r = ReadReservation(Doc(R"({"metadata":{"name":"r"},"spec":"nope","status":7})"));
  EXPECT_EQ(r.spec_errors.size(), 1u);
  EXPECT_EQ(r.status.phase, reconcile::Phase::kPending);
}

TEST(AllocatedReservationTest, ParsesTheAnnotationAndRejectsMalformedValues) {
  auto pod = Doc(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-allocated":"{\"name\":\"r\",\"uid\":\"u\"}"}}})");
  auto ref = AllocatedReservation(pod);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->uid, "u");
  EXPECT_FALSE(AllocatedReservation(Doc(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-allocated":"{not json"}}})")));
  EXPECT_FALSE(AllocatedReservation(Doc(R"({"metadata":{"annotations":{"scheduling.koordinator.sh/reservation-allocated":"{\"name\":\"r\"}"}}})")));
  EXPECT_FALSE(AllocatedReservation(Doc(R"({"metadata":{}})")));
}

TEST(AllocatedReservationTest, ADeeplyNestedAnnotationIsRejectedWithoutOverflowingTheStack) {
  // Any user may put this on a pod; a recursive parse of 200,000 '[' overflows the stack.
  rapidjson::Document pod(rapidjson::kObjectType);
  auto& a = pod.GetAllocator();
  json::SetString(json::EnsureObject(json::EnsureObject(pod, "metadata", a), "annotations", a),
                  "scheduling.koordinator.sh/reservation-allocated", std::string(200000, '['), a);
  EXPECT_FALSE(AllocatedReservation(pod));
}

TEST(ReadConsumerPodTest, EffectiveRequestsAndTerminalPhase) {
  auto pod = Doc(R"({"metadata":{"name":"p","namespace":"default","uid":"pu"},"status":{"phase":"Succeeded"},
    "spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"200m","memory":"400Mi"}}},{"name":"b","resources":{"requests":{"cpu":1}}}]}})");
  auto c = ReadConsumerPod(pod);
  EXPECT_TRUE(c.terminal);
  EXPECT_EQ(c.requests.at("cpu"), 1200);
}

TEST(ReadConsumerPodTest, TheCachedObjectReaderAgreesWithTheJsonReaderOnEveryShape) {
  const char* pods[] = {
      R"({"metadata":{"name":"p","namespace":"default","uid":"pu"},"status":{"phase":"Succeeded"},
        "spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"200m","memory":"400Mi"}}},{"name":"b","resources":{"requests":{"cpu":1}}}]}})",
      R"({"metadata":{"name":"q","namespace":"ns","uid":"qu","deletionTimestamp":"2026-11-26T00:00:00Z"},"status":{"phase":"Running"},
        "spec":{"nodeName":"n1","containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}],
        "initContainers":[{"name":"i","resources":{"requests":{"cpu":"3","memory":"1Gi"}}},{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}],
        "overhead":{"cpu":"100m"}}})",
      R"({"metadata":{"name":"nospec","namespace":"ns","uid":"u3"},"status":{"phase":"Failed"}})",
      R"({"metadata":{"name":"odd","namespace":"ns","uid":"u4","deletionTimestamp":7},"status":{"phase":3},
        "spec":{"containers":{"not":"an array"},"overhead":"x","initContainers":[1,{"resources":[]}]}})",
      R"({"metadata":{"name":"bad-q","namespace":"ns"},"spec":{"containers":[{"resources":{"requests":{"cpu":"lots","memory":"1Gi"}}}]}})",
  };
  for (const char* text : pods) {
    auto doc = Doc(text);
    auto cached = shim::CachedObject::FromJson(doc);
    ASSERT_TRUE(cached.has_value()) << text;
    reconcile::ConsumerPod from_json = ReadConsumerPod(doc);
    reconcile::ConsumerPod from_cache = ReadConsumerPod(**cached);
    EXPECT_EQ(from_cache.namespace_name, from_json.namespace_name) << text;
    EXPECT_EQ(from_cache.name, from_json.name) << text;
    EXPECT_EQ(from_cache.uid, from_json.uid) << text;
    EXPECT_EQ(from_cache.terminal, from_json.terminal) << text;
    EXPECT_EQ(from_cache.deleting, from_json.deleting) << text;
    EXPECT_EQ(from_cache.requests, from_json.requests) << text;
    EXPECT_EQ(from_cache.node_name, from_json.node_name) << text;
  }
  // And the values themselves, for the init-container/sidecar/overhead pod.
  auto q = shim::CachedObject::FromJson(Doc(pods[1]));
  ASSERT_TRUE(q.has_value());
  reconcile::ConsumerPod c = ReadConsumerPod(**q);
  EXPECT_EQ(c.node_name, "n1");
  EXPECT_TRUE(c.deleting);
  EXPECT_FALSE(c.terminal);
  EXPECT_EQ(c.requests.at("cpu"), 3100);  // init peak 3 beats app 1 + sidecar 0.5; + overhead 0.1
}

TEST(StatusUpdateBodyTest, CarriesTheStatusAndTheCachedPreconditionsOnly) {
  auto cached = shim::CachedObject::FromJson(Doc(R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1","kind":"Reservation",
    "metadata":{"name":"r1","uid":"ru","resourceVersion":"42","labels":{"a":"b"}},
    "spec":{"ttl":"1h","owners":[{"object":{"name":"p"}}]},"status":{"phase":"Pending"}})"));
  ASSERT_TRUE(cached.has_value());
  reconcile::ReservationStatus status;
  status.phase = reconcile::Phase::kAvailable;
  status.node_name = "n1";
  status.allocatable = {{"cpu", 2000}};
  status.current_owners.push_back({"default", "p", "pu"});
  auto body = StatusUpdateBody(**cached, status);
  EXPECT_EQ(json::Serialize(body),
            R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1","kind":"Reservation",)"
            R"("metadata":{"name":"r1","uid":"ru","resourceVersion":"42"},)"
            R"("status":{"phase":"Available","currentOwners":[{"name":"p","namespace":"default","uid":"pu"}],)"
            R"("nodeName":"n1","allocatable":{"cpu":"2"}}})");
}

TEST(StatusJsonTest, WritesCanonicalQuantitiesAndOwners) {
  reconcile::ReservationStatus s;
  s.phase = reconcile::Phase::kAvailable;
  s.node_name = "node-0";
  s.allocatable = {{"cpu", 500}, {"memory", 800LL * 1024 * 1024 * 1000}};
  s.allocated = {{"cpu", 200}, {"memory", 400LL * 1024 * 1024 * 1000}};
  s.current_owners = {{"default", "pod-demo-0", "u"}};
  rapidjson::Document doc;
  auto v = StatusJson(s, doc.GetAllocator());
  EXPECT_EQ(json::Serialize(v),
            R"({"phase":"Available","currentOwners":[{"name":"pod-demo-0","namespace":"default","uid":"u"}],)"
            R"("nodeName":"node-0","allocatable":{"cpu":"500m","memory":"800Mi"},"allocated":{"cpu":"200m","memory":"400Mi"}})");
}

}  // namespace
// Issue 13: every template field koordinator's decoder would reject is a spec error naming it.
TEST(ReadReservationTest, MalformedTemplatesAndTtlsAreSpecErrorsNamingTheField) {
  auto errors = [](std::string_view json) { return ReadReservation(Doc(std::string(json))).spec_errors; };
  EXPECT_EQ(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}],"template":{"spec":{"containers":"oops"}}}})"),
            (std::vector<std::string>{"spec.template.spec.containers: must be a list of containers, got \"oops\""}));
  EXPECT_EQ(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}],"template":{"spec":{"containers":[7]}}}})"),
            (std::vector<std::string>{"spec.template.spec.containers[0]: must be a container object, got 7"}));
  EXPECT_EQ(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}],
    "template":{"spec":{"initContainers":[{"name":"c","resources":{"requests":"lots"}},{"name":"d","resources":3}]}}}})"),
            (std::vector<std::string>{
                "spec.template.spec.initContainers[1].resources: must be an object, got 3",
                "spec.template.spec.initContainers[0].resources.requests: must be an object of quantities"}));
  EXPECT_EQ(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}],"template":{"spec":"x"}}})"),
            (std::vector<std::string>{"spec.template.spec: must be a pod spec object, got \"x\""}));
  EXPECT_EQ(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}]}})"),
            (std::vector<std::string>{"spec.template: Required value"}));
  auto ttl = errors(R"({"spec":{"ttl":"1d","owners":[{"object":{"name":"p"}}],"template":{"spec":{}}}})");
  ASSERT_EQ(ttl.size(), 1u);
  EXPECT_EQ(ttl[0], "spec.ttl: time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_TRUE(errors(R"({"spec":{"owners":[{"object":{"name":"p"}}],"template":{"spec":{"containers":[]}}}})").empty());
}

TEST(ReadReservationTest, TheCachedObjectOverloadSeesAMalformedResizeAnnotation) {
  auto doc = Doc(R"({"metadata":{"name":"r","uid":"u","annotations":{
      "scheduling.koordinator.sh/reservation-resize-allocatable":"{\"resources\":{\"cpu\":\"lots\"}}"}},
    "spec":{"owners":[{"object":{"name":"p"}}],"template":{"spec":{}}}})");
  auto cached = shim::CachedObject::FromJson(doc);
  ASSERT_TRUE(cached.has_value());
  auto r = ReadReservation(**cached);
  ASSERT_EQ(r.spec_errors.size(), 1u);
  EXPECT_EQ(r.spec_errors[0],
            "metadata.annotations[scheduling.koordinator.sh/reservation-resize-allocatable].resources.cpu: "
            "invalid quantity \"lots\"");
}

}  // namespace berth::controllers
