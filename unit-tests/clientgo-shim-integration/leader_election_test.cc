// Two LeaderElectors against one in-process kubesim (short durations: 2 s / 1.5 s / 0.3 s).
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/leader/leader_elector.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;

struct Candidate {
  Registry registry;
  std::unique_ptr<LeaderElector> elector;
  std::atomic<int> started{0}, stopped{0};
  std::string Status() {
    const std::string page = registry.Render();
    const std::string prefix = "leader_election_master_status{name=\"berth-test\"} ";
    const size_t at = page.find(prefix);
    return at == std::string::npos ? "?" : page.substr(at + prefix.size(), 1);
  }
};

std::unique_ptr<Candidate> MakeCandidate(RestClientPtr rest, const std::string& id, bool release) {
  auto c = std::make_unique<Candidate>();
  LeaderElectionConfig cfg;
  cfg.rest = std::move(rest);
  cfg.lease_namespace = "kube-system";
  cfg.lease_name = "berth-test";
  cfg.identity = id;
  cfg.lease_duration = 2000ms;
  cfg.renew_deadline = 1500ms;
  cfg.retry_period = 300ms;
  cfg.release_on_cancel = release;
  cfg.metrics = &c->registry;
  Candidate* raw = c.get();
  cfg.callbacks.on_started_leading = [raw] { ++raw->started; };
  cfg.callbacks.on_stopped_leading = [raw] { ++raw->stopped; };
  auto e = LeaderElector::Create(std::move(cfg));
  EXPECT_TRUE(e) << e.error().message;
  c->elector = std::move(*e);
  return c;
}

template <class Pred>
std::optional<std::chrono::milliseconds> TimeUntil(Pred pred, std::chrono::milliseconds limit) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < limit) {
    if (pred()) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - start);
    }
    std::this_thread::sleep_for(5ms);
  }
  return std::nullopt;
}

void ExpectExactlyOneLeaderFor(Candidate& a, Candidate& b, std::chrono::milliseconds span) {
  const auto end = std::chrono::steady_clock::now() + span;
  while (std::chrono::steady_clock::now() < end) {
    ASSERT_FALSE(a.elector->IsLeader() && b.elector->IsLeader()) << "split brain";
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_NE(a.elector->IsLeader(), b.elector->IsLeader());
}

TEST(LeaderElectionIntegrationTest, ExactlyOneLeadsAndAReleasedLeaseMovesWithinTheLeaseDuration) {
  kubesim::KubesimInstance sim(kubesim::KubesimOptions{});
  ASSERT_TRUE(sim.Start());
  auto a = MakeCandidate(testing::ClientFor(sim), "a", true);
  auto b = MakeCandidate(testing::ClientFor(sim), "b", true);
  a->elector->Start();
  ASSERT_TRUE(TimeUntil([&] { return a->elector->IsLeader(); }, 5000ms));
  b->elector->Start();
  ExpectExactlyOneLeaderFor(*a, *b, 2500ms);  // longer than a lease: renewals keep it with a
  EXPECT_TRUE(a->elector->IsLeader());
  EXPECT_EQ(a->Status(), "1");
  EXPECT_EQ(b->Status(), "0");
  EXPECT_EQ(b->elector->GetLeader(), "a");

  a->elector->Stop();  // clean shutdown: releases
  EXPECT_EQ(a->stopped.load(), 1);
  auto took = TimeUntil([&] { return b->elector->IsLeader(); }, 5000ms);
  ASSERT_TRUE(took);
  std::printf("released lease taken over after %lld ms\n", static_cast<long long>(took->count()));
  EXPECT_LT(*took, 2000ms) << "within the lease duration";
  EXPECT_EQ(b->Status(), "1");
  EXPECT_EQ(a->Status(), "0");

  ObjectClient client(testing::ClientFor(sim));
  auto lease = client.Get({.group = "coordination.k8s.io", .resource = "leases",
                           .ns = "kube-system", .name = "berth-test"});
  ASSERT_TRUE(lease);
  LeaderElectionRecord rec = RecordFromLease(*lease);
  EXPECT_EQ(rec.holder_identity, "b");
  EXPECT_EQ(rec.lease_transitions, 1);
  EXPECT_EQ(rec.lease_duration_seconds, 2);
  ASSERT_TRUE(rec.acquire_time && rec.renew_time);
  EXPECT_TRUE(ParseMicroTimestamp(json::GetString(*lease, {"spec", "renewTime"})))
      << "renewTime is MicroTime";
  b->elector->Stop();
  sim.Stop();
}

TEST(LeaderElectionIntegrationTest, AKilledLeaderIsReplacedOnlyAfterItsLeaseExpires) {
  kubesim::KubesimInstance sim(kubesim::KubesimOptions{});
  ASSERT_TRUE(sim.Start());
  auto a = MakeCandidate(testing::ClientFor(sim), "a", /*release=*/false);
  auto b = MakeCandidate(testing::ClientFor(sim), "b", true);
  a->elector->Start();
  ASSERT_TRUE(TimeUntil([&] { return a->elector->IsLeader(); }, 5000ms));
  b->elector->Start();
  ExpectExactlyOneLeaderFor(*a, *b, 700ms);
  a->elector->Stop();  // "kill": no release write
  auto took = TimeUntil([&] { return b->elector->IsLeader(); }, 10000ms);
  ASSERT_TRUE(took);
  std::printf("killed leader replaced after %lld ms\n", static_cast<long long>(took->count()));
  // b must wait out the 2 s lease as observed from its last change (minus the time since a's
  // last renewal, at most one retry period + jitter), and then gets it within a retry or two.
  EXPECT_GE(*took, 2000ms - 300ms * 22 / 10);
  EXPECT_LT(*took, 2000ms + 2 * 300ms * 22 / 10 + 500ms);
  EXPECT_EQ(b->Status(), "1");
  b->elector->Stop();
  sim.Stop();
}

}  // namespace
}  // namespace berth::shim
