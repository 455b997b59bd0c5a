// reconcile/placement/snapshot_tables.cc
//
// The snapshot's lookup structures: resource names to dense indexes, node names to slots, shared
// request vectors, and a pod entry's packed uid and name (ClusterSnapshot's updates are in
// snapshot.cc).
#include "reconcile/placement/snapshot.h"

#include <algorithm>
#include <limits>

#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

using internal::Dense;

namespace internal {

ResourceTable::ResourceTable() {
  for (std::string_view name : {kResourceCpu, kResourceMemory, kResourceEphemeralStorage,
                                kResourcePods}) {
    Intern(name);
  }
}

int ResourceTable::Intern(std::string_view name) {
  auto it = index.find(name);
  if (it != index.end()) return it->second;
  int i = static_cast<int>(names.size());
  names.emplace_back(name);
  index.emplace(std::string(name), i);
  return i;
}

int ResourceTable::Find(std::string_view name) const {
  auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

Dense ResourceTable::ToDense(const ResourceAmounts& amounts) {
  Dense out;
  for (const auto& [name, amount] : amounts) Slot(out, Intern(name)) += amount;
  return out;
}

ResourceAmounts ResourceTable::ToAmounts(const Dense& dense) const {
  ResourceAmounts out;
  for (size_t i = 0; i < dense.size(); ++i) {
    if (dense[i] != 0) out[names[i]] = dense[i];
  }
  return out;
}

ResourceAmounts ResourceTable::ToAmounts(const Wide& wide) const {
  ResourceAmounts out;
  for (size_t i = 0; i < wide.size(); ++i) {
    if (wide[i] != 0) out[names[i]] = ClampAmount(wide[i]);
  }
  return out;
}

}  // namespace internal

namespace internal {

int NodeNameIndex::Find(std::string_view name, uint64_t hash, const std::vector<NodeEntry>& nodes) const {
  if (slots_.empty()) return -1;
  const uint32_t tag = static_cast<uint32_t>(hash >> 32);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.index < 0) return -1;
    if (slot.tag == tag && nodes[slot.index].view.name == name) return slot.index;
  }
}

void NodeNameIndex::Place(uint64_t hash, int index) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].index >= 0) i = (i + 1) & mask;
  slots_[i] = {static_cast<uint32_t>(hash >> 32), index};
}

void NodeNameIndex::Insert(int index, const std::vector<NodeEntry>& nodes) {
  if (2 * (size_ + 1) > slots_.size()) {
    // Grow to keep at most half the slots used; re-file every node (their indexes are 0..size_).
    slots_.assign(std::max<size_t>(16, slots_.size() * 2), Slot{});
    for (size_t k = 0; k < size_; ++k) Place(std::hash<std::string_view>{}(nodes[k].view.name), static_cast<int>(k));
  }
  Place(std::hash<std::string_view>{}(nodes[index].view.name), index);
  ++size_;
}

}  // namespace internal

void internal::PodEntry::SetIds(std::string_view uid, std::string_view name) {
  ids = std::make_unique_for_overwrite<char[]>(uid.size() + name.size());
  std::copy(uid.begin(), uid.end(), ids.get());
  std::copy(name.begin(), name.end(), ids.get() + uid.size());
  uid_len = static_cast<uint32_t>(uid.size());
  name_len = static_cast<uint32_t>(name.size());
}

size_t internal::DenseInterner::Hash::operator()(const Dense& v) const {
  size_t h = v.size();
  for (int64_t x : v) h = h * 1000003u ^ std::hash<int64_t>{}(x);
  return h;
}

std::shared_ptr<const Dense> internal::DenseInterner::Intern(const Dense& amounts) {
  if (auto it = pool_.find(amounts); it != pool_.end()) return *it;
  if (pool_.size() >= sweep_at_) {
    std::erase_if(pool_, [](const std::shared_ptr<const Dense>& v) { return v.use_count() == 1; });
    sweep_at_ = std::max<size_t>(1024, 2 * pool_.size());
  }
  return *pool_.insert(std::make_shared<const Dense>(amounts)).first;
}

}  // namespace berth::reconcile::placement
