// Two Managers with leader election and a trivial ConfigMap controller against one kubesim:
// only the leader reconciles; stopping it hands the work to the other within the lease duration,
// and each manager's /metrics shows leader_election_master_status.
#include <thread>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include "clientgo-shim/manager/manager.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
namespace http = boost::beast::http;

std::pair<int, std::string> HttpGet(uint16_t port, const std::string& target) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return {0, ""};
  http::request<http::string_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "localhost");
  http::write(s, req, ec);
  boost::beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(s, buf, res, ec);
  if (ec) return {0, ""};
  return {static_cast<int>(res.result_int()), res.body()};
}

template <class Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

struct Replica {
  std::unique_ptr<Manager> manager;
  std::atomic<int> reconciles{0};

  bool MetricsShow(const std::string& value) {
    auto page = HttpGet(manager->metrics_port(), "/metrics");
    return page.second.find("leader_election_master_status{name=\"berth-mgr\"} " + value + "\n") !=
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
  ASSERT_TRUE(WaitFor([&] { return a->reconciles.load() >= 1; }, 10000ms));
  EXPECT_TRUE(a->manager->IsLeader());
  ASSERT_TRUE(b->manager->Start());
  // The standby syncs its caches (ready) but runs no controller.
  ASSERT_TRUE(WaitFor([&] { return HttpGet(b->manager->probe_port(), "/readyz").first == 200; },
                      10000ms));
  const auto window_end = std::chrono::steady_clock::now() + 1000ms;
  while (std::chrono::steady_clock::now() < window_end) {
    ASSERT_FALSE(a->manager->IsLeader() && b->manager->IsLeader()) << "split brain";
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(b->reconciles.load(), 0);
  EXPECT_FALSE(b->manager->ControllersStarted());
  EXPECT_TRUE(a->MetricsShow("1"));
  EXPECT_TRUE(b->MetricsShow("0"));
  EXPECT_EQ(HttpGet(a->manager->probe_port(), "/healthz").second, "ok");

  const auto stop_at = std::chrono::steady_clock::now();
  a->manager->Stop();  // drains the controller, then releases the Lease
  ASSERT_TRUE(WaitFor([&] { return b->reconciles.load() >= 1; }, 5000ms));
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

}  // namespace
}  // namespace berth::shim
