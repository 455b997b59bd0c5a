// reconcile/placement/snapshot_resource_policy.cc
//
// ClusterSnapshot's ResourcePolicy bookkeeping. Counts change by ±1 per unit on every pod that
// starts or stops counting (CountPod, which every bind, assumption, forget and delete goes
// through), so a placement never scans pods. A policy edit or a node label change that moves a
// node between units recounts that policy once from the counted pods.
#include <algorithm>

#include "reconcile/placement/schedule_internal.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

using internal::PodEntry;
using internal::PolicyEntry;

namespace {

std::string PolicyKey(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key.append("/").append(name);
  return key;
}

}  // namespace

void ClusterSnapshot::State::RefreshPolicyRow(PolicyEntry& policy, int node) {
  if (node >= static_cast<int>(policy.node_units.size())) policy.node_units.resize(node + 1);
  std::vector<int>& row = policy.node_units[node];
  row.clear();
  const NodeView& view = nodes[node].view;
  for (size_t u = 0; u < policy.view.units.size(); ++u) {
    if (UnitMatchesNode(policy.view.units[u].node_selector, view.name, view.labels)) {
      row.push_back(static_cast<int>(u));
    }
  }
}

void ClusterSnapshot::State::CountPolicy(PolicyEntry& policy, const PodEntry& pod, int sign) {
  if (pod.node < 0) return;
  if (pod.member.terminating && policy.view.ignore_terminating_pod) return;
  if (!PolicySelectsPod(policy.view, pod.member.namespace_name, *pod.member.labels)) return;
  if (pod.node >= static_cast<int>(policy.node_units.size())) RefreshPolicyRow(policy, pod.node);
  const std::vector<int>& row = policy.node_units[pod.node];
  if (row.empty()) return;
  std::vector<int32_t>& counts = policy.counts[GroupKey(policy.view, *pod.member.labels)];
  counts.resize(policy.view.units.size(), 0);
  for (int u : row) counts[u] += sign;
}

void ClusterSnapshot::State::CountPolicies(const PodEntry& pod, int sign) {
  auto it = policies_by_namespace.find(pod.member.namespace_name);
  if (it == policies_by_namespace.end()) return;
  for (PolicyEntry* policy : it->second) CountPolicy(*policy, pod, sign);
}

void ClusterSnapshot::State::RebuildPolicy(PolicyEntry& policy) {
  policy.node_units.clear();
  policy.counts.clear();
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) RefreshPolicyRow(policy, i);
  for (const auto& [uid, pod] : pods) {
    if (pod.member.namespace_name == policy.view.namespace_name) CountPolicy(policy, pod, +1);
  }
}

void ClusterSnapshot::State::RefreshPoliciesForNode(int node) {
  for (auto& [key, policy] : policies) {
    std::vector<int> before =
        node < static_cast<int>(policy->node_units.size()) ? policy->node_units[node] : std::vector<int>{};
    const bool known = node < static_cast<int>(policy->node_units.size());
    RefreshPolicyRow(*policy, node);
    // Pods on the node counted under the old membership: recount the policy (label changes that
    // move a node between units are rare).
    if (known && before != policy->node_units[node]) RebuildPolicy(*policy);
  }
}

void ClusterSnapshot::UpsertResourcePolicy(const ResourcePolicyView& view) {
  State& s = *state_;
  const std::string key = PolicyKey(view.namespace_name, view.name);
  auto it = s.policies.find(key);
  if (it == s.policies.end()) {
    it = s.policies.emplace(key, std::make_unique<PolicyEntry>()).first;
    it->second->view.name = view.name;  // the namespace list is kept in name order
    auto& list = s.policies_by_namespace[view.namespace_name];
    list.push_back(it->second.get());
    std::sort(list.begin(), list.end(),
              [](const PolicyEntry* a, const PolicyEntry* b) { return a->view.name < b->view.name; });
  }
  it->second->view = view;
  s.RebuildPolicy(*it->second);
}

void ClusterSnapshot::RemoveResourcePolicy(std::string_view namespace_name, std::string_view name) {
  State& s = *state_;
  auto it = s.policies.find(PolicyKey(namespace_name, name));
  if (it == s.policies.end()) return;
  auto ns = s.policies_by_namespace.find(namespace_name);
  if (ns != s.policies_by_namespace.end()) {
    std::erase(ns->second, it->second.get());
    if (ns->second.empty()) s.policies_by_namespace.erase(ns);
  }
  s.policies.erase(it);
}

std::vector<const PolicyEntry*> ClusterSnapshot::State::SelectingPolicies(const PodSpecView& pod) const {
  std::vector<const PolicyEntry*> out;
  auto ns = policies_by_namespace.find(pod.namespace_name);
  if (ns == policies_by_namespace.end()) return out;
  for (const PolicyEntry* policy : ns->second) {
    if (PolicySelectsPod(policy->view, pod.namespace_name, pod.labels)) out.push_back(policy);
  }
  return out;
}

bool ClusterSnapshot::OutsideRequiredPolicyUnits(const PodSpecView& pod, std::string_view node_name) const {
  const State& s = *state_;
  const std::vector<const PolicyEntry*> selecting = s.SelectingPolicies(pod);
  const int node = s.NodeForConst(node_name);
  if (selecting.size() != 1 || node < 0) return false;
  // The Filter's own verdict for the node (counts do not matter for "in no unit").
  int64_t score = 0;
  return internal::PolicyGate{selecting.front(), {}}.Check(node, &score) == internal::PolicyGate::Verdict::kNoUnit;
}

std::vector<int32_t> ClusterSnapshot::ResourcePolicyCounts(std::string_view namespace_name,
                                                           std::string_view name,
                                                           std::string_view group) const {
  const State& s = *state_;
  auto it = s.policies.find(PolicyKey(namespace_name, name));
  if (it == s.policies.end()) return {};
  std::vector<int32_t> out(it->second->view.units.size(), 0);
  auto c = it->second->counts.find(group);
  if (c != it->second->counts.end()) {
    std::copy(c->second.begin(), c->second.end(), out.begin());
  }
  return out;
}

}  // namespace berth::reconcile::placement
