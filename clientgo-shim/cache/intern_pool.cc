#include "clientgo-shim/cache/intern_pool.h"

#include <type_traits>


#include "clientgo-shim/cache/packed_json.h"

namespace berth::shim {

uint32_t InternPool::InternLocked(const HashedText& text) {
  if (auto it = index_.find(text); it != index_.end()) {
    ++hot_[it->second].refs;
    return it->second;
  }
  return NewEntryLocked(text.text, false);
}

std::optional<uint32_t> InternPool::InternSubtreeLocked(std::string_view packed,
                                                        std::span<const uint32_t> inner) {
  const uint64_t hash = TextHash{}(packed);
  if (auto it = subtree_index_.find(HashedText{packed, hash}); it != subtree_index_.end()) {
    ++hot_[it->second].refs;
    // The pooled copy already holds a reference to each inner id; drop the caller's.
    for (uint32_t id : inner) {
      if (id < hot_.size() && hot_[id].refs > 1) --hot_[id].refs;
    }
    return it->second;
  }
  if (seen_.empty()) seen_.assign(kSeenSlots, 0);
  const uint64_t h = hash | 1;  // 0 marks an empty slot
  uint64_t& slot = seen_[h & (kSeenSlots - 1)];
  if (slot != h) {
    slot = h;
    return std::nullopt;
  }
  return NewEntryLocked(packed, true);
}

uint32_t InternPool::NewEntryLocked(std::string_view text, bool subtree) {
  uint32_t id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
    hot_.emplace_back();
  }
  Entry& e = entries_[id];
  e.text.assign(text.data(), text.size());
  hot_[id] = {e.text.data(), static_cast<uint32_t>(e.text.size()), 1};
  e.subtree = subtree;
  text_bytes_ += e.text.capacity() > 15 ? e.text.capacity() + 1 : 0;
  (subtree ? subtree_index_ : index_).emplace(std::string_view(e.text), id);
  return id;
}

void InternPool::IndexShapeLocked(uint32_t id, uint64_t shape) {
  if (id >= entries_.size() || !entries_[id].subtree || entries_[id].shape != 0) return;
  if (shape_index_.try_emplace(shape, id).second) entries_[id].shape = shape;
}

void InternPool::Release(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return;
  std::unique_lock lock(mu_);
  std::vector<uint32_t> work(ids);
  while (!work.empty()) {
    uint32_t id = work.back();
    work.pop_back();
    if (id >= entries_.size()) continue;
    Entry& e = entries_[id];
    uint32_t& refs = hot_[id].refs;
    if (refs == 0 || --refs > 0) continue;
    if (e.subtree) {
      CollectInternedIds(e.text, work);  // the subtree's own references go too
      subtree_index_.erase(std::string_view(e.text));
      if (e.shape != 0) shape_index_.erase(e.shape);
      e.shape = 0;
    } else {
      index_.erase(std::string_view(e.text));
    }
    e.subtree = false;
    text_bytes_ -= e.text.capacity() > 15 ? e.text.capacity() + 1 : 0;
    std::string().swap(e.text);  // give the body back
    hot_[id] = Hot{};
    free_ids_.push_back(id);
  }
}

size_t InternPool::Size() const {
  std::shared_lock lock(mu_);
  return index_.size() + subtree_index_.size();
}

size_t InternPool::FootprintBytes() const {
  std::shared_lock lock(mu_);
  // A Swiss table holds its slots inline plus one control byte per slot.
  auto table = [](const auto& map) {
    using Slot = typename std::decay_t<decltype(map)>::value_type;
    return map.capacity() * (sizeof(Slot) + 1);
  };
  return entries_.size() * sizeof(Entry) + hot_.capacity() * sizeof(Hot) + text_bytes_ + free_ids_.capacity() * sizeof(uint32_t) +
         table(index_) + table(subtree_index_) + table(shape_index_) + seen_.capacity() * sizeof(uint64_t);
}

InternPool& GlobalInternPool() {
  static InternPool* pool = new InternPool();  // never destroyed: objects may outlive statics
  return *pool;
}

}  // namespace berth::shim
