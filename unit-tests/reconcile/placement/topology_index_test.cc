// Tests for TopologyIndex (topology_index.h) and for the per-domain counts PodTopologySpread and
// InterPodAffinity build on it: after any sequence of node adds, relabels and removals and of pod
// adds and removals, the incremental state answers exactly what a count from scratch gives.
#include "reconcile/placement/topology_index.h"

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

using internal::TopologyIndex;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kRack[] = "rack";

// ExpectMatchesScratch compares every key's domains with the labels of the present nodes.
void ExpectMatchesScratch(const TopologyIndex& index, const std::map<int, LabelMap>& present, int max_node,
                          const std::set<std::string>& keys) {
  for (const std::string& key : keys) {
    const TopologyIndex::Key* k = index.Find(key);
    std::map<std::string, int> nodes_in;  // value → present nodes, from scratch
    for (int node = 0; node <= max_node; ++node) {
      auto it = present.find(node);
      std::optional<std::string> value;
      if (it != present.end()) {
        if (auto label = it->second.find(key); label != it->second.end()) value = label->second;
      }
      const int32_t id = k == nullptr ? -1 : k->DomainOf(node);
      if (!value) {
        EXPECT_EQ(id, -1) << "node " << node << " key " << key;
        continue;
      }
      ++nodes_in[*value];
      ASSERT_NE(k, nullptr) << key;
      ASSERT_GE(id, 0) << "node " << node << " key " << key;
      EXPECT_EQ(k->Value(id), *value);
      EXPECT_EQ(k->DomainId(*value), id);
    }
    for (int32_t id = 0; k != nullptr && id < k->Domains(); ++id) {
      auto it = nodes_in.find(k->Value(id));
      EXPECT_EQ(k->NodesIn(id), it == nodes_in.end() ? 0 : it->second) << key << "=" << k->Value(id);
    }
  }
}

TEST(TopologyIndex, IncrementalDomainsEqualAFromScratchCountAfterAddsRelabelsAndRemoves) {
  std::mt19937 rng(7);
  TopologyIndex index;
  std::map<int, LabelMap> present;
  const std::set<std::string> keys = {kZone, kRack, "kubernetes.io/hostname", "never"};
  constexpr int kNodes = 40;
  auto random_labels = [&](int node) {
    LabelMap labels = {{"kubernetes.io/hostname", "n" + std::to_string(node)}};
    if (rng() % 4 != 0) labels[kZone] = "z" + std::to_string(rng() % 4);  // some nodes lack a zone
    if (rng() % 2 == 0) labels[kRack] = "r" + std::to_string(rng() % 6);
    return labels;
  };
  for (int step = 0; step < 2000; ++step) {
    const int node = static_cast<int>(rng() % kNodes);
    auto it = present.find(node);
    if (it != present.end() && rng() % 3 == 0) {
      index.RemoveNode(node, it->second);
      present.erase(it);
    } else {
      LabelMap labels = random_labels(node);
      index.SetNode(node, it == present.end() ? nullptr : &it->second, labels);
      present[node] = labels;
    }
    if (step % 50 == 0) ExpectMatchesScratch(index, present, kNodes, keys);
  }
  ExpectMatchesScratch(index, present, kNodes, keys);
  EXPECT_EQ(index.Find("never"), nullptr);
}

TEST(TopologyIndex, AValueKeepsItsIdWhenItsLastNodeLeavesAndComesBack) {
  TopologyIndex index;
  index.SetNode(3, nullptr, {{kZone, "a"}});
  const int32_t id = index.Find(kZone)->DomainId("a");
  index.RemoveNode(3, {{kZone, "a"}});
  EXPECT_EQ(index.Find(kZone)->DomainOf(3), -1);
  EXPECT_EQ(index.Find(kZone)->NodesIn(id), 0);
  index.SetNode(5, nullptr, {{kZone, "a"}});
  EXPECT_EQ(index.Find(kZone)->DomainOf(5), id);
  EXPECT_EQ(index.Find(kZone)->NodesIn(id), 1);
  EXPECT_EQ(index.Find(kZone)->DomainOf(1000), -1);  // beyond every node seen
}

// ---- The filters' counts against a from-scratch model, through ClusterSnapshot ----

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;

struct ModelPod {
  std::string node;
  std::string app;
  bool repels_web_by_zone = false;  // required anti-affinity against app=web over zones
};

PodSpecView MakePod(const std::string& uid, const ModelPod& m) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = uid;
  p.uid = uid;
  p.node_name = m.node;
  p.labels = {{"app", m.app}};
  p.requests = {{"cpu", 1}, {"memory", 1}};
  if (m.repels_web_by_zone) {
    auto affinity = std::make_shared<PodAffinity>();
    PodAffinityTerm term;
    term.selector = *shim::LabelSelector::Parse("app=web");
    term.namespaces = {"default"};
    term.topology_key = kZone;
    affinity->required_anti_affinity.push_back(term);
    p.pod_affinity = affinity;
  }
  return p;
}

