#include "clientgo-shim/cache/intern_pool.h"

namespace berth::shim {

uint32_t InternPool::InternLocked(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) {
    ++entries_[it->second].refs;
    return it->second;
  }
  uint32_t id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& e = entries_[id];
  e.text.assign(text.data(), text.size());
  e.refs = 1;
  text_bytes_ += e.text.capacity() > 15 ? e.text.capacity() + 1 : 0;
  index_.emplace(std::string_view(e.text), id);
  return id;
}

void InternPool::Release(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return;
  std::unique_lock lock(mu_);
  for (uint32_t id : ids) {
    if (id >= entries_.size()) continue;
    Entry& e = entries_[id];
    if (e.refs == 0 || --e.refs > 0) continue;
    index_.erase(std::string_view(e.text));
    text_bytes_ -= e.text.capacity() > 15 ? e.text.capacity() + 1 : 0;
    std::string().swap(e.text);  // give the body back
    free_ids_.push_back(id);
  }
}

size_t InternPool::Size() const {
  std::shared_lock lock(mu_);
  return index_.size();
}

size_t InternPool::FootprintBytes() const {
  std::shared_lock lock(mu_);
  // A hash node holds the key view, the id, the cached hash and a next pointer; plus a bucket.
  constexpr size_t kNodeBytes = sizeof(std::string_view) + sizeof(uint32_t) + 2 * sizeof(void*) + 16;
  return entries_.size() * sizeof(Entry) + text_bytes_ + free_ids_.capacity() * sizeof(uint32_t) +
         index_.size() * kNodeBytes + index_.bucket_count() * sizeof(void*);
}

InternPool& GlobalInternPool() {
  static InternPool* pool = new InternPool();  // never destroyed: objects may outlive statics
  return *pool;
}

}  // namespace berth::shim
