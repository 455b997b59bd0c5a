#include "e2e/kubesim/disruption/eviction.h"

#include <gtest/gtest.h>

#include "e2e/kubesim/disruption/test_objects.h"

namespace berth::kubesim::disruption {
namespace {

using namespace std::chrono_literals;
using testing::PodSpec;
using testing::Str;
using testing::T0;

constexpr const char* kBody =
    R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-0","namespace":"default"}})";

std::string PdbText(const std::string& status, const std::string& spec_extra = "",
                    int generation = 1, const std::string& name = "web-pdb") {
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"default","generation":)" + std::to_string(generation) +
         R"(},"spec":{"selector":{"matchLabels":{"app":"web"}},"minAvailable":2)" + spec_extra +
         R"(},"status":)" + status + "}";
}

const char* kHealthyStatus =
    R"({"observedGeneration":1,"disruptionsAllowed":2,"currentHealthy":4,"desiredHealthy":2,)"
    R"("expectedPods":4,"conditions":[{"type":"DisruptionAllowed","status":"True",)"
    R"("observedGeneration":1,"lastTransitionTime":"2024-04-01T00:00:00Z",)"
    R"("reason":"SufficientPods","message":""}]})";

class EvictionTest : public ::testing::Test {
 protected:
  EvictionDecision Decide(const PodSpec& pod, std::vector<std::string> pdbs,
                          const std::string& body = kBody, std::string_view url = "web-0",
                          bool dry_run = false) {
    std::vector<const rapidjson::Value*> pdb_ptrs;
    for (const auto& p : pdbs) pdb_ptrs.push_back(store_.Add(p));
    return DecideEviction(*store_.AddPod(pod), pdb_ptrs, *store_.Add(body), url, dry_run, T0());
  }
  // Both take the decision by value so `const auto& x = AsAllow(Decide(...))` stays valid.
  static EvictionReject AsReject(EvictionDecision&& d) {
    if (!std::holds_alternative<EvictionReject>(d)) {
      ADD_FAILURE() << "expected a reject";
      return EvictionReject{};
    }
    return std::move(std::get<EvictionReject>(d));
  }
  static EvictionAllow AsAllow(EvictionDecision&& d) {
    if (!std::holds_alternative<EvictionAllow>(d)) {
      ADD_FAILURE() << "expected an allow";
      return EvictionAllow{};
    }
    return std::move(std::get<EvictionAllow>(d));
  }
  testing::Store store_;
};

TEST_F(EvictionTest, NameMismatchIsBadRequest) {
  auto d = Decide({.name = "web-0"}, {}, kBody, "web-9");
  const auto& r = AsReject(std::move(d));
  EXPECT_EQ(r.http_code, 400);
  EXPECT_FALSE(r.retry_after_seconds.has_value());
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"name in URL does not match name in Eviction object",)"
            R"("reason":"BadRequest","code":400})");
}

TEST_F(EvictionTest, NonObjectBodyIsBadRequest) {
  EXPECT_EQ(AsReject(Decide({.name = "web-0"}, {}, "[]")).http_code, 400);
  EXPECT_EQ(AsReject(Decide({.name = "web-0"}, {}, R"({"metadata":7})")).http_code, 400);
}

TEST_F(EvictionTest, ConflictingDryRunListsAreRejected) {
  auto d = Decide({.name = "web-0"}, {},
                  R"({"metadata":{"name":"web-0"},"deleteOptions":{"dryRun":["Other"]}})", "web-0",
                  /*dry_run=*/true);
  const auto& r = AsReject(std::move(d));
  EXPECT_EQ(r.http_code, 500);
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Non-matching dry-run options in request and content: [All] and [Other]",)"
            R"("code":500})");
}

TEST_F(EvictionTest, SuccessBodyIsStatusSuccessWithCode201) {
  const auto& a = AsAllow(Decide({.name = "web-0"}, {}));
  EXPECT_EQ(a.http_code, 201);
  EXPECT_EQ(Str(a.success_status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})");
}

