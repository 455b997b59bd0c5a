// reconcile/placement/affinity_index.cc — see affinity_index.h.
#include "reconcile/placement/affinity_index.h"

#include <algorithm>

namespace berth::reconcile::placement::internal {

std::vector<std::string> AffinityIndex::TermKeys(const PodAffinityTerm& term) {
  std::vector<std::string> keys;
  if (term.selector.IsNothing()) return keys;  // matches no pod: never filed
  for (const shim::LabelRequirement& req : term.selector.requirements()) {
    if (!IsPositive(req)) continue;
    for (const std::string& v : req.values) keys.push_back(req.key + "=" + v);
    return keys;
  }
  keys.emplace_back("*");
  return keys;
}

void AffinityIndex::FileTerms(const AffinityMember& m, bool add) {
  if (m.affinity == nullptr) return;
  auto file = [&](const std::vector<PodAffinityTerm>& terms, TermKind kind) {
    if (kind != TermKind::kRequiredAntiAffinity) scoring_terms_ += (add ? 1 : -1) * static_cast<int64_t>(terms.size());
    for (const PodAffinityTerm& term : terms) {
      for (const std::string& key : TermKeys(term)) {
        if (add) {
          terms_[key].push_back({&m, &term, kind});
          continue;
        }
        auto it = terms_.find(key);
        if (it == terms_.end()) continue;
        std::erase_if(it->second, [&](const TermRef& r) { return r.member == &m && r.term == &term; });
        if (it->second.empty()) terms_.erase(it);
      }
    }
  };
  file(m.affinity->required_affinity, TermKind::kRequiredAffinity);
  file(m.affinity->required_anti_affinity, TermKind::kRequiredAntiAffinity);
  file(m.affinity->preferred_affinity, TermKind::kPreferredAffinity);
  file(m.affinity->preferred_anti_affinity, TermKind::kPreferredAntiAffinity);
}

void AffinityIndex::Add(const void* key, AffinityMember member) {
  Remove(key);
  auto owned = std::make_unique<AffinityMember>(std::move(member));
  const AffinityMember* m = owned.get();
  for (const auto& [k, v] : m->labels) by_label_[k + "=" + v].insert(m);
  if (m->node >= 0) {
    if (static_cast<size_t>(m->node) >= by_node_.size()) by_node_.resize(m->node + 1);
    by_node_[m->node].push_back(m);
  }
  FileTerms(*m, /*add=*/true);
  members_.emplace(key, std::move(owned));
}

void AffinityIndex::Remove(const void* key) {
  auto it = members_.find(key);
  if (it == members_.end()) return;
  const AffinityMember* m = it->second.get();
  FileTerms(*m, /*add=*/false);
  for (const auto& [k, v] : m->labels) {
    auto bucket = by_label_.find(LabelKey(k, v));
    if (bucket == by_label_.end()) continue;
    bucket->second.erase(m);
    if (bucket->second.empty()) by_label_.erase(bucket);
  }
  if (m->node >= 0 && static_cast<size_t>(m->node) < by_node_.size()) {
    auto& on_node = by_node_[m->node];
    auto pos = std::find(on_node.begin(), on_node.end(), m);
    if (pos != on_node.end()) {
      *pos = on_node.back();
      on_node.pop_back();
    }
  }
  members_.erase(it);
}

const std::vector<const AffinityMember*>& AffinityIndex::OnNode(int node) const {
  static const std::vector<const AffinityMember*> kNone;
  return node >= 0 && static_cast<size_t>(node) < by_node_.size() ? by_node_[node] : kNone;
}

}  // namespace berth::reconcile::placement::internal
