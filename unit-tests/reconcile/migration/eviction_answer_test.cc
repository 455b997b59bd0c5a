#include <gtest/gtest.h>

#include "reconcile/migration/job.h"
#include "reconcile/migration/job_fixtures.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

using testing::JobForWeb1;
using testing::JobReservation;
using testing::kT0;

JobSnapshot Evicting() {
  JobSnapshot j = JobForWeb1();
  j.pod_uid = "pod-uid";
  PodFacts p;
  p.namespace_name = "default";
  p.name = "web-1";
  p.uid = "pod-uid";
  p.node_name = "node-0";
  j.pod = p;
  j.status.phase = JobPhase::kRunning;
  j.reservation = JobReservation(Phase::kAvailable, "node-2");
  j.pdbs = {{"web-pdb", 0, 3, 3}};
  return j;
}

constexpr char kBudget[] = "Cannot evict pod as it would violate the pod's disruption budget.";

TEST(EvictionAnswerTest, ClassifiesTheApiServersAnswers) {
  EXPECT_EQ(ClassifyEviction(201, ""), EvictionResult::kAccepted);
  EXPECT_EQ(ClassifyEviction(200, ""), EvictionResult::kAccepted);
  EXPECT_EQ(ClassifyEviction(404, "not found"), EvictionResult::kPodGone);
  EXPECT_EQ(ClassifyEviction(429, kBudget), EvictionResult::kBlockedByPdb);
  // A 429 without the budget's message is throttling (API Priority and Fairness, max-in-flight): no
  // budget refused the eviction, so neither the condition nor berth_pods_evicted_total may say one did.
  EXPECT_EQ(ClassifyEviction(429, "Too many requests, please try again later."), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(429, "the server has received too many requests and has asked us to try again later"),
            EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(429, ""), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(500, "This pod has more than one PodDisruptionBudget, which the eviction subresource "
                                  "does not support."),
            EvictionResult::kMultiplePdbs);
  EXPECT_EQ(ClassifyEviction(500, "etcd timeout"), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(503, ""), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(409, ""), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(0, "connection reset"), EvictionResult::kRetryable);
  EXPECT_EQ(ClassifyEviction(403, "pdb disruptions allowed is negative"), EvictionResult::kRejected);
  EXPECT_EQ(ClassifyEviction(400, ""), EvictionResult::kRejected);
}

TEST(EvictionAnswerTest, ABlockedEvictionIsRetriedWithBackoffAndNamesTheBudget) {
  JobSnapshot j = Evicting();
  auto d = DecideAfterEviction(j, j.status, {EvictionResult::kBlockedByPdb, 429, kBudget}, kT0, {}, 0.5);
  EXPECT_EQ(d.status.phase, JobPhase::kRunning);
  const Condition* c = FindCondition(d.status, kCondEviction);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Evicting");
  EXPECT_EQ(c->message,
            "Eviction attempt 1 of Pod default/web-1 blocked by PodDisruptionBudget default/web-pdb (0 disruptions "
            "allowed, 3 healthy, 3 desired): Cannot evict pod as it would violate the pod's disruption budget.; "
            "retrying in 5.0s");
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Warning");
  EXPECT_EQ(d.events[0].reason, "Evicting");
  EXPECT_EQ(d.events[0].message,
            "Failed evict Pod \"default/web-1\" caused by blocked by PodDisruptionBudget default/web-pdb (0 "
            "disruptions allowed, 3 healthy, 3 desired): Cannot evict pod as it would violate the pod's disruption "
            "budget. (attempt 1); retrying in 5.0s");
  EXPECT_EQ(d.tries.attempts, 1);
  EXPECT_TRUE(d.tries.refused_by_budget);
  EXPECT_EQ(d.tries.next_attempt, kT0 + seconds(5));
  EXPECT_EQ(d.requeue_after, seconds(5));
  EXPECT_EQ(d.retry_delay, seconds(5));
  EXPECT_TRUE(d.actions.empty());

  j.eviction = d.tries;
  j.status = d.status;
  auto second = DecideAfterEviction(j, j.status, {EvictionResult::kBlockedByPdb, 429, kBudget}, kT0 + seconds(5), {},
                                    0.5);
  EXPECT_EQ(second.tries.attempts, 2);
  EXPECT_EQ(second.retry_delay, seconds(10));
  EXPECT_NE(FindCondition(second.status, kCondEviction)->message.find("Eviction attempt 2"), std::string::npos);
}

TEST(EvictionAnswerTest, BackoffDoublesIsCappedJitteredAndNeverPassesTheDeadline) {
  MigrationOptions o;
  EXPECT_EQ(EvictionBackoff(1, o, 0.5), seconds(5));
  EXPECT_EQ(EvictionBackoff(2, o, 0.5), seconds(10));
  EXPECT_EQ(EvictionBackoff(4, o, 0.5), seconds(40));
  EXPECT_EQ(EvictionBackoff(5, o, 0.5), seconds(60));
  EXPECT_EQ(EvictionBackoff(30, o, 0.5), seconds(60));
  EXPECT_EQ(EvictionBackoff(1, o, 0.0), seconds(4));
  EXPECT_GT(EvictionBackoff(1, o, 0.999), milliseconds(5990));
  EXPECT_LT(EvictionBackoff(1, o, 0.999), seconds(6));

  JobSnapshot j = Evicting();
  j.eviction.attempts = 6;
  auto d = DecideAfterEviction(j, j.status, {EvictionResult::kBlockedByPdb, 429, kBudget}, kT0 + minutes(4) +
                               seconds(50), {}, 0.5);
  EXPECT_EQ(d.retry_delay, seconds(10));  // 60 s would pass the 5 m deadline: wake at it instead
}