TEST_F(EvictionTest, PodWithoutPdbIsDeletedWithTheCallersOptions) {
  const auto& a = AsAllow(Decide(
      {.name = "web-0"}, {},
      R"({"metadata":{"name":"web-0"},"deleteOptions":{"gracePeriodSeconds":5}})"));
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_EQ(a.pdb_name, "");
  EXPECT_TRUE(a.add_disruption_target_condition);
  EXPECT_FALSE(a.dry_run);
  EXPECT_FALSE(a.conflict_means_too_many_requests);
  EXPECT_EQ(Str(a.delete_options), R"({"gracePeriodSeconds":5})");
}

TEST_F(EvictionTest, UrlDryRunIsPropagatedAndSkipsAllWrites) {
  const auto& a = AsAllow(Decide({.name = "web-0"}, {PdbText(kHealthyStatus)}, kBody, "web-0",
                                 /*dry_run=*/true));
  EXPECT_TRUE(a.dry_run);
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_FALSE(a.add_disruption_target_condition);
  EXPECT_EQ(Str(a.delete_options), R"({"dryRun":["All"]})");
  // The check still ran: the would-be status drops one disruption but records no pod.
  EXPECT_EQ(a.updated_pdb_status["disruptionsAllowed"].GetInt64(), 1);
  EXPECT_FALSE(a.updated_pdb_status.HasMember("disruptedPods"));
}

TEST_F(EvictionTest, BodyDryRunAloneMakesTheEvictionDryRun) {
  const auto& a = AsAllow(Decide(
      {.name = "web-0"}, {PdbText(kHealthyStatus)},
      R"({"metadata":{"name":"web-0"},"deleteOptions":{"dryRun":["All"]}})"));
  EXPECT_TRUE(a.dry_run);
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_FALSE(a.add_disruption_target_condition);
}

TEST_F(EvictionTest, PendingPodBypassesPdbsButPinsItsResourceVersion) {
  const std::string blocked =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":0,)"
              R"("desiredHealthy":2,"expectedPods":2})");
  const auto& a = AsAllow(Decide({.name = "web-0", .ready = false, .phase = "Pending"},
                                 {blocked, blocked}));
  EXPECT_EQ(a.pdb_name, "");
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_TRUE(a.add_disruption_target_condition);
  EXPECT_EQ(Str(a.delete_options), R"({"preconditions":{"resourceVersion":"42"}})");
}

TEST_F(EvictionTest, PendingPodKeepsTheCallersResourceVersionPrecondition) {
  const auto& a = AsAllow(Decide(
      {.name = "web-0", .phase = "Pending"}, {},
      R"({"metadata":{"name":"web-0"},"deleteOptions":{"preconditions":{"resourceVersion":"7"}}})"));
  EXPECT_EQ(Str(a.delete_options), R"({"preconditions":{"resourceVersion":"7"}})");
}

TEST_F(EvictionTest, TerminalAndTerminatingPodsBypassPdbsWithoutPreconditions) {
  const std::string blocked = PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0})");
  for (PodSpec pod : {PodSpec{.name = "web-0", .phase = "Succeeded"},
                      PodSpec{.name = "web-0", .phase = "Failed"},
                      PodSpec{.name = "web-0", .deleting = true}}) {
    const auto& a = AsAllow(Decide(pod, {blocked}));
    EXPECT_FALSE(a.decrement_pdb) << pod.phase;
    EXPECT_EQ(Str(a.delete_options), "{}") << pod.phase;
  }
}

TEST_F(EvictionTest, MoreThanOnePdbIsInternalError) {
  auto d = Decide({.name = "web-0"}, {PdbText(kHealthyStatus), PdbText(kHealthyStatus, "", 1, "b")});
  const auto& r = AsReject(std::move(d));
  EXPECT_EQ(r.http_code, 500);
  EXPECT_FALSE(r.retry_after_seconds.has_value());
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"This pod has more than one PodDisruptionBudget, which the eviction )"
            R"(subresource does not support.","code":500})");
}

