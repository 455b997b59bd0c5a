// An informer under kubesim's fault injection: 10% of requests fail with 500/429/409, watches
// are cut every 2 s, and the watch history keeps only 20 events. Each round writes pods, then
// more than 20 ConfigMaps, then stays quiet past the next watch cut: with no bookmark since the
// last pod event (bookmarks every 60 s, the default), the resume RV has left the history, the
// server answers 410 Expired and the reflector must relist. The full final state (names, RVs,
// labels, nodeName) must match the server's.
#include <memory>
#include <random>

#include <gtest/gtest.h>

#include "clientgo-shim/informer/shared_informer.h"
#include "informer_test_support.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
using kubesim::KubesimInstance;
using kubesim::KubesimOptions;

// EveryPodRunning: the simulated kubelet has written the status of every pod on the server.
bool EveryPodRunning(KubesimInstance& sim) {
  auto list = sim.store().List("/pods", "", [](const kubesim::StoredObject&) { return true; }, 0, 0, "");
  if (!list) return false;
  for (const auto& o : list->items) {
    auto doc = json::Parse(o->json);
    if (!doc || json::GetString(*doc, {"status", "phase"}) != "Running") return false;
  }
  return true;
}

TEST(InformerFaultsTest, TheCacheConvergesToTheServerDespiteFaultsDropsAndExpiredWatches) {
  KubesimOptions o;
  o.nodes = 3;
  o.history_window = 20;
  o.faults.fault_rate = 0.1;
  o.faults.fault_codes = {500, 429, 409};
  o.faults.watch_drop_every = std::chrono::seconds(2);
  o.faults.seed = 42;
  KubesimInstance sim(o);
  auto port = sim.Start();
  ASSERT_TRUE(port) << port.error().message;
  auto client = ClientFor(sim);
  Writer w(sim);
  for (int i = 0; i < 40; ++i) w.Create("default", "seed-" + std::to_string(i), "node-" + std::to_string(i % 3));

  SharedInformerOptions io;
  io.list_watch.path = "/api/v1/pods";
  io.list_watch.page_size = 10;
  // Faster than client-go's 800 ms → 30 s so the test finishes quickly; the rules are the same.
  io.list_watch.backoff.initial = std::chrono::milliseconds(100);
  io.list_watch.backoff.cap = std::chrono::milliseconds(1000);
  io.rng_seed = 7;
  SharedInformer informer(client, io);
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(30)));

  std::mt19937 rng(5);
  int next = 0;
  std::vector<std::string> live;
  for (int i = 0; i < 40; ++i) live.push_back("seed-" + std::to_string(i));
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 30; ++k) {
      int op = static_cast<int>(rng() % 3);
      if (op == 0 || live.size() < 10) {
        std::string name = "p-" + std::to_string(next++);
        w.Create("default", name, "node-" + std::to_string(next % 3), "a" + std::to_string(next % 4));
        live.push_back(name);
      } else if (op == 1) {
        w.Relabel("default", live[rng() % live.size()], "r" + std::to_string(rng() % 100));
      } else {
        size_t idx = rng() % live.size();
        w.Delete("default", live[idx]);
        live.erase(live.begin() + static_cast<long>(idx));
      }
    }
    // Wait for the simulated kubelet's last pod status write (a fixed 300 ms was too short for a
    // loaded or TSan-slowed kubesim: a status write after the noise moves the pods' RV past it and
    // no 410 comes), then push the pods' last RV out of the 20-event history and stay quiet past
    // the next 2 s watch cut.
    ASSERT_TRUE(WaitUntil([&] { return EveryPodRunning(sim); }, std::chrono::seconds(30)))
        << "the simulated kubelet did not start every pod";
    w.Noise(25);
    std::this_thread::sleep_for(std::chrono::milliseconds(2300));
  }
  EXPECT_TRUE(EventuallyEqual(sim, informer.store(), std::chrono::seconds(60)));
  ReflectorStats s = informer.Stats();
  EXPECT_GE(s.watch_requests, 3u) << "watches were cut every 2 s";
  EXPECT_GE(s.relist_errors, 1u) << "the tiny history window should have forced a relist";
  EXPECT_GE(s.lists_completed, 2u);
  std::printf("faults: lists=%llu watches=%llu errors=%llu relist_errors=%llu last=%s\n",
              static_cast<unsigned long long>(s.lists_completed),
              static_cast<unsigned long long>(s.watch_requests),
              static_cast<unsigned long long>(s.errors),
              static_cast<unsigned long long>(s.relist_errors), s.last_error.c_str());
  informer.Stop();
  sim.Stop();
}

}  // namespace
}  // namespace berth::shim