TEST(EvictionAnswerTest, AThrottled429NamesNoBudgetAndWaitsAtLeastItsRetryAfter) {
  JobSnapshot j = Evicting();
  const std::string throttled = "the server has received too many requests and has asked us to try again later";
  auto d = DecideAfterEviction(j, j.status, {ClassifyEviction(429, throttled), 429, throttled, seconds(12)}, kT0, {},
                               0.5);
  EXPECT_EQ(d.status.phase, JobPhase::kRunning);
  EXPECT_EQ(FindCondition(d.status, kCondEviction)->message,
            "Eviction attempt 1 of Pod default/web-1 failed (HTTP 429): " + throttled + "; retrying in 12.0s");
  EXPECT_EQ(d.retry_delay, seconds(12));  // the server's Retry-After, not the 5 s backoff
  EXPECT_EQ(d.tries.next_attempt, kT0 + seconds(12));

  // A Retry-After shorter than the backoff changes nothing; none passes the job's deadline.
  EXPECT_FALSE(d.tries.refused_by_budget);  // the budget's update does not end this backoff early

  auto shorter = DecideAfterEviction(j, j.status, {EvictionResult::kRetryable, 503, "unavailable", seconds(1)}, kT0,
                                     {}, 0.5);
  EXPECT_EQ(shorter.retry_delay, seconds(5));
  auto late = DecideAfterEviction(j, j.status, {EvictionResult::kRetryable, 503, "unavailable", seconds(60)},
                                  kT0 + minutes(4) + seconds(55), {}, 0.5);
  EXPECT_EQ(late.retry_delay, seconds(5));
}

TEST(EvictionAnswerTest, SeveralPdbsAreATerminalExplainedFailure) {
  JobSnapshot j = Evicting();
  j.pdbs = {{"a", 1, 3, 2}, {"b", 1, 3, 2}};
  auto d = DecideAfterEviction(
      j, j.status,
      {EvictionResult::kMultiplePdbs, 500,
       "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."},
      kT0, {}, 0.5);
  EXPECT_EQ(d.status.phase, JobPhase::kFailed);
  EXPECT_EQ(d.status.reason, "FailedEvict");
  EXPECT_NE(d.status.message.find("(matching: a, b)"), std::string::npos);
  EXPECT_NE(d.status.message.find("koordinator.sh/evict-policy=Delete"), std::string::npos);
  EXPECT_EQ(d.actions, (std::vector<Action>{{ActionKind::kDeleteReservation, "job-uid"}}));
  ASSERT_TRUE(d.transition);
  EXPECT_EQ(d.transition->to, JobPhase::kFailed);
  EXPECT_FALSE(d.requeue_after);
}

TEST(EvictionAnswerTest, OtherAnswers) {
  JobSnapshot j = Evicting();
  auto gone = DecideAfterEviction(j, j.status, {EvictionResult::kPodGone, 404, "not found"}, kT0, {}, 0.5);
  EXPECT_EQ(FindCondition(gone.status, kCondEviction)->reason, "EvictComplete");
  EXPECT_EQ(gone.status.phase, JobPhase::kRunning);

  auto transient = DecideAfterEviction(j, j.status, {EvictionResult::kRetryable, 503, "unavailable"}, kT0, {}, 0.5);
  EXPECT_EQ(transient.status.phase, JobPhase::kRunning);
  EXPECT_NE(FindCondition(transient.status, kCondEviction)->message.find("failed (HTTP 503): unavailable"),
            std::string::npos);
  EXPECT_EQ(transient.tries.attempts, 1);

  auto refused = DecideAfterEviction(j, j.status, {EvictionResult::kRejected, 403, "forbidden"}, kT0, {}, 0.5);
  EXPECT_EQ(refused.status.phase, JobPhase::kFailed);
  EXPECT_EQ(refused.status.message, "Eviction of Pod default/web-1 refused (HTTP 403): forbidden");

  j.job_evict_policy = EvictionPolicy::kDelete;
  auto deleted = DecideAfterEviction(j, j.status, {EvictionResult::kAccepted, 200, ""}, kT0, {}, 0.5);
  EXPECT_EQ(FindCondition(deleted.status, kCondEviction)->message,
            "Pod \"default/web-1\" deleted (policy Delete: no PodDisruptionBudget consulted) from node \"node-0\" "
            "by the reason \"\"");
  EXPECT_EQ(deleted.tries.attempts, 0);
  EXPECT_EQ(deleted.tries.next_attempt, kT0 + seconds(5));  // a stale cache does not evict twice
  EXPECT_TRUE(deleted.tries.accepted);
}

TEST(EvictionAnswerTest, ConditionsKeepTheirTransitionTimeWhileTheStatusHolds) {
  JobStatus s;
  EXPECT_TRUE(UpsertCondition(s, "Eviction", "False", "Evicting", "a", kT0));
  EXPECT_FALSE(UpsertCondition(s, "Eviction", "False", "Evicting", "a", kT0 + seconds(5)));
  EXPECT_TRUE(UpsertCondition(s, "Eviction", "False", "Evicting", "b", kT0 + seconds(6)));
  EXPECT_EQ(s.conditions[0].last_transition_time, kT0);
  EXPECT_EQ(s.conditions[0].last_probe_time, kT0 + seconds(6));
  EXPECT_TRUE(UpsertCondition(s, "Eviction", "True", "EvictComplete", "c", kT0 + seconds(7)));
  EXPECT_EQ(s.conditions[0].last_transition_time, kT0 + seconds(7));
  EXPECT_EQ(s.status, "Eviction");
  EXPECT_EQ(s.reason, "EvictComplete");
  EXPECT_EQ(s.message, "c");
}

}  // namespace
}  // namespace berth::reconcile::migration
