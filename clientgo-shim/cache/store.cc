#include "clientgo-shim/cache/store.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <thread>

#include "clientgo-shim/base/run_concurrently.h"

namespace berth::shim {

IndexFunc NamespaceIndexFunc() {
  return [](const CachedObject& o) -> std::vector<std::string> {
    if (o.Namespace().empty()) return {};
    return {std::string(o.Namespace())};
  };
}

IndexFunc NodeNameIndexFunc() {
  return [](const CachedObject& o) -> std::vector<std::string> {
    auto node = o.FindString({"spec", "nodeName"});
    if (!node || node->empty()) return {};
    return {std::move(*node)};
  };
}

namespace {

// ValuesOf: the index values of one object, each once (an IndexFunc may repeat one).
std::vector<std::string> ValuesOf(const IndexFunc& fn, const CachedObject& object) {
  std::vector<std::string> values = fn(object);
  if (values.size() > 1) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
  }
  return values;
}

void RemoveSlot(std::vector<uint32_t>& slots, uint32_t slot) {
  auto it = std::find(slots.begin(), slots.end(), slot);
  if (it == slots.end()) return;
  *it = slots.back();
  slots.pop_back();
  if (slots.capacity() > 64 && slots.size() < slots.capacity() / 4) slots.shrink_to_fit();
}

std::chrono::nanoseconds ThreadCpuTime() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace

void Store::IndexLocked(Slot slot, const CachedObject& object) {
  for (const auto& [name, fn] : indexers_) {
    Index& index = indices_[name];
    for (std::string& value : ValuesOf(fn, object)) index[std::move(value)].push_back(slot);
  }
}

void Store::UnindexLocked(Slot slot, const CachedObject& object) {
  for (const auto& [name, fn] : indexers_) {
    Index& index = indices_[name];
    for (const std::string& value : ValuesOf(fn, object)) {
      auto it = index.find(value);
      if (it == index.end()) continue;
      RemoveSlot(it->second, slot);
      if (it->second.empty()) index.erase(it);
    }
  }
}

void Store::ReindexLocked(Slot slot, const CachedObject& before, const CachedObject& after) {
  for (const auto& [name, fn] : indexers_) {
    const std::vector<std::string> old_values = ValuesOf(fn, before);
    std::vector<std::string> new_values = ValuesOf(fn, after);
    if (old_values == new_values) continue;  // most updates (status) move nothing
    Index& index = indices_[name];
    for (const std::string& value : old_values) {
      if (std::find(new_values.begin(), new_values.end(), value) != new_values.end()) continue;
      auto it = index.find(value);
      if (it == index.end()) continue;
      RemoveSlot(it->second, slot);
      if (it->second.empty()) index.erase(it);
    }
    for (std::string& value : new_values) {
      if (std::find(old_values.begin(), old_values.end(), value) != old_values.end()) continue;
      index[std::move(value)].push_back(slot);
    }
  }
}

Store::Slot Store::AllocateSlotLocked(ObjectPtr object) {
  if (!free_slots_.empty()) {
    Slot slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = std::move(object);
    return slot;
  }
  slots_.push_back(std::move(object));
  return static_cast<Slot>(slots_.size() - 1);
}

ReplaceTimings Store::Replace(std::vector<ObjectPtr> objects, std::string resource_version) {
  std::lock_guard dispatch(dispatch_mu_);
  const auto start = std::chrono::steady_clock::now();
  const bool notify = !handlers_.empty();
  const bool initial = !first_replace_done_;
  first_replace_done_ = true;
  const bool concurrent = initial && objects.size() >= kConcurrentDispatchMin;
  std::vector<Notification> notes;
  // Built outside the lock: the new slots, key map and indexes (indexers_ changes only under
  // dispatch_mu_, held here); the old ones are released after the swap, outside the lock too
  // (destroying 100k objects is not free).
  std::vector<ObjectPtr> fresh_slots;
  fresh_slots.reserve(objects.size());
  SlotTable fresh;
  fresh.Reserve(objects.size());
  auto fresh_key = [&fresh_slots](Slot s) { return fresh_slots[s]->Key(); };
  for (ObjectPtr& o : objects) {
    if (!o) continue;
    std::string_view key = o->Key();
    if (auto dup = fresh.Find(key, fresh_key)) {
      fresh_slots[*dup] = std::move(o);  // a duplicate in the list: the later one wins
    } else {
      fresh.Insert(key, static_cast<Slot>(fresh_slots.size()));
      fresh_slots.push_back(std::move(o));
    }
  }
  std::unordered_map<std::string, Index> fresh_indices;
  std::vector<std::pair<const IndexFunc*, Index*>> to_build;
  for (const auto& [name, fn] : indexers_) to_build.emplace_back(&fn, &fresh_indices[name]);
  size_t fresh_bytes = 0;
  // One task per index, and one for the byte count: each writes only its own result.
  RunConcurrently(to_build.size() + 1, concurrent ? ConcurrentThreads() : 1, [&](size_t task) {
    if (task == to_build.size()) {
      for (const ObjectPtr& o : fresh_slots) fresh_bytes += o->FootprintBytes();
      return;
    }
    const auto [fn, index] = to_build[task];
    for (Slot slot = 0; slot < fresh_slots.size(); ++slot) {
      for (std::string& value : ValuesOf(*fn, *fresh_slots[slot])) (*index)[std::move(value)].push_back(slot);
    }
  });
  std::vector<ObjectPtr> old_slots;
  SlotTable old_items;
  std::unordered_map<std::string, Index> old_indices;
  {
    std::unique_lock lock(mu_);
    if (notify) {
      notes.reserve(fresh_slots.size());
      for (const ObjectPtr& obj : fresh_slots) {
        auto slot = items_.Find(obj->Key(), KeyOf());
        if (!slot) {
          notes.push_back({Notification::kAdd, nullptr, obj, initial});
        } else if (const ObjectPtr& was = slots_[*slot]; was->ResourceVersion() != obj->ResourceVersion()) {
          notes.push_back({Notification::kUpdate, was, obj, false});
        }
      }
      for (const ObjectPtr& was : slots_) {
        if (was && !fresh.Find(was->Key(), fresh_key)) notes.push_back({Notification::kDelete, was, nullptr, true});
      }
    }
    old_items.Swap(items_);
    items_.Swap(fresh);
    old_slots.swap(slots_);
    slots_.swap(fresh_slots);
    free_slots_.clear();
    old_indices.swap(indices_);
    indices_.swap(fresh_indices);
    object_bytes_ = fresh_bytes;
    resource_version_ = std::move(resource_version);
  }
  old_items.Clear();
  old_indices.clear();
  old_slots.clear();
  ReplaceTimings timings;
  const auto built = std::chrono::steady_clock::now();
  timings.build = built - start;
  Dispatch(notes, concurrent, &timings);
  timings.dispatch = std::chrono::steady_clock::now() - built;
  return timings;
}

void Store::ApplyEvent(DeltaType type, ObjectPtr object) {
  if (!object) return;
  std::lock_guard dispatch(dispatch_mu_);
  std::vector<Notification> notes;
  {
    std::unique_lock lock(mu_);
    resource_version_ = std::string(object->ResourceVersion());
    auto found = items_.Find(object->Key(), KeyOf());
    if (type == DeltaType::kDeleted) {
      if (!found) return;
      const Slot slot = *found;
      items_.Erase(object->Key(), slot);
      ObjectPtr last = std::move(slots_[slot]);
      UnindexLocked(slot, *last);
      object_bytes_ -= last->FootprintBytes();
      free_slots_.push_back(slot);
      notes.push_back({Notification::kDelete, object, nullptr, false});
    } else if (!found) {
      object_bytes_ += object->FootprintBytes();
      const Slot slot = AllocateSlotLocked(object);
      items_.Insert(object->Key(), slot);
      IndexLocked(slot, *object);
      notes.push_back({Notification::kAdd, nullptr, object, false});
    } else {
      const Slot slot = *found;
      ObjectPtr old = slots_[slot];
      ReindexLocked(slot, *old, *object);
      object_bytes_ -= old->FootprintBytes();
      slots_[slot] = object;  // same key: the table needs no change
      object_bytes_ += object->FootprintBytes();
      notes.push_back({Notification::kUpdate, std::move(old), object, false});
    }
  }
  Dispatch(notes, /*concurrent=*/false);
}

void Store::Dispatch(const std::vector<Notification>& notes, bool concurrent, ReplaceTimings* timings) {
  if (notes.empty()) return;
  if (timings) {
    timings->per_handler.assign(handlers_.size(), std::chrono::nanoseconds(0));
    timings->per_handler_cpu.assign(handlers_.size(), std::chrono::nanoseconds(0));
  }
  // The first list's adds, for the handlers that take them at once.
  std::vector<ObjectPtr> initial_adds;
  if (std::any_of(handlers_.begin(), handlers_.end(), [](const auto& h) { return bool(h.second.on_initial_list); })) {
    for (const Notification& n : notes) {
      if (n.kind == Notification::kAdd && n.flag) initial_adds.push_back(n.new_object);
    }
  }
  RunConcurrently(handlers_.size(), concurrent ? ConcurrentThreads() : 1, [&](size_t i) {
    const EventHandler& h = handlers_[i].second;
    const auto handler_start = std::chrono::steady_clock::now();
    const auto cpu_start = ThreadCpuTime();
    const bool bulk = h.on_initial_list && !initial_adds.empty();
    if (bulk) h.on_initial_list(initial_adds);
    for (const Notification& n : notes) {
      switch (n.kind) {
        case Notification::kAdd:
          if (bulk && n.flag) break;
          if (h.on_add) h.on_add(n.new_object, n.flag);
          break;
        case Notification::kUpdate:
          if (h.on_update) h.on_update(n.old_object, n.new_object);
          break;
        case Notification::kDelete:
          if (h.on_delete) {
            h.on_delete(DeletedObject{std::string(n.old_object->Key()), n.old_object, n.flag});
          }
          break;
      }
    }
    if (timings) {
      timings->per_handler[i] = std::chrono::steady_clock::now() - handler_start;
      timings->per_handler_cpu[i] = ThreadCpuTime() - cpu_start;
    }
  });
}

Status Store::AddIndexers(const Indexers& indexers) {
  std::lock_guard dispatch(dispatch_mu_);
  std::unique_lock lock(mu_);
  for (const auto& [name, fn] : indexers) {
    if (indexers_.contains(name) || !fn) {
      return MakeError(ErrorCode::kAlreadyExists, "indexer conflict: " + name);
    }
  }
  for (const auto& [name, fn] : indexers) {
    indexers_.emplace(name, fn);
    Index& index = indices_[name];
    for (Slot slot = 0; slot < slots_.size(); ++slot) {
      if (!slots_[slot]) continue;
      for (std::string& value : ValuesOf(fn, *slots_[slot])) index[std::move(value)].push_back(slot);
    }
  }
  return {};
}

HandlerId Store::AddEventHandler(EventHandler handler, bool replay_existing) {
  std::lock_guard dispatch(dispatch_mu_);
  if (replay_existing && handler.on_initial_list) {
    if (std::vector<ObjectPtr> existing = List(); !existing.empty()) handler.on_initial_list(existing);
  } else if (replay_existing && handler.on_add) {
    for (const ObjectPtr& o : List()) handler.on_add(o, true);
  }
  HandlerId id = next_handler_id_++;
  handlers_.emplace_back(id, std::move(handler));
  return id;
}

void Store::RemoveEventHandler(HandlerId id) {
  std::lock_guard dispatch(dispatch_mu_);
  std::erase_if(handlers_, [id](const auto& h) { return h.first == id; });
}

ObjectPtr Store::Get(std::string_view key) const {
  std::shared_lock lock(mu_);
  auto slot = items_.Find(key, KeyOf());
  return slot ? slots_[*slot] : nullptr;
}

std::vector<ObjectPtr> Store::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const ObjectPtr& o : slots_) {
    if (o) out.push_back(o);
  }
  return out;
}

