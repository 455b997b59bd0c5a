#include "reconcile/migration/drain.h"

#include <gtest/gtest.h>

#include "reconcile/migration/job_fixtures.h"

namespace berth::reconcile::migration {
namespace {

using std::chrono::seconds;

using testing::kT0;

DrainPod Pod(std::string name, std::string uid) {
  DrainPod dp;
  dp.pod = testing::ReplicaSetPod(std::move(name), std::move(uid), "n1");
  return dp;
}

DrainSnapshot Node(std::optional<std::string> label = "true") {
  DrainSnapshot n;
  n.node = "n1";
  n.label = std::move(label);
  return n;
}

TEST(DrainTest, TheLabelCordonsAndGivesEveryEvictablePodAJob) {
  DrainSnapshot n = Node();
  n.pods = {Pod("web-0", "u0"), Pod("web-1", "u1")};
  DrainPod ds = Pod("agent", "u2");
  ds.pod.controller_kind = "DaemonSet";
  n.pods.push_back(ds);
  DrainPod done = Pod("batch", "u3");
  done.pod.phase = "Succeeded";
  n.pods.push_back(done);
  DrainPod other = Pod("legacy", "u4");
  other.pod.scheduler_name = "default-scheduler";
  n.pods.push_back(other);

  auto d = DecideDrain(n, kT0, DrainOptions{});
  EXPECT_EQ(d.set_unschedulable, true);
  EXPECT_EQ(d.set_cordoned_by_berth, true);
  EXPECT_EQ(d.create_jobs, (std::vector<JobToCreate>{{"drain-u0", "default", "web-0", "u0", JobMode::kReservationFirst},
                                                     {"drain-u1", "default", "web-1", "u1", JobMode::kReservationFirst},
                                                     {"drain-u4", "default", "legacy", "u4", JobMode::kEvictDirectly}}));
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->status, "Draining");
  EXPECT_EQ(d.status->pods_remaining, 3);
  EXPECT_EQ(d.status->last_transition_time, kT0);
  EXPECT_NE(d.status->message.find("3 evictable pods left: default/web-0, default/web-1, default/legacy"),
            std::string::npos)
      << d.status->message;
  EXPECT_NE(d.status->message.find("not evicted: pod default/agent is a DaemonSet pod"), std::string::npos)
      << d.status->message;
  EXPECT_EQ(d.pods_remaining, 3);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].reason, "DrainStarted");
  EXPECT_EQ(d.events[0].message, "cordoned node n1; migrating 3 pods");
}

TEST(DrainTest, PodsWithJobsOrTerminatingGetNoSecondJobAndTheStatusIsNotRewritten) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  n.pods = {Pod("web-0", "u0"), Pod("web-1", "u1")};
  n.pods[0].has_active_job = true;
  n.pods[1].pod.deleting = true;
  auto first = DecideDrain(n, kT0, DrainOptions{});
  EXPECT_FALSE(first.set_unschedulable);
  EXPECT_TRUE(first.create_jobs.empty());
  ASSERT_TRUE(first.status);
  n.status = first.status;
  auto again = DecideDrain(n, kT0 + seconds(5), DrainOptions{});
  EXPECT_FALSE(again.status) << "unchanged";
  EXPECT_TRUE(again.events.empty());
  EXPECT_EQ(again.pods_remaining, 2);
}

TEST(DrainTest, NoEvictablePodLeftIsDrainedOnceWithAnEvent) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  n.status = DrainStatus{"Draining", 1, "1 evictable pod left: default/web-0", kT0};
  DrainPod ds = Pod("agent", "u2");
  ds.pod.controller_kind = "DaemonSet";
  n.pods = {ds};
  auto d = DecideDrain(n, kT0 + seconds(30), DrainOptions{});
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->status, "Drained");
  EXPECT_EQ(d.status->pods_remaining, 0);
  EXPECT_EQ(d.status->last_transition_time, kT0 + seconds(30));
  EXPECT_EQ(d.pods_remaining, 0);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].reason, "Drained");
  EXPECT_NE(d.events[0].message.find("no evictable pod is left on node n1; not evicted: pod default/agent"),
            std::string::npos)
      << d.events[0].message;
  n.status = d.status;
  EXPECT_TRUE(DecideDrain(n, kT0 + seconds(40), DrainOptions{}).events.empty());
}

TEST(DrainTest, AJobBeingCreatedIsNotCreatedAgainBeforeTheCacheShowsIt) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  n.pods = {Pod("web-0", "u0"), Pod("web-1", "u1")};
  n.jobs_being_created = {"drain-u0"};
  auto d = DecideDrain(n, kT0, DrainOptions{});
  EXPECT_EQ(d.create_jobs, (std::vector<JobToCreate>{{"drain-u1", "default", "web-1", "u1", JobMode::kReservationFirst}}));
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->pods_remaining, 2) << "its pod still counts as remaining";
}

TEST(DrainTest, JobsAreCreatedLowestPodPriorityFirstThenInThePodsOrder) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  DrainPod high = Pod("high", "u0");
  high.pod.priority = 1000;
  DrainPod none = Pod("none", "u1");  // no priority: kube-scheduler's default 0
  DrainPod low = Pod("low", "u2");
  low.pod.priority = -5;
  DrainPod zero = Pod("zero", "u3");
  zero.pod.priority = 0;
  n.pods = {high, none, low, zero};
  auto d = DecideDrain(n, kT0, DrainOptions{});
  std::vector<std::string> order;
  for (const auto& j : d.create_jobs) order.push_back(j.pod_name);
  EXPECT_EQ(order, (std::vector<std::string>{"low", "none", "zero", "high"}));
}

