// The snapshot's compact pod entries: uid and name in one block the pods map's key views (an
// update re-keys the entry), requests and namespaces interned. Random upserts, moves, removals,
// detach/reattach keep every node's requested amounts equal to a recount, and victims read back
// the uid, name, namespace and start time each pod was last given.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

NodeView Node(const std::string& name) {
  NodeView n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}};
  n.allocatable = {{"cpu", 1'000'000}, {"memory", 1'000'000'000}, {"pods", 1'000'000}};
  return n;
}

TEST(SnapshotPodEntryTest, UpdatesRekeyAndKeepCountsAndVictimFieldsExact) {
  ClusterSnapshot snap;
  const int kNodes = 4;
  for (int n = 0; n < kNodes; ++n) snap.UpsertNode(Node("node-" + std::to_string(n)));
  struct Want {
    std::string node;
    std::string ns;
    int64_t cpu = 0;
    std::optional<Time> start;
  };
  std::map<std::string, Want> want;  // uid →
  std::mt19937 rng(3);
  const int64_t cpus[] = {0, 100, 250, 250, 500};  // repeated amounts share one interned vector
  for (int step = 0; step < 3000; ++step) {
    const int i = static_cast<int>(rng() % 40);
    // A uid longer than a short-string buffer, so a dangling key view would read freed memory.
    const std::string uid = "0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
    const int op = static_cast<int>(rng() % 10);
    if (op == 0) {
      snap.RemovePod(uid);
      want.erase(uid);
    } else if (op == 1 && want.contains(uid)) {
      ASSERT_TRUE(snap.DetachPod(uid));
      EXPECT_FALSE(snap.IsCounted(uid));
      snap.ReattachPod(uid);
    } else {
      PodSpecView p;
      p.uid = uid;
      p.name = "pod-with-a-long-name-" + std::to_string(i);
      p.namespace_name = "namespace-number-" + std::to_string(i % 3);
      p.node_name = "node-" + std::to_string(rng() % kNodes);
      const int64_t cpu = cpus[rng() % 5];
      if (cpu != 0) p.requests = {{"cpu", cpu}, {"memory", 1000}};
      if (rng() % 2 == 0) p.priority.start_time = Time(std::chrono::seconds(1'700'000'000 + step));
      snap.UpsertPod(p);
      want[uid] = Want{p.node_name, p.namespace_name, cpu, p.priority.start_time};
    }
    if (step % 100 != 99) continue;
    std::map<std::string, int64_t> cpu_on;
    for (const auto& [u, w] : want) {
      ASSERT_TRUE(snap.IsCounted(u)) << u;
      cpu_on[w.node] += w.cpu;
    }
    for (int n = 0; n < kNodes; ++n) {
      const std::string node = "node-" + std::to_string(n);
      auto usage = snap.Usage(node);
      ASSERT_TRUE(usage.has_value());
      const int64_t requested = usage->requested.contains("cpu") ? usage->requested.at("cpu") : 0;
      EXPECT_EQ(requested, cpu_on[node]) << node << " at step " << step;
      for (const VictimPod& v : snap.VictimsOn(node)) {
        auto it = want.find(v.uid);
        ASSERT_NE(it, want.end()) << v.uid;
        EXPECT_EQ(it->second.node, node);
        EXPECT_EQ(v.namespace_name, it->second.ns);
        EXPECT_EQ(v.name, "pod-with-a-long-name-" + std::to_string(std::stoi(v.uid.substr(7))));
        EXPECT_EQ(v.priority.start_time, it->second.start);
      }
    }
  }
}

}  // namespace
}  // namespace berth::reconcile::placement
