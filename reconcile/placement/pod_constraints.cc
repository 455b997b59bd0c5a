// reconcile/placement/pod_constraints.cc — see pod_constraints.h.
#include "reconcile/placement/pod_constraints.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "reconcile/placement/filters.h"
#include "reconcile/placement/plugin_scores.h"

namespace berth::reconcile::placement {

bool TermMatches(const PodAffinityTerm& term, std::string_view namespace_name, const LabelMap& labels,
                 const LabelMap* namespace_labels) {
  bool in_namespace =
      std::find(term.namespaces.begin(), term.namespaces.end(), namespace_name) != term.namespaces.end();
  if (!in_namespace && term.namespace_selector) {
    static const LabelMap kNoLabels;
    in_namespace = term.namespace_selector->Matches(namespace_labels != nullptr ? *namespace_labels : kNoLabels);
  }
  return in_namespace && term.selector.Matches(labels);
}

std::vector<TopologySpreadConstraint> SystemDefaultSpreadConstraints(const shim::LabelSelector& selector) {
  std::vector<TopologySpreadConstraint> out(2);
  out[0].max_skew = 3;
  out[0].topology_key = kLabelHostname;
  out[1].max_skew = 5;
  out[1].topology_key = kLabelTopologyZone;
  for (TopologySpreadConstraint& c : out) {
    c.do_not_schedule = false;  // ScheduleAnyway
    c.honor_node_affinity = true;
    c.honor_node_taints = false;
    c.selector = selector;
  }
  return out;
}

namespace internal {
namespace {

// Bump adds `by` to the domain of `key` that member m's node is in (nothing when the node lacks
// the label).
void Bump(TopologyCounts& counts, const ConstraintContext& ctx, std::string_view key, const AffinityMember& m,
          int64_t by) {
  const LabelMap& node_labels = ctx.nodes[m.node].view.labels;
  auto label = node_labels.find(key);
  if (label == node_labels.end()) return;
  auto k = counts.find(key);
  if (k == counts.end()) k = counts.emplace(std::string(key), StringMap<int64_t>()).first;
  auto v = k->second.find(label->second);
  if (v == k->second.end()) v = k->second.emplace(label->second, 0).first;
  v->second += by;
}

bool HasAllKeys(const LabelMap& labels, const std::vector<const TopologySpreadConstraint*>& constraints) {
  for (const TopologySpreadConstraint* c : constraints) {
    if (!labels.contains(c->topology_key)) return false;
  }
  return true;
}

// Eligible: nodeAffinityPolicy / nodeTaintsPolicy (matchNodeInclusionPolicies).
bool Included(const TopologySpreadConstraint& c, const PodSpecView& pod, const NodeView& node) {
  if (c.honor_node_affinity && !PassesNodeAffinity(pod, node.name, node.labels)) return false;
  if (c.honor_node_taints && FirstUntoleratedTaint(pod.tolerations, node.taints) != nullptr) return false;
  return true;
}

// EligibleNodes: per constraint, the nodes spreading counts on (present, every constraint's key
// present when `require_all`, inclusion policies).
std::vector<std::vector<char>> EligibleNodes(const ConstraintContext& ctx,
                                             const std::vector<const TopologySpreadConstraint*>& constraints,
                                             bool require_all) {
  std::vector<std::vector<char>> eligible(constraints.size(), std::vector<char>(ctx.nodes.size(), 0));
  for (size_t i = 0; i < ctx.nodes.size(); ++i) {
    const NodeEntry& n = ctx.nodes[i];
    if (!n.present || (require_all && !HasAllKeys(n.view.labels, constraints))) continue;
    for (size_t j = 0; j < constraints.size(); ++j) {
      if (Included(*constraints[j], ctx.pod, n.view)) eligible[j][i] = 1;
    }
  }
  return eligible;
}

// CountsFor: the entry of `key` in `all`, created (with the key's domains) when missing.
DomainCounts& CountsFor(std::vector<std::unique_ptr<DomainCounts>>& all, const ConstraintContext& ctx,
                        std::string_view key) {
  for (auto& counts : all) {
    if (counts->name() == key) return *counts;
  }
  all.push_back(std::make_unique<DomainCounts>(key, ctx.topology.Find(key)));
  return *all.back();
}

}  // namespace

const LabelMap* ConstraintContext::NamespaceLabels(std::string_view ns) const {
  auto it = namespaces.find(ns);
  return it == namespaces.end() ? nullptr : &it->second;
}

bool ConstraintContext::Visible(const AffinityMember& m) const {
  if (m.node < 0 || static_cast<size_t>(m.node) >= nodes.size() || !nodes[m.node].present) return false;
  if (!pod.uid.empty() && m.uid == pod.uid) return false;
  return !(m.reservation && excluded != nullptr && excluded->contains(m.uid));
}

bool DomainCounts::Add(int node, int64_t by) {
  const int32_t id = key_ == nullptr ? -1 : key_->DomainOf(node);
  if (id < 0) return false;
  AddDomain(id, by);
  return true;
}

void DomainCounts::AddDomain(int32_t id, int64_t by) {
  if (static_cast<size_t>(id) >= counts_.size()) counts_.resize(std::max<size_t>(id + 1, key_->Domains()), 0);
  counts_[id] += by;
}

InterPodAffinityFilter InterPodAffinityFilter::Build(const ConstraintContext& ctx) {
  InterPodAffinityFilter f;
  const PodSpecView& pod = ctx.pod;
  const PodAffinity* terms_of_pod = pod.pod_affinity.get();
  if (terms_of_pod != nullptr) {
    // Entries first, so the pointers to them below stay valid (each is its own allocation).
    for (const PodAffinityTerm& t : terms_of_pod->required_affinity) {
      f.affinity_terms_.push_back(&CountsFor(f.affinity_, ctx, t.topology_key));
    }
    for (const PodAffinityTerm& t : terms_of_pod->required_anti_affinity) {
      f.anti_affinity_terms_.push_back(&CountsFor(f.anti_affinity_, ctx, t.topology_key));
    }
  }
  if (terms_of_pod != nullptr && !terms_of_pod->required_affinity.empty()) {
    const auto& terms = terms_of_pod->required_affinity;
    // A pod counts for affinity only when it matches every term (podMatchesAllAffinityTerms).
    ctx.index.ForEachCandidate(terms[0].selector, [&](const AffinityMember& m) {
      if (!ctx.Visible(m)) return;
      const LabelMap* ns_labels = ctx.NamespaceLabels(m.namespace_name);
      for (const PodAffinityTerm& t : terms) {
        if (!TermMatches(t, m.namespace_name, *m.labels, ns_labels)) return;
      }
      for (size_t j = 0; j < terms.size(); ++j) {
        if (f.affinity_terms_[j]->Add(m.node, 1)) f.any_affinity_ = true;
      }
    });
    const LabelMap* own = ctx.NamespaceLabels(pod.namespace_name);
    f.self_match_ = std::all_of(terms.begin(), terms.end(), [&](const PodAffinityTerm& t) {
      return TermMatches(t, pod.namespace_name, pod.labels, own);
    });
  }
  if (terms_of_pod != nullptr) {
    const auto& terms = terms_of_pod->required_anti_affinity;
    for (size_t j = 0; j < terms.size(); ++j) {
      const PodAffinityTerm& t = terms[j];
      DomainCounts* counts = f.anti_affinity_terms_[j];
      ctx.index.ForEachCandidate(t.selector, [&](const AffinityMember& m) {
        if (ctx.Visible(m) && TermMatches(t, m.namespace_name, *m.labels, ctx.NamespaceLabels(m.namespace_name))) {
          counts->Add(m.node, 1);
        }
      });
    }
  }
  // Symmetry: existing pods' required anti-affinity terms that match this pod.
  const LabelMap* pod_ns_labels = ctx.NamespaceLabels(pod.namespace_name);
  ctx.index.ForEachTermFor(pod.labels, [&](const TermRef& r) {
    if (r.kind != TermKind::kRequiredAntiAffinity || !ctx.Visible(*r.member)) return;
    if (TermMatches(*r.term, pod.namespace_name, pod.labels, pod_ns_labels)) {
      const std::string_view key = r.term->topology_key;
      // Only keys the member's node carries get an entry: an entry means "some count".
      const TopologyIndex::Key* index = ctx.topology.Find(key);
      if (index == nullptr || index->DomainOf(r.member->node) < 0) return;
      CountsFor(f.existing_anti_affinity_, ctx, key).Add(r.member->node, 1);
    }
  });
  f.active_ = (terms_of_pod != nullptr &&
               (!terms_of_pod->required_affinity.empty() || !terms_of_pod->required_anti_affinity.empty())) ||
              !f.existing_anti_affinity_.empty();
  return f;
}

std::string_view InterPodAffinityFilter::Check(int node) const {
  if (!affinity_terms_.empty()) {
    bool pods_exist = true;
    for (const DomainCounts* counts : affinity_terms_) {
      const int32_t id = counts->key() == nullptr ? -1 : counts->key()->DomainOf(node);
      if (id < 0) return kReasonPodAffinity;  // every topology label must exist
      if (counts->AtDomain(id) <= 0) pods_exist = false;
    }
    // The first pod of a group with affinity to itself: allowed when no pod matches anywhere.
    if (!pods_exist && !(!any_affinity_ && self_match_)) return kReasonPodAffinity;
  }
  for (const DomainCounts* counts : anti_affinity_terms_) {
    if (counts->AtNode(node) > 0) return kReasonPodAntiAffinity;
  }
  for (const auto& counts : existing_anti_affinity_) {
    if (counts->AtNode(node) > 0) return kReasonExistingAntiAffinity;
  }
  return {};
}

StringMap<int64_t> CountsByDomain(const ConstraintContext& ctx, const TopologySpreadConstraint& c,
                                  const std::vector<char>& eligible) {
  StringMap<int64_t> counts;
  for (size_t i = 0; i < ctx.nodes.size(); ++i) {
    if (!eligible[i]) continue;
    const LabelMap& labels = ctx.nodes[i].view.labels;
    auto label = labels.find(c.topology_key);
    if (label == labels.end()) continue;
    if (counts.find(label->second) == counts.end()) counts.emplace(label->second, 0);
  }
  ctx.index.ForEachCandidate(c.selector, [&](const AffinityMember& m) {
    if (!ctx.Visible(m) || m.terminating || m.namespace_name != ctx.pod.namespace_name) return;
    if (!eligible[m.node] || !c.selector.Matches(*m.labels)) return;
    const LabelMap& labels = ctx.nodes[m.node].view.labels;
    auto label = labels.find(c.topology_key);
    if (label == labels.end()) return;
    auto v = counts.find(label->second);
    if (v != counts.end()) v->second++;
  });
  return counts;
}

TopologySpreadFilter TopologySpreadFilter::Build(const ConstraintContext& ctx) {
  TopologySpreadFilter f;
  std::vector<const TopologySpreadConstraint*> hard;
  for (const TopologySpreadConstraint& c : ctx.pod.topology_spread) {
    if (c.do_not_schedule) hard.push_back(&c);
  }
  if (hard.empty()) return f;
  // Fast path: one topology key and no inclusion policy that restricts the nodes, so the eligible
  // domains are every domain of that key with a present node (no scan of the nodes).
  const bool restricts_nodes = !ctx.pod.node_selector.empty() || ctx.pod.required_node_affinity.has_value();
  bool fast = true;
  for (const TopologySpreadConstraint* c : hard) {
    fast = fast && c->topology_key == hard[0]->topology_key && !c->honor_node_taints &&
           !(c->honor_node_affinity && restricts_nodes);
  }
  std::vector<std::vector<char>> eligible_nodes;
  if (!fast) eligible_nodes = EligibleNodes(ctx, hard, /*require_all=*/true);
  for (size_t j = 0; j < hard.size(); ++j) {
    const TopologySpreadConstraint* spec = hard[j];
    const TopologyIndex::Key* key = ctx.topology.Find(spec->topology_key);
    // Eligible domains: with a present node (fast path), or with an eligible node.
    std::vector<char> eligible(key == nullptr ? 0 : key->Domains(), 0);
    for (int32_t id = 0; fast && id < static_cast<int32_t>(eligible.size()); ++id) eligible[id] = key->NodesIn(id) > 0;
    for (size_t i = 0; !fast && key != nullptr && i < ctx.nodes.size(); ++i) {
      if (!eligible_nodes[j][i]) continue;
      if (const int32_t id = key->DomainOf(static_cast<int>(i)); id >= 0) eligible[id] = 1;
    }
    Constraint c{spec, DomainCounts(spec->topology_key, key)};
    ctx.index.ForEachCandidate(spec->selector, [&](const AffinityMember& m) {
      if (!ctx.Visible(m) || m.terminating || m.namespace_name != ctx.pod.namespace_name) return;
      if (!fast && !eligible_nodes[j][m.node]) return;
      if (!spec->selector.Matches(*m.labels)) return;
      const int32_t id = key == nullptr ? -1 : key->DomainOf(m.node);
      if (id >= 0 && eligible[id]) c.counts.AddDomain(id, 1);
    });
    int64_t min = INT32_MAX;  // upstream's critical paths start at MaxInt32
    int64_t domains = 0;
    for (int32_t id = 0; id < static_cast<int32_t>(eligible.size()); ++id) {
      if (!eligible[id]) continue;
      ++domains;
      min = std::min(min, c.counts.AtDomain(id));
    }
    // minDomains: fewer eligible domains than required makes the global minimum 0.
    if (spec->min_domains && domains < *spec->min_domains) min = 0;
    c.min = min;
    c.self_match = spec->selector.Matches(ctx.pod.labels);
    f.constraints_.push_back(std::move(c));
  }
  return f;
}

std::string_view TopologySpreadFilter::Check(int node) const {
  for (const Constraint& c : constraints_) {
    const int32_t id = c.counts.key() == nullptr ? -1 : c.counts.key()->DomainOf(node);
    if (id < 0) return kReasonTopologySpreadMissingLabel;
    // A domain that is not eligible counts 0 matching pods.
    if (c.counts.AtDomain(id) + (c.self_match ? 1 : 0) - c.min > c.spec->max_skew) return kReasonTopologySpread;
  }
  return {};
}

std::vector<int64_t> InterPodAffinityScores(const ConstraintContext& ctx, const std::vector<int>& feasible) {
  const PodSpecView& pod = ctx.pod;
  TopologyCounts scores;
  if (const PodAffinity* pa = pod.pod_affinity.get()) {
    auto incoming = [&](const std::vector<PodAffinityTerm>& terms, int64_t sign) {
      for (const PodAffinityTerm& t : terms) {
        ctx.index.ForEachCandidate(t.selector, [&](const AffinityMember& m) {
          if (ctx.Visible(m) && TermMatches(t, m.namespace_name, *m.labels, ctx.NamespaceLabels(m.namespace_name))) {
            Bump(scores, ctx, t.topology_key, m, sign * t.weight);
          }
        });
      }
    };
    incoming(pa->preferred_affinity, +1);
    incoming(pa->preferred_anti_affinity, -1);
  }
  // Existing pods' terms that match this pod: required affinity with hardPodAffinityWeight (1),
  // preferred affinity (+weight) and preferred anti-affinity (-weight).
  const LabelMap* pod_ns_labels = ctx.NamespaceLabels(pod.namespace_name);
  ctx.index.ForEachTermFor(pod.labels, [&](const TermRef& r) {
    if (r.kind == TermKind::kRequiredAntiAffinity || !ctx.Visible(*r.member)) return;
    if (!TermMatches(*r.term, pod.namespace_name, pod.labels, pod_ns_labels)) return;
    const int64_t weight = r.kind == TermKind::kRequiredAffinity       ? 1
                           : r.kind == TermKind::kPreferredAffinity    ? r.term->weight
                                                                       : -int64_t{r.term->weight};
    Bump(scores, ctx, r.term->topology_key, *r.member, weight);
  });
  if (scores.empty()) return {};
  std::vector<int64_t> out(feasible.size(), 0);
  for (size_t k = 0; k < feasible.size(); ++k) {
    const LabelMap& labels = ctx.nodes[feasible[k]].view.labels;
    for (const auto& [key, values] : scores) {
      auto label = labels.find(key);
      if (label == labels.end()) continue;
      auto v = values.find(label->second);
      if (v != values.end()) out[k] += v->second;
    }
  }
  InterPodAffinityNormalize(out);
  return out;
}

std::vector<int64_t> TopologySpreadScores(const ConstraintContext& ctx, const std::vector<int>& feasible,
                                          const std::vector<TopologySpreadConstraint>& constraints,
                                          bool require_all) {
  if (constraints.empty() || feasible.empty()) return {};
  std::vector<const TopologySpreadConstraint*> cs;
  for (const TopologySpreadConstraint& c : constraints) cs.push_back(&c);
  std::vector<char> ignored(feasible.size(), 0);
  size_t ignored_count = 0;
  for (size_t k = 0; k < feasible.size(); ++k) {
    if (require_all && !HasAllKeys(ctx.nodes[feasible[k]].view.labels, cs)) {
      ignored[k] = 1;
      ++ignored_count;
    }
  }
  std::vector<std::vector<char>> eligible = EligibleNodes(ctx, cs, require_all);
  std::vector<StringMap<int64_t>> counts;
  std::vector<double> weights;
  for (size_t j = 0; j < cs.size(); ++j) {
    counts.push_back(CountsByDomain(ctx, *cs[j], eligible[j]));
    size_t size = 0;
    if (cs[j]->topology_key == kLabelHostname) {
      size = feasible.size() - ignored_count;
    } else {
      // Domains of the scored nodes (a node lacking the key is domain "" upstream).
      std::unordered_set<std::string_view> domains;
      for (size_t k = 0; k < feasible.size(); ++k) {
        if (ignored[k]) continue;
        const LabelMap& labels = ctx.nodes[feasible[k]].view.labels;
        auto label = labels.find(cs[j]->topology_key);
        domains.insert(label == labels.end() ? std::string_view() : std::string_view(label->second));
      }
      size = domains.size();
    }
    weights.push_back(std::log(static_cast<double>(size + 2)));
  }
  std::vector<int64_t> out(feasible.size(), 0);
  for (size_t k = 0; k < feasible.size(); ++k) {
    if (ignored[k]) continue;
    const LabelMap& labels = ctx.nodes[feasible[k]].view.labels;
    double score = 0;
    for (size_t j = 0; j < cs.size(); ++j) {
      auto label = labels.find(cs[j]->topology_key);
      if (label == labels.end()) continue;
      auto v = counts[j].find(label->second);
      const int64_t count = v == counts[j].end() ? 0 : v->second;
      score += static_cast<double>(count) * weights[j] + static_cast<double>(cs[j]->max_skew - 1);
    }
    out[k] = std::llround(score);
  }
  PodTopologySpreadNormalize(out, ignored);
  return out;
}

}  // namespace internal
}  // namespace berth::reconcile::placement
