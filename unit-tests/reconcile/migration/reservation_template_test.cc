#include "reconcile/migration/reservation_template.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::reconcile::migration {
namespace {

const Time kT0 = std::chrono::sys_days{std::chrono::year{2026} / 1 / 1};

rapidjson::Document Json(std::string_view text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return std::move(*d);
}

ReservationRequest Request() { return {"job-1", "uid-job-1", "uid-job-1", "5m0s", kT0}; }

constexpr char kPod[] = R"({"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"},
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d","uid":"rs-uid","controller":true}]},
  "spec":{"nodeName":"node-0","schedulerName":"koord-scheduler","nodeSelector":{"zone":"a"},
  "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
    {"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]},{"matchFields":[]}]}}},
  "containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";

TEST(MigrationReservationTest, CopiesThePodsConstraintsExcludesItsNodeAndIsOwnedByTheJob) {
  auto pod = Json(kPod);
  auto r = BuildMigrationReservation(Request(), pod, nullptr);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(json::GetString(*r, {"metadata", "name"}), "uid-job-1");
  EXPECT_EQ(json::GetString(*r, {"metadata", "labels", "app.kubernetes.io/created-by"}), "berth-migration");
  EXPECT_EQ(json::GetString(*r, {"metadata", "labels", "scheduling.koordinator.sh/reservation-order"}),
            "1767225600000");
  const auto& owner_ref = (*r)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(json::GetString(owner_ref, {"kind"}), "PodMigrationJob");
  EXPECT_EQ(json::GetString(owner_ref, {"uid"}), "uid-job-1");
  EXPECT_TRUE(owner_ref["controller"].GetBool());
  EXPECT_TRUE((*r)["spec"]["allocateOnce"].GetBool());
  EXPECT_EQ(json::GetString(*r, {"spec", "ttl"}), "5m0s");
  const auto& owner = (*r)["spec"]["owners"][0]["controller"];
  EXPECT_EQ(json::GetString(owner, {"kind"}), "ReplicaSet");
  EXPECT_EQ(json::GetString(owner, {"uid"}), "rs-uid");
  EXPECT_EQ(json::GetString(owner, {"namespace"}), "default");
  const auto& tmpl = (*r)["spec"]["template"];
  EXPECT_EQ(json::GetString(tmpl, {"metadata", "namespace"}), "default");
  EXPECT_EQ(json::GetString(tmpl, {"metadata", "labels", "app"}), "web");
  EXPECT_EQ(json::Find(tmpl, {"spec", "nodeName"}), nullptr);
  EXPECT_EQ(json::GetString(tmpl, {"spec", "schedulerName"}), "koord-scheduler");
  EXPECT_EQ(json::GetString(tmpl, {"spec", "nodeSelector", "zone"}), "a");
  const auto& terms = tmpl["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                          ["nodeSelectorTerms"];
  ASSERT_EQ(terms.Size(), 2u);
  for (const auto& term : terms.GetArray()) {  // ORed terms: each must exclude the node
    const auto& f = term["matchFields"][term["matchFields"].Size() - 1];
    EXPECT_EQ(json::Serialize(f), R"({"key":"metadata.name","operator":"NotIn","values":["node-0"]})");
  }
  EXPECT_EQ(terms[0]["matchExpressions"].Size(), 1u);  // the pod's own term kept
}

TEST(MigrationReservationTest, APodWithoutAffinityGetsOneExcludingTerm) {
  auto pod = Json(R"({"metadata":{"name":"p","namespace":"ns","ownerReferences":[{"apiVersion":"apps/v1",
    "kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]},"spec":{"nodeName":"n1","containers":[]}})");
  auto r = BuildMigrationReservation(Request(), pod, nullptr);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(json::Serialize((*r)["spec"]["template"]["spec"]["affinity"]),
            R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
            R"({"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}]}}})");
}

TEST(MigrationReservationTest, AUserTemplateSuppliesSpecAndOwnersButAllocateOnceAndExclusionAreForced) {
  auto pod = Json(kPod);
  auto tmpl = Json(R"({"metadata":{"labels":{"team":"a"}},"spec":{"allocateOnce":false,"ttl":"1h",
    "owners":[{"labelSelector":{"matchLabels":{"app":"web"}}}],
    "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]}}}})");
  auto r = BuildMigrationReservation(Request(), pod, &tmpl);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(json::GetString(*r, {"metadata", "labels", "team"}), "a");
  EXPECT_TRUE((*r)["spec"]["allocateOnce"].GetBool());
  EXPECT_EQ(json::GetString(*r, {"spec", "ttl"}), "1h");
  EXPECT_EQ(json::Serialize((*r)["spec"]["owners"]), R"([{"labelSelector":{"matchLabels":{"app":"web"}}}])");
  EXPECT_NE(json::Serialize((*r)["spec"]["template"]).find(R"("values":["node-0"])"), std::string::npos);
}

TEST(MigrationReservationTest, MalformedInputIsAnErrorNotAGuess) {
  auto bare = Json(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"n"}})");
  auto r = BuildMigrationReservation(Request(), bare, nullptr);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "pod ns/p has no controller to consume the reservation");
  auto no_spec = Json(R"({"metadata":{"name":"p","namespace":"ns"}})");
  auto spec = BuildMigrationReservation(Request(), no_spec, nullptr);
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().message, "the pod has no spec");
  auto bad_affinity = Json(R"({"metadata":{"name":"p","namespace":"ns","ownerReferences":[{"apiVersion":"v1",
    "kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]},"spec":{"nodeName":"n","affinity":{"nodeAffinity":7}}})");
  auto affinity = BuildMigrationReservation(Request(), bad_affinity, nullptr);
  ASSERT_FALSE(affinity.has_value());
  EXPECT_EQ(affinity.error().message, "spec.affinity.nodeAffinity is not an object");
  auto bad_terms = Json(R"({"metadata":{"name":"p","namespace":"ns","ownerReferences":[{"apiVersion":"v1",
    "kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]},"spec":{"nodeName":"n","affinity":{"nodeAffinity":
    {"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":{"a":1}}}}}})");
  auto terms = BuildMigrationReservation(Request(), bad_terms, nullptr);
  ASSERT_FALSE(terms.has_value());
  EXPECT_EQ(terms.error().message, "nodeSelectorTerms is not a list");
}

}  // namespace
}  // namespace berth::reconcile::migration

namespace berth::reconcile::migration {
namespace {

TEST(MigrationReservationTest, AReservationAheadOfAdmissionHasNoReservationOrder) {
  auto pod = Json(kPod);
  ReservationRequest request = Request();
  request.ahead = true;
  auto user = Json(R"({"metadata":{"labels":{"scheduling.koordinator.sh/reservation-order":"5","team":"a"}}})");
  for (const rapidjson::Value* tmpl : {static_cast<const rapidjson::Value*>(nullptr),
                                       static_cast<const rapidjson::Value*>(&user)}) {
    auto r = BuildMigrationReservation(request, pod, tmpl);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_FALSE(json::Find(*r, {"metadata", "labels", "scheduling.koordinator.sh/reservation-order"}))
        << "ranked after the reservations of migrations under way until its admission labels it";
    EXPECT_EQ(json::GetString(*r, {"metadata", "labels", "app.kubernetes.io/created-by"}), "berth-migration");
    EXPECT_TRUE((*r)["spec"]["allocateOnce"].GetBool());
  }
}

}  // namespace
}  // namespace berth::reconcile::migration
