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

size_t LabelInterner::Hash::operator()(const LabelMap& labels) const {
  size_t h = labels.size();
  for (const auto& [k, v] : labels) {
    h = h * 1000003 ^ std::hash<std::string_view>{}(k);
    h = h * 1000003 ^ std::hash<std::string_view>{}(v);
  }
  return h;
}

std::shared_ptr<const LabelMap> LabelInterner::Intern(const LabelMap& labels) {
  if (auto it = pool_.find(labels); it != pool_.end()) return *it;
  if (pool_.size() >= sweep_at_) {
    std::erase_if(pool_, [](const std::shared_ptr<const LabelMap>& m) { return m.use_count() == 1; });
    sweep_at_ = std::max<size_t>(1024, 2 * pool_.size());
  }
  return *pool_.insert(std::make_shared<const LabelMap>(labels)).first;
}

void AffinityIndex::Add(AffinityMember* m) {
  Remove(m);
  auto& group = groups_[m->labels.get()];
  if (group == nullptr) {
    group = std::make_unique<LabelGroup>();
    group->labels = m->labels;
    for (const auto& [k, v] : *m->labels) by_label_[k + "=" + v].push_back(group.get());
  }
  m->group = group.get();
  m->group_slot = static_cast<uint32_t>(group->members.size());
  group->members.push_back(m);
  if (m->node >= 0) {
    if (static_cast<size_t>(m->node) >= by_node_.size()) by_node_.resize(m->node + 1);
    by_node_[m->node].push_back(m);
  }
  FileTerms(*m, /*add=*/true);
  ++size_;
}

void AffinityIndex::Remove(AffinityMember* m) {
  if (m->group == nullptr) return;
  FileTerms(*m, /*add=*/false);
  LabelGroup* group = m->group;
  AffinityMember* last = group->members.back();
  group->members[m->group_slot] = last;
  last->group_slot = m->group_slot;
  group->members.pop_back();
  m->group = nullptr;
  if (group->members.empty()) {
    for (const auto& [k, v] : *group->labels) {
      auto bucket = by_label_.find(LabelKey(k, v));
      if (bucket == by_label_.end()) continue;
      std::erase(bucket->second, group);
      if (bucket->second.empty()) by_label_.erase(bucket);
    }
    groups_.erase(group->labels.get());  // destroys the group
  }
  if (m->node >= 0 && static_cast<size_t>(m->node) < by_node_.size()) {
    auto& on_node = by_node_[m->node];
    auto pos = std::find(on_node.begin(), on_node.end(), m);
    if (pos != on_node.end()) {
      *pos = on_node.back();
      on_node.pop_back();
    }
  }
  --size_;
}

const std::vector<const AffinityMember*>& AffinityIndex::OnNode(int node) const {
  static const std::vector<const AffinityMember*> kNone;
  return node >= 0 && static_cast<size_t>(node) < by_node_.size() ? by_node_[node] : kNone;
}

}  // namespace berth::reconcile::placement::internal