TEST(DrainTest, TheRemainingCountIsRewrittenAtMostOncePerIntervalTheTransitionAtOnce) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  n.pods = {Pod("web-0", "u0"), Pod("web-1", "u1"), Pod("web-2", "u2")};
  for (auto& p : n.pods) p.has_active_job = true;
  auto first = DecideDrain(n, kT0, DrainOptions{});
  ASSERT_TRUE(first.status) << "the first status goes out at once";
  n.status = first.status;
  n.status_written_at = kT0;

  n.pods.pop_back();
  auto held = DecideDrain(n, kT0 + std::chrono::milliseconds(300), DrainOptions{});
  EXPECT_FALSE(held.status) << "only the count moved, within status_interval of the last write";
  EXPECT_EQ(held.requeue_after, std::chrono::milliseconds(700));
  EXPECT_EQ(held.pods_remaining, 2) << "the metric follows at once";

  auto later = DecideDrain(n, kT0 + seconds(1), DrainOptions{});
  ASSERT_TRUE(later.status);
  EXPECT_EQ(later.status->pods_remaining, 2);

  n.pods.clear();
  auto drained = DecideDrain(n, kT0 + std::chrono::milliseconds(100), DrainOptions{});
  ASSERT_TRUE(drained.status) << "Draining → Drained is not held back";
  EXPECT_EQ(drained.status->status, "Drained");
  ASSERT_EQ(drained.events.size(), 1u);
}

TEST(DrainTest, AFailedJobIsReplacedAfterTheRetryDelayUnderANewName) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  n.pods = {Pod("web-0", "u0")};
  n.pods[0].jobs_so_far = 1;
  n.pods[0].last_failed_at = kT0;
  n.pods[0].last_failure = "Timeout: Abort job caused by timeout";
  auto early = DecideDrain(n, kT0 + seconds(4), DrainOptions{});
  EXPECT_TRUE(early.create_jobs.empty());
  EXPECT_EQ(early.requeue_after, seconds(6));
  ASSERT_TRUE(early.status);
  EXPECT_NE(early.status->message.find("failed migrations (retried): default/web-0: Timeout"), std::string::npos);
  auto due = DecideDrain(n, kT0 + seconds(10), DrainOptions{});
  ASSERT_EQ(due.create_jobs.size(), 1u);
  EXPECT_EQ(due.create_jobs[0].name, "drain-u0-1");
}

TEST(DrainTest, AnAlreadyCordonedNodeIsNotMarkedAsBerthsCordon) {
  DrainSnapshot n = Node();
  n.unschedulable = true;
  auto d = DecideDrain(n, kT0, DrainOptions{});
  EXPECT_FALSE(d.set_unschedulable);
  EXPECT_FALSE(d.set_cordoned_by_berth);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].reason, "Drained");
}

TEST(DrainTest, RemovingTheLabelUncordonsOnlyBerthsCordonAndDeletesPendingJobs) {
  DrainSnapshot n = Node(std::nullopt);
  n.unschedulable = true;
  n.cordoned_by_berth = true;
  n.status = DrainStatus{"Draining", 2, "x", kT0};
  n.pending_jobs = {"drain-u1"};
  auto d = DecideDrain(n, kT0, DrainOptions{});
  EXPECT_EQ(d.set_unschedulable, false);
  EXPECT_EQ(d.set_cordoned_by_berth, false);
  EXPECT_TRUE(d.remove_status);
  EXPECT_EQ(d.delete_jobs, std::vector<std::string>{"drain-u1"});
  EXPECT_FALSE(d.pods_remaining);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].message, "label berth.dev/drain removed: node n1 uncordoned");

  DrainSnapshot admin = Node("false");
  admin.unschedulable = true;  // cordoned by someone else: stays cordoned
  admin.status = DrainStatus{"Drained", 0, "x", kT0};
  auto a = DecideDrain(admin, kT0, DrainOptions{});
  EXPECT_FALSE(a.set_unschedulable);
  EXPECT_TRUE(a.remove_status);

  DrainSnapshot idle = Node(std::nullopt);
  auto i = DecideDrain(idle, kT0, DrainOptions{});
  EXPECT_TRUE(i.events.empty());
  EXPECT_FALSE(i.remove_status);
  EXPECT_FALSE(i.set_unschedulable);
}

TEST(DrainTest, AnUnknownLabelValueChangesNothingAndSaysSo) {
  for (const char* value : {"yes", "True", "1", ""}) {
    DrainSnapshot n = Node(std::string(value));
    n.unschedulable = true;
    n.cordoned_by_berth = true;
    n.pods = {Pod("web-0", "u0")};
    auto d = DecideDrain(n, kT0, DrainOptions{});
    EXPECT_FALSE(d.set_unschedulable) << value;
    EXPECT_TRUE(d.create_jobs.empty()) << value;
    EXPECT_FALSE(d.remove_status) << value;
    ASSERT_EQ(d.events.size(), 1u) << value;
    EXPECT_EQ(d.events[0].reason, "InvalidDrainLabel");
    EXPECT_NE(d.events[0].message.find("\"" + std::string(value) + "\""), std::string::npos);
  }
}

TEST(DrainTest, JobNames) {
  EXPECT_EQ(DrainJobName("abc", 0), "drain-abc");
  EXPECT_EQ(DrainJobName("abc", 2), "drain-abc-2");
}

}  // namespace
}  // namespace berth::reconcile::migration
