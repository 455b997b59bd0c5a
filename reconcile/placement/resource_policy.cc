#include "reconcile/placement/resource_policy.h"

#include <algorithm>
#include <map>
#include <set>

#include "reconcile/placement/filters.h"

namespace berth::reconcile::placement {

bool UnitMatchesNode(const UnitNodeSelector& selector, std::string_view node_name,
                     const LabelMap& node_labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = node_labels.find(key);
    if (it == node_labels.end() || it->second != value) return false;
  }
  if (selector.match_expressions.empty()) return true;
  // One term holding every expression: node affinity's operators (Gt/Lt included), ANDed.
  NodeSelectorTerm term;
  term.match_expressions = selector.match_expressions;
  return MatchesNodeSelectorTerms({term}, node_name, node_labels);
}

bool PolicySelectsPod(const ResourcePolicyView& policy, std::string_view pod_namespace,
                      const LabelMap& pod_labels) {
  return policy.namespace_name == pod_namespace && policy.pod_selector.Matches(pod_labels);
}

std::string GroupKey(const ResourcePolicyView& policy, const LabelMap& pod_labels) {
  std::string key;
  for (const std::string& k : policy.match_label_keys) {
    auto it = pod_labels.find(k);
    if (it == pod_labels.end()) continue;
    if (!key.empty()) key += ',';
    key.append(k).append("=").append(it->second);
  }
  return key;
}

bool HasEveryMatchLabelKey(const ResourcePolicyView& policy, const LabelMap& pod_labels) {
  for (const std::string& k : policy.match_label_keys) {
    if (!pod_labels.contains(k)) return false;
  }
  return true;
}

bool GroupAgreesWithPod(const ResourcePolicyView& policy, const LabelMap& pod_labels, std::string_view group) {
  // GroupKey is "k=v,k=v": label keys and values hold neither ',' nor '='.
  std::map<std::string_view, std::string_view> values;
  while (!group.empty()) {
    const size_t end = std::min(group.find(','), group.size());
    const std::string_view pair = group.substr(0, end);
    if (const size_t eq = pair.find('='); eq != std::string_view::npos) values[pair.substr(0, eq)] = pair.substr(eq + 1);
    group.remove_prefix(std::min(end + 1, group.size()));
  }
  for (const std::string& k : policy.match_label_keys) {
    auto mine = pod_labels.find(k);
    if (mine == pod_labels.end()) continue;
    auto theirs = values.find(k);
    if (theirs == values.end() || theirs->second != mine->second) return false;
  }
  return true;
}

int64_t PriorityScore(std::optional<int32_t> unit_priority) {
  return unit_priority ? int64_t{*unit_priority} * 20 : -1;
}

void NormalizeScores(std::vector<int64_t>& scores) {
  int64_t max = 0;
  for (int64_t s : scores) max = std::max(max, s);
  for (int64_t& s : scores) s = max == 0 || s <= 0 ? 0 : s * 100 / max;
}

std::string ConflictMessage(const std::vector<std::string>& policy_names) {
  std::string out = "pod is matched by more than one resource policy: ";
  for (size_t i = 0; i < policy_names.size(); ++i) {
    if (i > 0) out += ", ";
    out += "ResourcePolicy/" + policy_names[i];
  }
  return out;
}

ResourcePolicyStatus ComputeResourcePolicyStatus(const ResourcePolicyView& policy,
                                                 const std::vector<const ResourcePolicyView*>& others,
                                                 const std::vector<PolicyPodFacts>& pods,
                                                 const std::vector<PolicyNodeFacts>& nodes) {
  ResourcePolicyStatus st;
  std::map<std::string, std::vector<char>, std::less<>> node_units;  // node → unit membership
  st.units.resize(policy.units.size());
  for (size_t u = 0; u < policy.units.size(); ++u) {
    st.units[u].name = policy.units[u].name;
    st.units[u].max_count = policy.units[u].max_count;
  }
  for (const PolicyNodeFacts& n : nodes) {
    auto& row = node_units[n.name];
    row.assign(policy.units.size(), 0);
    for (size_t u = 0; u < policy.units.size(); ++u) {
      if (UnitMatchesNode(policy.units[u].node_selector, n.name, n.labels)) {
        row[u] = 1;
        st.units[u].nodes++;
      }
    }
  }
  std::vector<std::map<std::string, int32_t>> counts(policy.units.size());
  for (const PolicyPodFacts& p : pods) {
    if (!PolicySelectsPod(policy, p.namespace_name, p.labels)) continue;
    for (const ResourcePolicyView* other : others) {
      if (other != &policy && PolicySelectsPod(*other, p.namespace_name, p.labels)) {
        st.conflicting_pods.push_back(p.namespace_name + "/" + p.name);
        break;
      }
    }
    if (p.terminating && policy.ignore_terminating_pod) continue;
    st.matched_pods++;
    if (p.node_name.empty()) continue;
    auto it = node_units.find(p.node_name);
    if (it == node_units.end()) continue;
    const std::string group = GroupKey(policy, p.labels);
    for (size_t u = 0; u < policy.units.size(); ++u) {
      if (it->second[u]) counts[u][group]++;
    }
  }
  std::sort(st.conflicting_pods.begin(), st.conflicting_pods.end());
  st.selects_no_pod = st.matched_pods == 0 && st.conflicting_pods.empty();
  for (size_t u = 0; u < policy.units.size(); ++u) {
    int32_t fullest = 0;
    for (const auto& [group, n] : counts[u]) {
      st.units[u].groups.push_back({group, n});
      fullest = std::max(fullest, n);
    }
    if (st.units[u].nodes == 0) st.units_without_nodes.push_back(policy.units[u].name);
    if (!st.unit_summary.empty()) st.unit_summary += ", ";
    st.unit_summary += policy.units[u].name + " " + std::to_string(fullest);
    if (policy.units[u].max_count) st.unit_summary += "/" + std::to_string(*policy.units[u].max_count);
  }
  return st;
}

}  // namespace berth::reconcile::placement
