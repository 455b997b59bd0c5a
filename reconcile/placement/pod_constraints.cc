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

int64_t Count(const TopologyCounts& counts, std::string_view key, std::string_view value) {
  auto k = counts.find(key);
  if (k == counts.end()) return 0;
  auto v = k->second.find(value);
  return v == k->second.end() ? 0 : v->second;
}

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

InterPodAffinityFilter InterPodAffinityFilter::Build(const ConstraintContext& ctx) {
  InterPodAffinityFilter f;
  const PodSpecView& pod = ctx.pod;
  f.terms_ = pod.pod_affinity.get();
  if (f.terms_ != nullptr && !f.terms_->required_affinity.empty()) {
    const auto& terms = f.terms_->required_affinity;
    // A pod counts for affinity only when it matches every term (podMatchesAllAffinityTerms).
    ctx.index.ForEachCandidate(terms[0].selector, [&](const AffinityMember& m) {
      if (!ctx.Visible(m)) return;
      const LabelMap* ns_labels = ctx.NamespaceLabels(m.namespace_name);
      for (const PodAffinityTerm& t : terms) {
        if (!TermMatches(t, m.namespace_name, *m.labels, ns_labels)) return;
      }
      for (const PodAffinityTerm& t : terms) Bump(f.affinity_, ctx, t.topology_key, m, 1);
    });
    const LabelMap* own = ctx.NamespaceLabels(pod.namespace_name);
    f.self_match_ = std::all_of(terms.begin(), terms.end(), [&](const PodAffinityTerm& t) {
      return TermMatches(t, pod.namespace_name, pod.labels, own);
    });
  }
  if (f.terms_ != nullptr) {
    for (const PodAffinityTerm& t : f.terms_->required_anti_affinity) {
      ctx.index.ForEachCandidate(t.selector, [&](const AffinityMember& m) {
        if (ctx.Visible(m) && TermMatches(t, m.namespace_name, *m.labels, ctx.NamespaceLabels(m.namespace_name))) {
          Bump(f.anti_affinity_, ctx, t.topology_key, m, 1);
        }
      });
    }
  }
  // Symmetry: existing pods' required anti-affinity terms that match this pod.
  const LabelMap* pod_ns_labels = ctx.NamespaceLabels(pod.namespace_name);
  ctx.index.ForEachTermFor(pod.labels, [&](const TermRef& r) {
    if (r.kind != TermKind::kRequiredAntiAffinity || !ctx.Visible(*r.member)) return;
    if (TermMatches(*r.term, pod.namespace_name, pod.labels, pod_ns_labels)) {
      Bump(f.existing_anti_affinity_, ctx, r.term->topology_key, *r.member, 1);
    }
  });
  f.active_ = (f.terms_ != nullptr &&
               (!f.terms_->required_affinity.empty() || !f.terms_->required_anti_affinity.empty())) ||
              !f.existing_anti_affinity_.empty();
  return f;
}

std::string_view InterPodAffinityFilter::Check(const LabelMap& node_labels) const {
  if (terms_ != nullptr && !terms_->required_affinity.empty()) {
    bool pods_exist = true;
    for (const PodAffinityTerm& t : terms_->required_affinity) {
      auto label = node_labels.find(t.topology_key);
      if (label == node_labels.end()) return kReasonPodAffinity;  // every topology label must exist
      if (Count(affinity_, t.topology_key, label->second) <= 0) pods_exist = false;
    }
    // The first pod of a group with affinity to itself: allowed when no pod matches anywhere.
    if (!pods_exist && !(affinity_.empty() && self_match_)) return kReasonPodAffinity;
  }
  if (terms_ != nullptr && !anti_affinity_.empty()) {
    for (const PodAffinityTerm& t : terms_->required_anti_affinity) {
      auto label = node_labels.find(t.topology_key);
      if (label != node_labels.end() && Count(anti_affinity_, t.topology_key, label->second) > 0) {
        return kReasonPodAntiAffinity;
      }
    }
  }
  for (const auto& [key, values] : existing_anti_affinity_) {
    auto label = node_labels.find(key);
    if (label == node_labels.end()) continue;
    auto v = values.find(label->second);
    if (v != values.end() && v->second > 0) return kReasonExistingAntiAffinity;
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
  // domains are every domain of that key in the snapshot's domain index (no scan of the nodes).
  const bool restricts_nodes = !ctx.pod.node_selector.empty() || ctx.pod.required_node_affinity.has_value();
  bool fast = ctx.domains != nullptr;
  for (const TopologySpreadConstraint* c : hard) {
    fast = fast && c->topology_key == hard[0]->topology_key && !c->honor_node_taints &&
           !(c->honor_node_affinity && restricts_nodes);
  }
  if (fast) {
    auto key = ctx.domains->find(hard[0]->topology_key);
    for (const TopologySpreadConstraint* spec : hard) {
      Constraint c;
      c.spec = spec;
      if (key != ctx.domains->end()) {
        for (const auto& [value, nodes] : key->second) c.counts.emplace(value, 0);
      }
      ctx.index.ForEachCandidate(spec->selector, [&](const AffinityMember& m) {
        if (!ctx.Visible(m) || m.terminating || m.namespace_name != ctx.pod.namespace_name) return;
        if (!spec->selector.Matches(*m.labels)) return;
        const LabelMap& labels = ctx.nodes[m.node].view.labels;
        auto label = labels.find(spec->topology_key);
        if (label == labels.end()) return;
        auto v = c.counts.find(label->second);
        if (v != c.counts.end()) v->second++;
      });
      f.constraints_.push_back(std::move(c));
    }
  } else {
    std::vector<std::vector<char>> eligible = EligibleNodes(ctx, hard, /*require_all=*/true);
    for (size_t j = 0; j < hard.size(); ++j) {
      Constraint c;
      c.spec = hard[j];
      c.counts = CountsByDomain(ctx, *hard[j], eligible[j]);
      f.constraints_.push_back(std::move(c));
    }
  }
  for (Constraint& c : f.constraints_) {
    int64_t min = INT32_MAX;  // upstream's critical paths start at MaxInt32
    for (const auto& [value, count] : c.counts) min = std::min(min, count);
    // minDomains: fewer eligible domains than required makes the global minimum 0.
    if (c.spec->min_domains && static_cast<int64_t>(c.counts.size()) < *c.spec->min_domains) min = 0;
    c.min = min;
    c.self_match = c.spec->selector.Matches(ctx.pod.labels);
  }
  return f;
}

std::string_view TopologySpreadFilter::Check(const LabelMap& node_labels) const {
  for (const Constraint& c : constraints_) {
    auto label = node_labels.find(c.spec->topology_key);
    if (label == node_labels.end()) return kReasonTopologySpreadMissingLabel;
    auto v = c.counts.find(label->second);
    const int64_t matching = v == c.counts.end() ? 0 : v->second;
    if (matching + (c.self_match ? 1 : 0) - c.min > c.spec->max_skew) return kReasonTopologySpread;
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
