// Expired reservations and berth's scheduler, with the lifecycle controller off (as between a
// takeover and its first reconcile, or when it lags): from its deadline on a reservation whose
// status still says Available takes no owner pod and holds no capacity, and pods parked on that
// capacity are scheduled at the deadline without any status write.
#include "clientgo-shim/api/timestamp.h"
#include "scheduler_test_support.h"

namespace berth::controllers::testing {
namespace {

using namespace std::chrono_literals;

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  return shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

TEST(SchedulerExpiryTest, AnOwnerPodIsNotBoundIntoAReservationPastItsDeadlineAfterARestart) {
  kubesim::KubesimOptions o;
  o.nodes = 1;
  o.node_cpu = "4";
  Cluster cluster(o);
  cluster.Start();
  // Placed and Available by a previous leader; its `expires` (which wins over the 24h ttl) has
  // passed, but no lifecycle controller has written Failed yet.
  auto expired_at = std::chrono::system_clock::now() - 2s;
  cluster.CreateReservation(ReservationJson("old", "3", "owner", R"("ttl":"24h","expires":")" + Rfc3339(expired_at) + R"(",)"));
  cluster.SetReservationStatus("old", R"({"phase":"Available","nodeName":"node-0","allocatable":{"cpu":"3"},
      "conditions":[{"type":"Scheduled","status":"True","reason":"Scheduled"},{"type":"Ready","status":"True","reason":"Available"}]})");
  cluster.StartManager(/*lifecycle=*/false);

  cluster.CreatePod(PodJson("owner-0", "500m", "owner"));
  cluster.CreatePod(PodJson("other-0", "2", "other"));  // fits only if the 3 cpu are not held
  std::map<std::string, ServerPod> pods;
  ASSERT_TRUE(WaitUntil(
      [&] {
        pods = cluster.Pods();
        return pods.size() == 2 && !pods["owner-0"].node.empty() && !pods["other-0"].node.empty();
      },
      30s))
      << "owner-0: node=" << pods["owner-0"].node << " reason=" << pods["owner-0"].scheduled_reason
      << "; other-0: node=" << pods["other-0"].node << " reason=" << pods["other-0"].scheduled_reason;
  EXPECT_EQ(pods["owner-0"].reservation_uid, "") << "bound into an expired reservation";
  auto r = cluster.Reservation("old");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::GetString(*r, {"status", "phase"}), "Available") << "the phase alone must not decide";
}

TEST(SchedulerExpiryTest, AtTheDeadlineParkedPodsGetTheHeldCapacityAndOwnersNoLongerUseIt) {
  kubesim::KubesimOptions o;
  o.nodes = 1;
  o.node_cpu = "4";
  Cluster cluster(o);
  cluster.Start();
  cluster.StartManager(/*lifecycle=*/false);
  // Far enough ahead that placing the reservation and parking other-0 (a few seconds on a loaded
  // 2-core machine running ctest -j2) ends before it: the assertion below needs that.
  auto deadline = std::chrono::system_clock::now() + 10s;
  cluster.CreateReservation(ReservationJson("soon", "3", "owner", R"("ttl":"24h","expires":")" + Rfc3339(deadline) + R"(",)"));
  // FormatTimestamp keeps whole seconds: the real deadline is the truncated one.
  deadline = std::chrono::time_point_cast<std::chrono::seconds>(deadline);
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto r = cluster.Reservation("soon");
        return r && json::GetString(*r, {"status", "phase"}) == "Available";
      },
      10s));

  cluster.CreatePod(PodJson("other-0", "2", "other"));
  std::map<std::string, ServerPod> pods;
  ASSERT_TRUE(WaitUntil(
      [&] {
        pods = cluster.Pods();
        return pods["other-0"].scheduled_reason == "Unschedulable";
      },
      10s))
      << "3 of 4 cpu are held: other-0 must wait (node=" << pods["other-0"].node << ")";
  ASSERT_LT(std::chrono::system_clock::now(), deadline) << "the machine was too slow for this test's timing";

  // No cluster change happens at the deadline: only the scheduler's own requeue can wake it.
  ASSERT_TRUE(WaitUntil([&] { return !cluster.Pods()["other-0"].node.empty(); }, 20s))
      << "the capacity the expired reservation held was not released";
  EXPECT_GE(std::chrono::system_clock::now(), deadline);

  cluster.CreatePod(PodJson("owner-0", "500m", "owner"));
  ASSERT_TRUE(WaitUntil([&] { return !cluster.Pods()["owner-0"].node.empty(); }, 20s));
  EXPECT_EQ(cluster.Pods()["owner-0"].reservation_uid, "") << "bound into an expired reservation";
  auto r = cluster.Reservation("soon");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::GetString(*r, {"status", "phase"}), "Available") << "no lifecycle controller ran";
}

}  // namespace
}  // namespace berth::controllers::testing
