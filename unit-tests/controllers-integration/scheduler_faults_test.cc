// berth's scheduler against kubesim with 20% of the pods/binding requests failing (409, 500 or
// 429; kubesim --fault-target POST:pods/binding): every pod ends bound exactly once (one 201 per
// pod in kubesim's audit log), every owner pod inside a reservation, no reservation holding more
// than it reserves and no node above its allocatable.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "scheduler_test_support.h"

namespace berth::controllers::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kNodes = 3;
constexpr int kReservations = 6;   // 2 cpu each (nodes have 8)
constexpr int kOwnerPods = 24;     // 500m each: exactly fill the reservations
constexpr int kOtherPods = 12;     // 500m each, no reservation

class BindingFaultsTest : public ::testing::TestWithParam<int> {};

TEST_P(BindingFaultsTest, EveryPodIsBoundExactlyOnceAndNoReservationIsOverAllocated) {
  const int code = GetParam();
  const std::string audit = (std::filesystem::temp_directory_path() /
                             ("berth-binding-faults-" + std::to_string(code) + "-" + std::to_string(::getpid()) + ".log"))
                                .string();
  std::filesystem::remove(audit);
  kubesim::KubesimOptions o;
  o.nodes = kNodes;
  o.node_cpu = "8";
  o.audit_log = audit;
  o.faults.fault_rate = 0.2;
  o.faults.fault_codes = {code};
  o.faults.seed = 11;
  o.faults.targets = {*kubesim::ParseFaultTarget("POST:pods/binding")};
  Cluster cluster(o);
  cluster.Start();
  for (int j = 0; j < kReservations; ++j) {
    cluster.CreateReservation(ReservationJson("rsv-" + std::to_string(j), "2", "app-" + std::to_string(j % 3), R"("ttl":"0s",)"));
  }
  cluster.StartManager(/*lifecycle=*/true);
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int j = 0; j < kReservations; ++j) {
          auto r = cluster.Reservation("rsv-" + std::to_string(j));
          if (!r || json::GetString(*r, {"status", "phase"}) != "Available") return false;
        }
        return true;
      },
      30s))
      << "the reservations were not placed";
  for (int i = 0; i < kOwnerPods; ++i) {
    cluster.CreatePod(PodJson("owner-" + std::to_string(i), "500m", "app-" + std::to_string(i % 3)));
  }
  for (int i = 0; i < kOtherPods; ++i) cluster.CreatePod(PodJson("other-" + std::to_string(i), "500m", "other"));

  std::map<std::string, ServerPod> pods;
  bool all_bound = WaitUntil(
      [&] {
        pods = cluster.Pods();
        if (pods.size() != kOwnerPods + kOtherPods) return false;
        for (const auto& [name, p] : pods) {
          if (p.node.empty()) return false;
        }
        return true;
      },
      90s);
  int unbound = 0;
  for (const auto& [name, p] : pods) unbound += p.node.empty();
  ASSERT_TRUE(all_bound) << unbound << " of " << pods.size() << " pods were never bound";

  // Every owner pod inside a reservation (failed bindings leaked no assumed capacity), no
  // reservation over-allocated, no node overcommitted.
  std::map<std::string, int64_t> per_reservation, per_node;
  std::set<std::string> reservation_uids;
  for (int j = 0; j < kReservations; ++j) {
    auto r = cluster.Reservation("rsv-" + std::to_string(j));
    ASSERT_TRUE(r);
    reservation_uids.insert(std::string(json::GetString(*r, {"metadata", "uid"})));
  }
  for (const auto& [name, p] : pods) {
    per_node[p.node] += p.milli_cpu;
    if (name.starts_with("owner-")) {
      EXPECT_TRUE(reservation_uids.contains(p.reservation_uid)) << name << " is not in a reservation";
      per_reservation[p.reservation_uid] += p.milli_cpu;
    } else {
      EXPECT_TRUE(p.reservation_uid.empty()) << name;
    }
  }
  for (const auto& [uid, cpu] : per_reservation) EXPECT_LE(cpu, 2000) << "reservation " << uid << " over-allocated";
  for (const auto& [node, cpu] : per_node) EXPECT_LE(cpu, 8000) << "node " << node << " overcommitted";

  // Exactly one successful binding per pod (the audit log records what reached the handler; the
  // injected faults are answered before it), and the faults really happened: only bindings are
  // targeted, so every POST answered `code` was one.
  std::ifstream in(audit);
  std::map<std::string, int> created;
  int handler_bindings = 0;
  for (std::string line; std::getline(in, line);) {
    auto doc = json::Parse(line);
    if (!doc || json::GetString(*doc, {"subresource"}) != "binding") continue;
    ++handler_bindings;
    const json::Value* c = json::Find(*doc, {"code"});
    if (c && c->IsInt() && c->GetInt() == 201) created[std::string(json::GetString(*doc, {"name"}))]++;
  }
  EXPECT_EQ(created.size(), pods.size());
  for (const auto& [name, n] : created) EXPECT_EQ(n, 1) << name << " bound " << n << " times";
  EXPECT_GE(cluster.PostAnswers(code), 3) << "too few injected faults to prove anything";
  std::printf("fault %d: %zu pods bound, %d bindings answered %d, %d binding requests reached the handler\n", code,
              pods.size(), cluster.PostAnswers(code), code, handler_bindings);
  cluster.StopManager();
  std::filesystem::remove(audit);
}

INSTANTIATE_TEST_SUITE_P(Codes, BindingFaultsTest, ::testing::Values(409, 500, 429),
                         [](const ::testing::TestParamInfo<int>& info) { return "Code" + std::to_string(info.param); });

}  // namespace
}  // namespace berth::controllers::testing
