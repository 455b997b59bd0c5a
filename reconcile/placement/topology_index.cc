// reconcile/placement/topology_index.cc — see topology_index.h.
#include "reconcile/placement/topology_index.h"

namespace berth::reconcile::placement::internal {

int32_t TopologyIndex::Key::DomainId(std::string_view value) const {
  auto it = ids_.find(value);
  return it == ids_.end() ? -1 : it->second;
}

int32_t TopologyIndex::Key::Intern(std::string_view value) {
  auto it = ids_.find(value);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<int32_t>(values_.size());
  values_.emplace_back(value);
  nodes_in_.push_back(0);
  ids_.emplace(std::string(value), id);
  return id;
}

void TopologyIndex::Drop(int node, std::string_view key) {
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  Key& k = it->second;
  const int32_t id = k.DomainOf(node);
  if (id < 0) return;
  k.nodes_in_[id]--;
  k.node_domain_[node] = -1;
}

void TopologyIndex::SetNode(int node, const LabelMap* before, const LabelMap& labels) {
  if (node < 0) return;
  if (before != nullptr) {
    for (const auto& [key, value] : *before) Drop(node, key);
  }
  for (const auto& [key, value] : labels) {
    auto it = keys_.find(key);
    if (it == keys_.end()) it = keys_.emplace(key, Key()).first;
    Key& k = it->second;
    if (static_cast<size_t>(node) >= k.node_domain_.size()) k.node_domain_.resize(node + 1, -1);
    const int32_t id = k.Intern(value);
    k.node_domain_[node] = id;
    k.nodes_in_[id]++;
  }
}

void TopologyIndex::RemoveNode(int node, const LabelMap& labels) {
  for (const auto& [key, value] : labels) Drop(node, key);
}

const TopologyIndex::Key* TopologyIndex::Find(std::string_view key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

}  // namespace berth::reconcile::placement::internal
