#include "controllers/migration/migration_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

rapidjson::Document Json(std::string_view text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return std::move(*d);
}

TEST(MigrationCodecTest, ReadsKoordinatorsJob) {
  auto job = ReadJob(Json(R"({"metadata":{"name":"j","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z",
    "labels":{"koordinator.sh/evict-policy":"Delete"},"annotations":{"koordinator.sh/evict-reason":"hot node"}},
    "spec":{"paused":false,"ttl":"5m","mode":"ReservationFirst","podRef":{"namespace":"default","name":"p","uid":"pu"},
      "reservationOptions":{"reservationRef":{"name":"r"}}},
    "status":{"phase":"Running","status":"Eviction","reason":"Evicting","message":"m","nodeName":"n2",
      "podRef":{"namespace":"default","name":"p2","uid":"u2"},
      "conditions":[{"type":"Eviction","status":"False","reason":"Evicting","message":"m",
        "lastTransitionTime":"2026-01-01T00:00:05Z"}]}})"));
  EXPECT_TRUE(job.spec_errors.empty());
  EXPECT_EQ(job.ttl, std::chrono::minutes(5));
  EXPECT_EQ(job.mode_text, "ReservationFirst");
  EXPECT_EQ(job.job_evict_policy, mig::EvictionPolicy::kDelete);
  EXPECT_EQ(job.pod_uid, "pu");
  EXPECT_EQ(job.reservation_ref_name, "r");
  EXPECT_EQ(job.evict_reason, "hot node");
  EXPECT_EQ(job.status.phase, mig::JobPhase::kRunning);
  EXPECT_EQ(job.status.new_pod, (reconcile::OwnerRef{"default", "p2", "u2"}));
  ASSERT_EQ(job.status.conditions.size(), 1u);
  EXPECT_EQ(job.status.conditions[0].reason, "Evicting");
}

TEST(MigrationCodecTest, ValuesBerthCannotReadAreSpecErrorsNotDefaults) {
  auto job = ReadJob(Json(R"({"metadata":{"name":"j","labels":{"koordinator.sh/evict-policy":"SoftEviction"}},
    "spec":{"ttl":"5 minutes","podRef":{"namespace":"default","name":"p"}},"status":{"phase":"Teleporting"}})"));
  ASSERT_EQ(job.spec_errors.size(), 3u);
  EXPECT_EQ(job.spec_errors[0].rfind("spec.ttl: ", 0), 0u) << job.spec_errors[0];
  EXPECT_EQ(job.spec_errors[1],
            "label koordinator.sh/evict-policy: unsupported value \"SoftEviction\" (berth supports Eviction and Delete)");
  EXPECT_EQ(job.spec_errors[2], "status.phase: unknown value \"Teleporting\"");
  EXPECT_FALSE(job.ttl.has_value());
  EXPECT_EQ(ReadJob(Json(R"({"spec":{"ttl":300}})")).spec_errors,
            (std::vector<std::string>{"spec.ttl: must be a duration string"}));
  EXPECT_EQ(ReadJob(Json(R"({"spec":{"ttl":"-1s"}})")).spec_errors,
            (std::vector<std::string>{"spec.ttl: must not be negative, got -1s"}));
  EXPECT_EQ(ReadJob(Json(R"({"metadata":{"creationTimestamp":"soon"}})")).spec_errors,
            (std::vector<std::string>{"metadata.creationTimestamp: Invalid value: \"soon\": not an RFC 3339 time"}));
}

// koordinator's "Evicting Pods Gracefully": spec.deleteOptions.gracePeriodSeconds goes with the eviction.
TEST(MigrationCodecTest, ReadsTheDeleteOptionsGracePeriodAndRefusesWhatIsNotOne) {
  EXPECT_EQ(ReadJob(Json(R"({"spec":{"deleteOptions":{"gracePeriodSeconds":60}}})")).grace_period_seconds, 60);
  EXPECT_EQ(ReadJob(Json(R"({"spec":{"deleteOptions":{"gracePeriodSeconds":0}}})")).grace_period_seconds, 0);
  EXPECT_FALSE(ReadJob(Json(R"({"spec":{"deleteOptions":{}}})")).grace_period_seconds.has_value());
  EXPECT_FALSE(ReadJob(Json(R"({"spec":{"deleteOptions":{"gracePeriodSeconds":null}}})")).grace_period_seconds);
  for (const char* bad : {R"("60")", "-1", "1.5", "true"}) {
    auto job = ReadJob(Json(std::string(R"({"spec":{"deleteOptions":{"gracePeriodSeconds":)") + bad + "}}}"));
    EXPECT_FALSE(job.grace_period_seconds.has_value()) << bad;
    EXPECT_EQ(job.spec_errors, (std::vector<std::string>{std::string("spec.deleteOptions.gracePeriodSeconds: ") + bad +
                                                         " is not a non-negative whole number of seconds"}))
        << bad;
  }
}

