// Every kind of write berth's controllers make, failing 30% of the time with 409 or 500 (kubesim
// fault targets): reservation placement status, PodScheduled=False, the lifecycle's expiry status,
// the removal of a deleted reservation's allocation annotation from its pods, and bindings. Each
// failed write is retried with backoff and decided again from the cache, so the cluster converges
// to the fault-free outcome.
#include "scheduler_test_support.h"

namespace berth::controllers::testing {
namespace {

using namespace std::chrono_literals;

TEST(ControllerWriteFaultsTest, EveryWriteIsRetriedUntilTheClusterConverges) {
  kubesim::KubesimOptions o;
  o.nodes = 2;
  o.node_cpu = "4";
  o.faults.fault_rate = 0.3;
  o.faults.fault_codes = {409, 500};
  o.faults.seed = 5;
  for (const char* t : {"PUT:reservations/status", "PATCH:reservations", "PATCH:pods/status", "PATCH:pods",
                        "DELETE:reservations", "POST:pods/binding"}) {
    o.faults.targets.push_back(*kubesim::ParseFaultTarget(t));
  }
  Cluster cluster(o);
  cluster.Start();
  cluster.StartManager(/*lifecycle=*/true);
  for (int j = 0; j < 4; ++j) cluster.CreateReservation(ReservationJson("r-" + std::to_string(j), "1", "a", R"("ttl":"0s",)"));
  cluster.CreateReservation(ReservationJson("short", "1", "nobody", R"("ttl":"2s",)"));
  cluster.CreatePod(PodJson("huge", "16", "other"));
  auto phase = [&](const std::string& name) {
    auto r = cluster.Reservation(name);
    return r ? std::string(json::GetString(*r, {"status", "phase"})) : std::string("<gone>");
  };
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int j = 0; j < 4; ++j) {
          if (phase("r-" + std::to_string(j)) != "Available") return false;
        }
        return true;
      },
      60s))
      << "placement status writes were not retried: r-0 is " << phase("r-0");
  for (int i = 0; i < 4; ++i) cluster.CreatePod(PodJson("a-" + std::to_string(i), "1", "a"));

  std::map<std::string, ServerPod> pods;
  ASSERT_TRUE(WaitUntil(
      [&] {
        pods = cluster.Pods();
        for (int i = 0; i < 4; ++i) {
          const ServerPod& p = pods["a-" + std::to_string(i)];
          if (p.node.empty() || p.reservation_uid.empty()) return false;
        }
        return pods["huge"].scheduled_reason == "Unschedulable";
      },
      60s))
      << "huge: " << pods["huge"].scheduled_reason << "; a-0 node=" << pods["a-0"].node;
  ASSERT_TRUE(WaitUntil([&] { return phase("short") == "Failed"; }, 60s))
      << "the expiry status write was not retried: short is " << phase("short");

  // Deleting r-0 removes its uid from the pods that allocated it (JSON patches under faults).
  auto r0 = cluster.Reservation("r-0");
  ASSERT_TRUE(r0);
  const std::string r0_uid(json::GetString(*r0, {"metadata", "uid"}));
  int in_r0 = 0;
  for (const auto& [name, p] : pods) in_r0 += p.reservation_uid == r0_uid;
  cluster.DeleteReservation("r-0");
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& [name, p] : cluster.Pods()) {
          if (p.reservation_uid == r0_uid) return false;
        }
        return true;
      },
      60s))
      << "the annotation removal was not retried";
  EXPECT_GE(in_r0, 1) << "r-0 should have had owners (allocateOnce false, 4 pods for 4 reservations)";
  const int faults = cluster.OtherAnswers(409) + cluster.OtherAnswers(500) + cluster.PostAnswers(409) +
                     cluster.PostAnswers(500);
  EXPECT_GE(faults, 3) << "too few injected faults to prove anything";
  std::printf("write faults: %d writes answered 409/500 (bindings %d)\n", faults,
              cluster.PostAnswers(409) + cluster.PostAnswers(500));
  cluster.StopManager();
}

}  // namespace
}  // namespace berth::controllers::testing