TEST_F(EvictionTest, UnreadyPodWithAlwaysAllowIsDeletedWithoutConsumingBudget) {
  const std::string pdb =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":1,)"
              R"("desiredHealthy":2,"expectedPods":3})",
              R"(,"unhealthyPodEvictionPolicy":"AlwaysAllow")");
  const auto& a = AsAllow(Decide({.name = "web-0", .ready = false}, {pdb}));
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_EQ(a.pdb_name, "web-pdb");
  EXPECT_TRUE(a.conflict_means_too_many_requests);
  EXPECT_EQ(Str(a.delete_options), R"({"preconditions":{"resourceVersion":"42"}})");
}

TEST_F(EvictionTest, UnreadyPodWithHealthyBudgetIsDeletedWithoutConsumingBudget) {
  const std::string pdb =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,)"
              R"("desiredHealthy":2,"expectedPods":3})",
              R"(,"unhealthyPodEvictionPolicy":"IfHealthyBudget")");
  const auto& a = AsAllow(Decide({.name = "web-0", .ready = false}, {pdb}));
  EXPECT_FALSE(a.decrement_pdb);
  EXPECT_TRUE(a.conflict_means_too_many_requests);
}

TEST_F(EvictionTest, UnreadyPodOfDisruptedAppFallsThroughToTheBudgetCheck) {
  const std::string pdb =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":1,)"
              R"("desiredHealthy":2,"expectedPods":3})");  // policy unset = IfHealthyBudget
  const auto& r = AsReject(Decide({.name = "web-0", .ready = false}, {pdb}));
  EXPECT_EQ(r.http_code, 429);
}

TEST_F(EvictionTest, UnreadyPodWithZeroDesiredHealthyConsumesBudget) {
  const std::string pdb =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":1,)"
              R"("desiredHealthy":0,"expectedPods":1})");
  const auto& a = AsAllow(Decide({.name = "web-0", .ready = false}, {pdb}));
  EXPECT_TRUE(a.decrement_pdb);
  EXPECT_FALSE(a.conflict_means_too_many_requests);
}

TEST_F(EvictionTest, UnreadyPathOverridesCallerResourceVersionAndKeepsConflictsAsConflicts) {
  const std::string pdb =
      PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":3,)"
              R"("desiredHealthy":2,"expectedPods":3})");
  const auto& a = AsAllow(Decide(
      {.name = "web-0", .ready = false}, {pdb},
      R"({"metadata":{"name":"web-0"},"deleteOptions":{"preconditions":{"resourceVersion":"7"}}})"));
  EXPECT_FALSE(a.conflict_means_too_many_requests);
  EXPECT_EQ(Str(a.delete_options), R"({"preconditions":{"resourceVersion":"42"}})");
}

TEST_F(EvictionTest, StalePdbGenerationIsTooManyRequestsRetryAfterTen) {
  const auto& r = AsReject(Decide({.name = "web-0"}, {PdbText(kHealthyStatus, "", 2)}));
  EXPECT_EQ(r.http_code, 429);
  EXPECT_EQ(r.retry_after_seconds, 10);
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Cannot evict pod as it would violate the pod's disruption budget.",)"
            R"("reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget",)"
            R"("message":"The disruption budget web-pdb is still being processed by the server."}],)"
            R"("retryAfterSeconds":10},"code":429})");
  EXPECT_EQ(Str(TooManyRequestsWhilePdbProcessing("web-pdb").status), Str(r.status));
}

TEST_F(EvictionTest, NegativeDisruptionsAllowedIsForbidden) {
  const auto& r = AsReject(Decide(
      {.name = "web-0"}, {PdbText(R"({"observedGeneration":1,"disruptionsAllowed":-1})")}));
  EXPECT_EQ(r.http_code, 403);
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"poddisruptionbudget.policy \"web-pdb\" is forbidden: pdb disruptions )"
            R"(allowed is negative","reason":"Forbidden","details":{"name":"web-pdb",)"
            R"("group":"policy","kind":"poddisruptionbudget"},"code":403})");
}