TEST(MigrationCodecTest, ReadsThePodFactsTheRulesNeed) {
  auto pod = ReadPodFacts(Json(R"({"metadata":{"name":"p","namespace":"ns","uid":"u",
    "annotations":{"kubernetes.io/config.source":"file"},
    "ownerReferences":[{"kind":"DaemonSet","name":"ds","uid":"d","controller":true}]},
    "spec":{"nodeName":"n","schedulerName":"koord-scheduler","priority":2000001000,
      "volumes":[{"name":"v","emptyDir":{}}]},
    "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"));
  EXPECT_TRUE(pod.static_pod);
  EXPECT_FALSE(pod.mirror);
  EXPECT_TRUE(pod.has_controller);
  EXPECT_EQ(pod.controller_kind, "DaemonSet");
  EXPECT_EQ(pod.priority, 2000001000);
  EXPECT_TRUE(pod.local_storage);
  EXPECT_TRUE(pod.ready);
  auto api = ReadPodFacts(Json(R"({"metadata":{"annotations":{"kubernetes.io/config.source":"api"}}})"));
  EXPECT_FALSE(api.static_pod);
  EXPECT_FALSE(api.has_controller);
}

TEST(MigrationCodecTest, ReadsTheReservationAndWhoOwnsIt) {
  auto r = ReadReservationFacts(Json(R"({"metadata":{"name":"r","uid":"ru",
    "ownerReferences":[{"kind":"PodMigrationJob","uid":"job","controller":true}]},
    "spec":{"owners":[{"controller":{"kind":"ReplicaSet","name":"web","uid":"rs-uid","controller":true}},
      {"object":{"name":"p","uid":"pod-uid"}}]},
    "status":{"phase":"Pending","conditions":[{"type":"Scheduled","status":"False","reason":"Unschedulable",
      "message":"0/3 nodes are available"}]}})"), "job");
  EXPECT_TRUE(r.created_by_job);
  EXPECT_TRUE(r.scheduled_false);
  EXPECT_EQ(r.unschedulable_message, "0/3 nodes are available");
  EXPECT_FALSE(r.expired);
  EXPECT_EQ(r.owner_controller_uids, (std::vector<std::string>{"rs-uid"}));  // the workload; object owners are not
  auto other = ReadReservationFacts(Json(R"({"metadata":{"name":"r"},"status":{"phase":"Failed",
    "conditions":[{"type":"Ready","status":"False","reason":"NodeDeleted"}],
    "currentOwners":[{"namespace":"a","name":"b","uid":"c"}]}})"), "job");
  EXPECT_FALSE(other.created_by_job);
  EXPECT_TRUE(other.expired);
  EXPECT_EQ(other.failed_reason, "NodeDeleted");
  EXPECT_EQ(other.current_owners, (std::vector<reconcile::OwnerRef>{{"a", "b", "c"}}));
  EXPECT_TRUE(other.owner_controller_uids.empty());
  EXPECT_FALSE(r.marked_for_eviction);
}

TEST(MigrationCodecTest, TheEvictingReservationOrderMarksAnEvictionSent) {
  auto marked = ReadReservationFacts(
      Json(R"({"metadata":{"name":"r","labels":{"scheduling.koordinator.sh/reservation-order":"1"}}})"), "job");
  EXPECT_TRUE(marked.marked_for_eviction);
  // Its creation time as the order (koordinator's), or an empty value: waiting, not evicting.
  auto waiting = ReadReservationFacts(
      Json(R"({"metadata":{"name":"r","labels":{"scheduling.koordinator.sh/reservation-order":"1767225600"}}})"),
      "job");
  EXPECT_FALSE(waiting.marked_for_eviction);
  auto malformed = ReadReservationFacts(
      Json(R"({"metadata":{"name":"r","labels":{"scheduling.koordinator.sh/reservation-order":1}}})"), "job");
  EXPECT_FALSE(malformed.marked_for_eviction);
}

