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
}  // namespace berth::controllers
