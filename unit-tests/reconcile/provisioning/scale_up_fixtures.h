// unit-tests/reconcile/provisioning/scale_up_fixtures.h
//
// The scale-up suites' fixtures (scale_up_test.cc, scale_up_resume_test.cc): nodes, unfit pod
// sets and node groups; a fake cloud whose nodes register when the test says; and a Machine
// that runs best-effort-atomic-scale-up passes against it.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/conditions.h"
#include "reconcile/provisioning/scale_up.h"

namespace berth::reconcile::provisioning::scale_up_test {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

inline constexpr int64_t kCore = 1000;
inline const Time kT0 = Time{} + hours(24 * 365 * 50);

inline placement::NodeView Node(std::string name, int64_t cores) {
  placement::NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", int64_t{64} << 30}, {"pods", 110 * 1000}};
  return n;
}

inline UnfitPodSet Unfit(int64_t count, int64_t milli_cpu, int index = 0) {
  UnfitPodSet u;
  u.index = index;
  u.template_name = "t" + std::to_string(index);
  u.count = count;
  u.of = count;
  u.pod.namespace_name = "team";
  u.pod.requests = {{"cpu", milli_cpu}, {"pods", 1000}};
  return u;
}

inline NodeGroupInfo Group(std::string id, int64_t cores, int32_t target, int32_t max) {
  NodeGroupInfo g;
  g.id = id;
  g.max_size = max;
  g.target_size = target;
  g.template_node = Node(id + "-template", cores);
  return g;
}

// FakeCloud: node groups whose target moves on IncreaseSize; nodes register when the test says
// (into the pass's snapshot too, as a Node would reach the informer).
class FakeCloud : public NodeGroupPort {
 public:
  struct G {
    NodeGroupInfo info;
    std::vector<RegisteredNode> nodes;
  };
  std::map<std::string, G> groups;
  bool refuse = false;
  std::optional<int32_t> grant_at_most;
  bool fail_delete = false;
  int32_t late_increase = 0;  // applied by ApplyLate (a slow provider finishing after the deadline)
  std::vector<std::string> calls;
  void ApplyLate(const std::string& id) { groups.at(id).info.target_size += late_increase; }

  std::expected<std::vector<NodeGroupInfo>, std::string> NodeGroups() override {
    std::vector<NodeGroupInfo> out;
    for (auto& [id, g] : groups) out.push_back(g.info);
    return out;
  }
  std::expected<int32_t, std::string> TargetSize(const std::string& id) override {
    return groups.at(id).info.target_size;
  }
  bool time_out = false;  // the call fails with DeadlineExceeded, yet takes effect
  std::expected<void, IncreaseError> IncreaseSize(const std::string& id, int32_t delta) override {
    calls.push_back("increase " + id + " " + std::to_string(delta));
    if (refuse) return std::unexpected(IncreaseError{"rpc error: code = ResourceExhausted desc = out of stock"});
    if (time_out) {
      late_increase = delta;
      return std::unexpected(IncreaseError{"rpc NodeGroupIncreaseSize: DeadlineExceeded: ", true});
    }
    groups.at(id).info.target_size += grant_at_most ? std::min(delta, *grant_at_most) : delta;
    return {};
  }
  std::expected<void, std::string> DecreaseTargetSize(const std::string& id, int32_t delta) override {
    calls.push_back("decrease " + id + " " + std::to_string(delta));
    groups.at(id).info.target_size += delta;
    return {};
  }
  std::expected<void, std::string> DeleteNodes(const std::string& id, const std::vector<RegisteredNode>& nodes) override {
    std::string names;
    for (const auto& n : nodes) names += " " + n.name;
    calls.push_back("delete " + id + names);
    if (fail_delete) return std::unexpected("rpc error: code = Unavailable");
    G& g = groups.at(id);
    for (const auto& n : nodes) {
      std::erase_if(g.nodes, [&](const RegisteredNode& r) { return r.name == n.name; });
      --g.info.target_size;
    }
    return {};
  }
  std::expected<std::vector<RegisteredNode>, std::string> RegisteredNodes(const std::string& id) override {
    return groups.at(id).nodes;
  }
};

struct Machine {
  FakeCloud cloud;
  std::vector<std::pair<std::string, ScaleUpResult>> results;
  AtomicScaleUpProvisioner provisioner{cloud, {.registration_timeout = minutes(5)},
                                       [this](const std::string& g, ScaleUpResult r) { results.push_back({g, r}); }};
  placement::ClusterSnapshot snapshot;
  std::set<std::string> node_names;
  PodTemplateView tmpl;
  ProvisioningOptions options;
  PassInput input;

  Machine() {
    AddNode(Node("existing", 4));
    FakeCloud::G g;
    g.info = Group("pool", 4, 0, 10);
    cloud.groups["pool"] = g;
    tmpl.namespace_name = "team";
    tmpl.name = "three-cpu";
    tmpl.containers.push_back({{{"cpu", 3 * kCore}}, {}});
    input.template_lookup = [this](std::string_view, std::string_view name) -> const PodTemplateView* {
      return name == tmpl.name ? &tmpl : nullptr;
    };
    input.node_unschedulable = [this](std::string_view n) -> std::optional<bool> {
      if (!node_names.contains(std::string(n))) return std::nullopt;
      return false;
    };
    input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &provisioner;
  }
  void AddNode(const placement::NodeView& n) {
    snapshot.UpsertNode(n);
    node_names.insert(n.name);
  }
  void Register(int count) {
    FakeCloud::G& g = cloud.groups["pool"];
    for (int i = 0; i < count; ++i) {
      std::string name = "pool-" + std::to_string(g.nodes.size());
      g.nodes.push_back({name, "fake://" + name});
      AddNode(Node(name, 4));
    }
  }
  ProvisioningRequestView Request(int64_t count) {
    ProvisioningRequestView r;
    r.namespace_name = "team";
    r.name = "atomic";
    r.uid = "uid-atomic";
    r.generation = 1;
    r.creation_time = kT0;
    r.class_name = std::string(kClassBestEffortAtomicScaleUp);
    r.pod_sets = {{"three-cpu", count}};
    return r;
  }
  RequestDecision Pass(ProvisioningRequestView& r, Time now) {
    input.requests = {r};
    auto out = DecidePass(input, snapshot, now, options);
    EXPECT_EQ(out.size(), 1u);
    if (out.front().conditions) r.conditions = *out.front().conditions;
    return out.front();
  }
};

}  // namespace berth::reconcile::provisioning::scale_up_test