TEST(MigrationCodecTest, PodPriorityIsReadOnceForFactsAndHeldJobOrder) {
  EXPECT_EQ(PodPriorityValue(nullptr), std::nullopt);
  for (const char* text : {"null", "\"100\"", "1.5", "{}"}) {
    auto value = Json(text);
    EXPECT_EQ(PodPriorityValue(&value), std::nullopt) << text;
  }
  auto value = Json("-5");
  EXPECT_EQ(PodPriorityValue(&value), -5);
  EXPECT_EQ(ReadPodFacts(Json(R"({"spec":{"priority":"high"}})")).priority, std::nullopt);
  EXPECT_EQ(ReadPodFacts(Json(R"({"spec":{"priority":7}})")).priority, 7);
}

TEST(MigrationCodecTest, PdbSelectionFollowsTheApiServer) {
  auto pod = Json(R"({"metadata":{"labels":{"app":"web"}}})");
  EXPECT_TRUE(PdbSelects(Json(R"({"spec":{"selector":{"matchLabels":{"app":"web"}}}})"), pod));
  EXPECT_FALSE(PdbSelects(Json(R"({"spec":{"selector":{"matchLabels":{"app":"db"}}}})"), pod));
  EXPECT_TRUE(PdbSelects(Json(R"({"spec":{"selector":{}}})"), pod));  // policy/v1: {} selects every pod
  EXPECT_FALSE(PdbSelects(Json(R"({"spec":{}})"), pod));
  EXPECT_FALSE(PdbSelects(Json(R"({"spec":{"selector":{"matchExpressions":[{"key":"app","operator":"Bogus"}]}}})"),
                          pod));
  auto facts = ReadPdbFacts(Json(R"({"metadata":{"name":"p"},"status":{"disruptionsAllowed":0,"currentHealthy":3,
    "desiredHealthy":3}})"));
  EXPECT_EQ(facts.name, "p");
  EXPECT_EQ(facts.current_healthy, 3);
  EXPECT_EQ(facts.desired_healthy, 3);
}

TEST(MigrationCodecTest, ABudgetUpdateUnblocksUnlessItStillAllowsNothingUnderTheSameSpec) {
  auto pdb = [](std::string_view spec, std::string_view status) {
    auto obj = shim::CachedObject::FromJson(Json(std::string(R"({"metadata":{"name":"b","namespace":"d"},"spec":)") +
                                                 std::string(spec) + R"(,"status":)" + std::string(status) + "}"));
    EXPECT_TRUE(obj.has_value());
    return *obj;
  };
  const std::string spec = R"({"maxUnavailable":1,"selector":{"matchLabels":{"app":"a"}}})";
  auto held = pdb(spec, R"({"disruptionsAllowed":0,"currentHealthy":9})");
  EXPECT_FALSE(BudgetUpdateMayUnblock(*held, *pdb(spec, R"({"disruptionsAllowed":0,"currentHealthy":8})")));
  EXPECT_TRUE(BudgetUpdateMayUnblock(*held, *pdb(spec, R"({"disruptionsAllowed":1,"currentHealthy":10})")));
  // A new selector or limit may leave the pod outside any budget: the API server decides.
  EXPECT_TRUE(BudgetUpdateMayUnblock(
      *held, *pdb(R"({"maxUnavailable":2,"selector":{"matchLabels":{"app":"a"}}})", R"({"disruptionsAllowed":0})")));
  EXPECT_TRUE(BudgetUpdateMayUnblock(
      *held, *pdb(R"({"maxUnavailable":1,"selector":{"matchLabels":{"app":"b"}}})", R"({"disruptionsAllowed":0})")));
  // Not yet computed or not a number: not read as zero.
  EXPECT_TRUE(BudgetUpdateMayUnblock(*held, *pdb(spec, R"({})")));
  EXPECT_TRUE(BudgetUpdateMayUnblock(*held, *pdb(spec, R"({"disruptionsAllowed":"0"})")));
}

}  // namespace
}  // namespace berth::controllers
