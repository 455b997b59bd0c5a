// Two Managers with leader election and a trivial ConfigMap controller against one kubesim:
// only the leader reconciles; stopping it hands the work to the other within the lease duration,
// and each manager's /metrics shows leader_election_master_status.
#include <algorithm>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/wait_for.h"
#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/metrics/http_fetch.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using testing::Fetch;
using ::berth::testing::WaitFor;

struct Replica {
  std::unique_ptr<Manager> manager;
  std::atomic<int> reconciles{0};

  bool MetricsShow(const std::string& value) {
    auto page = Fetch(manager->metrics_port(), "/metrics");
    return page.body.find("leader_election_master_status{name=\"berth-mgr\"} " + value + "\n") !=
           std::string::npos;
  }
};

std::unique_ptr<Replica> MakeReplica(kubesim::KubesimInstance& sim, const std::string& id) {
  auto r = std::make_unique<Replica>();
  ManagerOptions o;
  o.rest = testing::ClientFor(sim);
  o.metrics_bind_address = "127.0.0.1:0";
  o.health_probe_bind_address = "127.0.0.1:0";
  o.leader_election = true;
  o.leader_election_namespace = "kube-system";
  o.leader_election_id = "berth-mgr";
  o.leader_election_identity = id;
  o.lease_duration = 2000ms;
  o.renew_deadline = 1500ms;
  o.retry_period = 300ms;
  auto m = Manager::Create(std::move(o));
  EXPECT_TRUE(m) << m.error().message;
  r->manager = std::move(*m);
  Replica* raw = r.get();
  auto c = r->manager->AddController({.name = "configmaps"}, [raw](const std::string&) {
    ++raw->reconciles;
    return ReconcileResult::Done();
  });
  EXPECT_TRUE(c);
  Controller* ctrl = *c;
  auto informer = r->manager->informers().InformerFor({"/api/v1/namespaces/default/configmaps"});
  informer->AddEventHandler(
      {.on_add = [ctrl](const ObjectPtr& o, bool) { ctrl->queue().Add(std::string(o->Key())); },
       .on_update = [ctrl](const ObjectPtr&, const ObjectPtr& o) {
         ctrl->queue().Add(std::string(o->Key()));
       },
       .on_delete = {}});
  return r;
}