std::string DisruptedMap(int n) {
  std::string out = "{";
  for (int i = 0; i < n; ++i) {
    out += (i ? "," : "") + std::string("\"p") + std::to_string(i) + R"(":"2024-05-01T09:59:00Z")";
  }
  return out + "}";
}

TEST_F(EvictionTest, MoreThan2000UnconfirmedEvictionsIsForbidden) {
  const auto& r = AsReject(Decide(
      {.name = "web-0"},
      {PdbText(R"({"observedGeneration":1,"disruptionsAllowed":5,"disruptedPods":)" +
               DisruptedMap(2001) + "}")}));
  EXPECT_EQ(r.http_code, 403);
  EXPECT_STREQ(r.status["message"].GetString(),
               "poddisruptionbudget.policy \"web-pdb\" is forbidden: DisruptedPods map too big - "
               "too many evictions not confirmed by PDB controller");
  const auto& a = AsAllow(Decide(
      {.name = "web-0"},
      {PdbText(R"({"observedGeneration":1,"disruptionsAllowed":5,"disruptedPods":)" +
               DisruptedMap(2000) + "}")}));
  EXPECT_TRUE(a.decrement_pdb);
}

TEST_F(EvictionTest, ExhaustedBudgetIsTooManyRequestsWithDisruptionBudgetCause) {
  const auto& r = AsReject(Decide(
      {.name = "web-0"},
      {PdbText(R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,)"
               R"("desiredHealthy":2,"expectedPods":2})")}));
  EXPECT_EQ(r.http_code, 429);
  EXPECT_FALSE(r.retry_after_seconds.has_value());
  EXPECT_EQ(Str(r.status),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Cannot evict pod as it would violate the pod's disruption budget.",)"
            R"("reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget",)"
            R"("message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},)"
            R"("code":429})");
}

TEST_F(EvictionTest, AllowedEvictionConsumesOneDisruptionAndRecordsThePod) {
  const auto& a = AsAllow(Decide({.name = "web-0"}, {PdbText(kHealthyStatus)}));
  EXPECT_TRUE(a.decrement_pdb);
  EXPECT_EQ(a.pdb_name, "web-pdb");
  EXPECT_TRUE(a.add_disruption_target_condition);
  EXPECT_EQ(Str(a.delete_options), "{}");  // a Ready pod gets no extra precondition
  EXPECT_EQ(Str(a.updated_pdb_status),
            R"({"observedGeneration":1,"disruptedPods":{"web-0":"2024-05-01T10:00:00Z"},)"
            R"("disruptionsAllowed":1,"currentHealthy":4,"desiredHealthy":2,"expectedPods":4,)"
            R"("conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,)"
            R"("lastTransitionTime":"2024-04-01T00:00:00Z","reason":"SufficientPods",)"
            R"("message":""}]})");
}

TEST_F(EvictionTest, LastDisruptionFlipsTheConditionToInsufficientPods) {
  const auto& a = AsAllow(Decide(
      {.name = "web-0"},
      {PdbText(R"({"observedGeneration":1,"disruptedPods":{"web-9":"2024-05-01T09:59:00Z"},)"
               R"("disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3,)"
               R"("conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,)"
               R"("lastTransitionTime":"2024-04-01T00:00:00Z","reason":"SufficientPods","message":""}]})")}));
  EXPECT_EQ(Str(a.updated_pdb_status),
            R"({"observedGeneration":1,"disruptedPods":{"web-0":"2024-05-01T10:00:00Z",)"
            R"("web-9":"2024-05-01T09:59:00Z"},"disruptionsAllowed":0,"currentHealthy":3,)"
            R"("desiredHealthy":2,"expectedPods":3,"conditions":[{"type":"DisruptionAllowed",)"
            R"("status":"False","observedGeneration":1,"lastTransitionTime":"2024-05-01T10:00:00Z",)"
            R"("reason":"InsufficientPods","message":""}]})");
}