// Incoming: app=web, DoNotSchedule zone spread of app=web with maxSkew 1, and a required
// anti-affinity against app=db per node.
PodSpecView Incoming() {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = "incoming";
  p.uid = "incoming-uid";
  p.labels = {{"app", "web"}};
  p.requests = {{"cpu", 1}, {"memory", 1}};
  TopologySpreadConstraint spread;
  spread.max_skew = 1;
  spread.topology_key = kZone;
  spread.do_not_schedule = true;
  spread.selector = *shim::LabelSelector::Parse("app=web");
  p.topology_spread = {spread};
  auto affinity = std::make_shared<PodAffinity>();
  PodAffinityTerm term;
  term.selector = *shim::LabelSelector::Parse("app=db");
  term.namespaces = {"default"};
  term.topology_key = "kubernetes.io/hostname";
  affinity->required_anti_affinity.push_back(term);
  p.pod_affinity = affinity;
  return p;
}

// ScratchVerdict: what the filters must say for `node`, counted from the model alone.
std::string ScratchVerdict(const std::string& node, const std::map<std::string, LabelMap>& nodes,
                           const std::map<std::string, ModelPod>& pods) {
  std::map<std::string, int64_t> web_per_zone;  // every zone of a present node, possibly 0
  for (const auto& [name, labels] : nodes) {
    if (auto z = labels.find(kZone); z != labels.end()) web_per_zone.emplace(z->second, 0);
  }
  std::set<std::string> repelled_zones;
  bool db_here = false;
  for (const auto& [uid, pod] : pods) {
    auto n = nodes.find(pod.node);
    if (n == nodes.end()) continue;  // on a node that is gone: not counted
    auto z = n->second.find(kZone);
    if (pod.app == "web" && z != n->second.end()) web_per_zone[z->second]++;
    if (pod.repels_web_by_zone && z != n->second.end()) repelled_zones.insert(z->second);
    if (pod.app == "db" && pod.node == node) db_here = true;
  }
  const LabelMap& labels = nodes.at(node);
  auto zone = labels.find(kZone);
  if (zone == labels.end()) return std::string(kReasonTopologySpreadMissingLabel);
  int64_t min = INT32_MAX;
  for (const auto& [z, count] : web_per_zone) min = std::min(min, count);
  if (web_per_zone[zone->second] + 1 - min > 1) return std::string(kReasonTopologySpread);
  if (db_here) return std::string(kReasonPodAntiAffinity);
  if (repelled_zones.contains(zone->second)) return std::string(kReasonExistingAntiAffinity);
  return "";
}

TEST(TopologyIndex, SpreadAndAntiAffinityVerdictsEqualAFromScratchCountAfterRandomChanges) {
  std::mt19937 rng(11);
  ClusterSnapshot snap;
  std::map<std::string, LabelMap> nodes;  // present nodes
  std::map<std::string, ModelPod> pods;
  constexpr int kNodes = 12;
  const std::vector<std::string> apps = {"web", "web", "db", "other"};
  auto node_view = [](const std::string& name, const LabelMap& labels) {
    NodeView n;
    n.name = name;
    n.labels = labels;
    n.allocatable = {{"cpu", 1000000}, {"memory", 1000 * kGi}, {"pods", 1000000}};
    return n;
  };
  int next_pod = 0;
  int checked = 0;
  for (int step = 0; step < 1500; ++step) {
    const int op = static_cast<int>(rng() % 10);
    const std::string name = "n" + std::to_string(rng() % kNodes);
    if (op == 0) {  // add or relabel a node (some without a zone)
      LabelMap labels = {{"kubernetes.io/hostname", name}};
      if (rng() % 5 != 0) labels[kZone] = "z" + std::to_string(rng() % 3);
      snap.UpsertNode(node_view(name, labels));
      nodes[name] = labels;
    } else if (op == 1 && nodes.contains(name) && rng() % 3 == 0) {  // remove a node
      snap.RemoveNode(name);
      nodes.erase(name);
    } else if (op <= 6 && nodes.contains(name)) {  // bind a pod there
      const std::string uid = "p" + std::to_string(next_pod++);
      ModelPod m{name, apps[rng() % apps.size()], false};
      m.repels_web_by_zone = m.app == "other" && rng() % 4 == 0;
      snap.UpsertPod(MakePod(uid, m));
      pods[uid] = m;
    } else if (!pods.empty()) {  // a pod leaves
      auto it = pods.begin();
      std::advance(it, rng() % pods.size());
      snap.RemovePod(it->first);
      pods.erase(it);
    }
    if (step % 25 != 0 || nodes.empty()) continue;
    std::vector<std::string_view> names;
    for (const auto& [n, labels] : nodes) names.push_back(n);
    auto evaluations = snap.EvaluateOnNodes(Incoming(), names);
    ASSERT_EQ(evaluations.size(), names.size());
    for (size_t k = 0; k < names.size(); ++k) {
      const std::string expected = ScratchVerdict(std::string(names[k]), nodes, pods);
      const auto& e = evaluations[k];
      ASSERT_TRUE(e.known);
      if (expected.empty()) {
        EXPECT_TRUE(e.fits) << "step " << step << " node " << names[k] << ": " << e.error.Message();
      } else {
        EXPECT_FALSE(e.fits) << "step " << step << " node " << names[k] << " should fail with " << expected;
        EXPECT_EQ(e.error.reasons.count(expected), 1u)
            << "step " << step << " node " << names[k] << ": " << e.error.Message() << " (want " << expected << ")";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace berth::reconcile::placement