TEST(ManagerLeaderIntegrationTest, OnlyTheLeaderReconcilesAndStoppingItHandsOverWithinTheLease) {
  kubesim::KubesimInstance sim(kubesim::KubesimOptions{});
  ASSERT_TRUE(sim.Start());
  {
    ObjectClient client(testing::ClientFor(sim));
    auto cm = json::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-1"}})");
    ASSERT_TRUE(client.Create({.resource = "configmaps", .ns = "default"}, *cm));
  }
  auto a = MakeReplica(sim, "replica-a");
  auto b = MakeReplica(sim, "replica-b");
  ASSERT_TRUE(a->manager->Start());
  ASSERT_TRUE(WaitFor([&] { return a->reconciles.load() >= 1; }, 10000ms, 5ms));
  EXPECT_TRUE(a->manager->IsLeader());
  ASSERT_TRUE(b->manager->Start());
  // The standby syncs its caches (ready) but runs no controller.
  ASSERT_TRUE(WaitFor([&] { return Fetch(b->manager->probe_port(), "/readyz").status == 200; },
                      10000ms, 5ms));
  const auto window_end = std::chrono::steady_clock::now() + 1000ms;
  while (std::chrono::steady_clock::now() < window_end) {
    ASSERT_FALSE(a->manager->IsLeader() && b->manager->IsLeader()) << "split brain";
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(b->reconciles.load(), 0);
  EXPECT_FALSE(b->manager->ControllersStarted());
  EXPECT_TRUE(a->MetricsShow("1"));
  EXPECT_TRUE(b->MetricsShow("0"));
  EXPECT_EQ(Fetch(a->manager->probe_port(), "/healthz").body, "ok");

  const auto stop_at = std::chrono::steady_clock::now();
  a->manager->Stop();  // drains the controller, then releases the Lease
  ASSERT_TRUE(WaitFor([&] { return b->reconciles.load() >= 1; }, 5000ms, 5ms));
  const auto took = std::chrono::steady_clock::now() - stop_at;
  std::printf("standby manager reconciled %lld ms after the leader stopped\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  EXPECT_LT(took, 2000ms);
  EXPECT_TRUE(b->manager->IsLeader());
  EXPECT_TRUE(b->MetricsShow("1"));
  b->manager->Stop();
  EXPECT_TRUE(b->manager->Wait());
  sim.Stop();
}

// LeaderElectionEvents: "<reason> <involvedObject kind/name uid> <source.component>: <message>" of
// every Event in kube-system with reason LeaderElection, oldest first.
std::vector<std::string> LeaderElectionEvents(kubesim::KubesimInstance& sim) {
  ObjectClient client(testing::ClientFor(sim));
  auto list = client.List({.resource = "events", .ns = "kube-system"});
  EXPECT_TRUE(list) << list.error().message;
  std::vector<std::pair<std::string, std::string>> found;  // (firstTimestamp+name, line)
  if (!list) return {};
  for (const auto& e : (*list)["items"].GetArray()) {
    if (json::GetString(e, {"reason"}) != "LeaderElection") continue;
    std::string line = std::string(json::GetString(e, {"type"})) + " " +
                       std::string(json::GetString(e, {"involvedObject", "apiVersion"})) + " " +
                       std::string(json::GetString(e, {"involvedObject", "kind"})) + "/" +
                       std::string(json::GetString(e, {"involvedObject", "name"})) + " uid=" +
                       std::string(json::GetString(e, {"involvedObject", "uid"})) + " " +
                       std::string(json::GetString(e, {"source", "component"})) + ": " +
                       std::string(json::GetString(e, {"message"}));
    found.emplace_back(std::string(json::GetString(e, {"firstTimestamp"})) + " " +
                           std::string(json::GetString(e, {"metadata", "name"})),
                       line);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> lines;
  for (auto& [key, line] : found) lines.push_back(std::move(line));
  return lines;
}

// client-go's LeaseLock.RecordEvent, as controller-runtime wires it: a Normal Event with reason
// LeaderElection on the Lease, from a recorder whose component is the identity, when a replica
// becomes leader and when it stops leading, so `kubectl get events` and `kubectl describe lease`
// tell the hand-overs.
TEST(ManagerLeaderIntegrationTest, BecomingAndStoppingLeaderAreLeaderElectionEventsOnTheLease) {
  kubesim::KubesimInstance sim(kubesim::KubesimOptions{});
  ASSERT_TRUE(sim.Start());
  auto a = MakeReplica(sim, "replica-a");
  auto b = MakeReplica(sim, "replica-b");
  ASSERT_TRUE(a->manager->Start());
  ASSERT_TRUE(WaitFor([&] { return a->manager->IsLeader(); }, 10000ms, 5ms));
  ASSERT_TRUE(b->manager->Start());
  ObjectClient client(testing::ClientFor(sim));
  auto lease = client.Get({.group = "coordination.k8s.io", .version = "v1", .resource = "leases",
                           .ns = "kube-system", .name = "berth-mgr"});
  ASSERT_TRUE(lease) << lease.error().message;
  const std::string uid(json::GetString(*lease, {"metadata", "uid"}));
  ASSERT_FALSE(uid.empty());
  const std::string on_lease = "Normal coordination.k8s.io/v1 Lease/berth-mgr uid=" + uid + " ";
  ASSERT_TRUE(WaitFor([&] { return LeaderElectionEvents(sim).size() == 1; }, 5000ms, 5ms));
  EXPECT_EQ(LeaderElectionEvents(sim),
            std::vector<std::string>{on_lease + "replica-a: replica-a became leader"})
      << "a standby records nothing";

  a->manager->Stop();
  ASSERT_TRUE(WaitFor([&] { return b->manager->IsLeader(); }, 5000ms, 5ms));
  ASSERT_TRUE(WaitFor([&] { return LeaderElectionEvents(sim).size() == 3; }, 5000ms, 5ms));
  EXPECT_EQ(LeaderElectionEvents(sim), (std::vector<std::string>{
                                           on_lease + "replica-a: replica-a became leader",
                                           on_lease + "replica-a: replica-a stopped leading",
                                           on_lease + "replica-b: replica-b became leader",
                                       }));
  b->manager->Stop();
  sim.Stop();
}

}  // namespace
}  // namespace berth::shim