TEST_F(EvictionTest, MalformedPdbStatusNeverCrashes) {
  for (const char* status : {"null", "[]", R"({"disruptionsAllowed":"many"})",
                             R"({"disruptionsAllowed":1,"disruptedPods":[]})"}) {
    auto d = Decide({.name = "web-0"}, {PdbText(status)});
    if (std::holds_alternative<EvictionReject>(d)) {
      EXPECT_EQ(std::get<EvictionReject>(d).http_code, 429) << status;
    } else {
      EXPECT_TRUE(std::get<EvictionAllow>(d).decrement_pdb) << status;
    }
  }
  EXPECT_EQ(AsReject(Decide({.name = "web-0"}, {R"("pdb")"})).http_code, 429);
}

TEST(DisruptionTargetConditionTest, HasUpstreamReasonAndMessage) {
  EXPECT_EQ(Str(DisruptionTargetCondition(T0())),
            R"({"type":"DisruptionTarget","status":"True","lastProbeTime":null,)"
            R"("lastTransitionTime":"2024-05-01T10:00:00Z","reason":"EvictionByEvictionAPI",)"
            R"("message":"Eviction API: evicting"})");
}

TEST(DisruptionTargetConditionTest, ApplyAddsOrUpdatesKeepingTransitionTimeWhenAlreadyTrue) {
  auto pod = std::move(*json::Parse(testing::PodJson({.name = "web-0"})));
  ApplyDisruptionTargetCondition(pod, T0(), pod.GetAllocator());
  ASSERT_EQ(pod["status"]["conditions"].Size(), 2u);
  EXPECT_STREQ(pod["status"]["conditions"][1]["lastTransitionTime"].GetString(),
               "2024-05-01T10:00:00Z");
  ApplyDisruptionTargetCondition(pod, T0() + 5min, pod.GetAllocator());
  ASSERT_EQ(pod["status"]["conditions"].Size(), 2u);
  EXPECT_STREQ(pod["status"]["conditions"][1]["lastTransitionTime"].GetString(),
               "2024-05-01T10:00:00Z");

  auto reset = std::move(*json::Parse(
      R"({"status":{"conditions":[{"type":"DisruptionTarget","status":"False",)"
      R"("lastTransitionTime":"2024-01-01T00:00:00Z","reason":"Old"}]}})"));
  ApplyDisruptionTargetCondition(reset, T0(), reset.GetAllocator());
  EXPECT_EQ(Str(reset["status"]["conditions"][0]), Str(DisruptionTargetCondition(T0())));

  auto bare = std::move(*json::Parse("{}"));
  ApplyDisruptionTargetCondition(bare, T0(), bare.GetAllocator());
  EXPECT_EQ(bare["status"]["conditions"].Size(), 1u);
  auto not_object = std::move(*json::Parse("3"));
  ApplyDisruptionTargetCondition(not_object, T0(), not_object.GetAllocator());
  EXPECT_TRUE(not_object.IsInt());
}

TEST(PdbSelectsPodTest, FollowsTheEvictionHandlersSelectorRules) {
  testing::Store store;
  const auto* pod = store.AddPod({.name = "web-0"});
  auto pdb = [&](const std::string& spec, const std::string& ns = "default") {
    return store.Add(R"({"metadata":{"name":"p","namespace":")" + ns + R"("},"spec":)" + spec + "}");
  };
  EXPECT_TRUE(PdbSelectsPod(*pdb(R"({"selector":{"matchLabels":{"app":"web"}}})"), *pod));
  EXPECT_TRUE(PdbSelectsPod(*pdb(R"({"selector":{}})"), *pod));
  EXPECT_FALSE(PdbSelectsPod(*pdb(R"({})"), *pod));
  EXPECT_FALSE(PdbSelectsPod(*pdb(R"({"selector":{"matchLabels":{"app":"db"}}})"), *pod));
  EXPECT_FALSE(PdbSelectsPod(
      *pdb(R"({"selector":{"matchExpressions":[{"key":"app","operator":"In"}]}})"), *pod));
  EXPECT_FALSE(PdbSelectsPod(*pdb(R"({"selector":{}})", "other"), *pod));
}

}  // namespace
}  // namespace berth::kubesim::disruption