std::vector<std::string> Store::ListKeys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const ObjectPtr& o : slots_) {
    if (o) out.emplace_back(o->Key());
  }
  return out;
}

Result<std::vector<ObjectPtr>> Store::ByIndex(std::string_view index_name,
                                              std::string_view value) const {
  std::shared_lock lock(mu_);
  auto idx = indices_.find(std::string(index_name));
  if (idx == indices_.end() || !indexers_.contains(std::string(index_name))) {
    return MakeError(ErrorCode::kNotFound,
                     "index with name " + std::string(index_name) + " does not exist");
  }
  std::vector<ObjectPtr> out;
  auto slots = idx->second.find(std::string(value));
  if (slots == idx->second.end()) return out;
  out.reserve(slots->second.size());
  for (Slot slot : slots->second) out.push_back(slots_[slot]);
  return out;
}

Result<std::vector<std::string>> Store::IndexValues(std::string_view index_name) const {
  std::shared_lock lock(mu_);
  auto idx = indices_.find(std::string(index_name));
  if (idx == indices_.end() || !indexers_.contains(std::string(index_name))) {
    return MakeError(ErrorCode::kNotFound,
                     "index with name " + std::string(index_name) + " does not exist");
  }
  std::vector<std::string> out;
  for (const auto& [value, keys] : idx->second) out.push_back(value);
  std::sort(out.begin(), out.end());
  return out;
}

size_t Store::Size() const {
  std::shared_lock lock(mu_);
  return items_.size();
}

std::string Store::ResourceVersion() const {
  std::shared_lock lock(mu_);
  return resource_version_;
}

size_t Store::FootprintBytes() const {
  std::shared_lock lock(mu_);
  size_t bytes = object_bytes_ + items_.FootprintBytes() + slots_.capacity() * sizeof(ObjectPtr) +
                 free_slots_.capacity() * sizeof(Slot);
  for (const auto& [name, index] : indices_) {
    bytes += index.bucket_count() * sizeof(void*);
    for (const auto& [value, slots] : index) {
      bytes += 96 + value.capacity() + slots.capacity() * sizeof(Slot);
    }
  }
  return bytes;
}

}  // namespace berth::shim
