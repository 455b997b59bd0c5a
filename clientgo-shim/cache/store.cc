#include "clientgo-shim/cache/store.h"

#include <algorithm>

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

void Store::IndexLocked(const CachedObject& object) {
  for (const auto& [name, fn] : indexers_) {
    Index& index = indices_[name];
    for (std::string& value : fn(object)) index[std::move(value)].insert(object.Key());
  }
}

void Store::UnindexLocked(const CachedObject& object) {
  for (const auto& [name, fn] : indexers_) {
    Index& index = indices_[name];
    for (const std::string& value : fn(object)) {
      auto it = index.find(value);
      if (it == index.end()) continue;
      it->second.erase(object.Key());
      if (it->second.empty()) index.erase(it);
    }
  }
}

void Store::Replace(std::vector<ObjectPtr> objects, std::string resource_version) {
  std::lock_guard dispatch(dispatch_mu_);
  const bool notify = !handlers_.empty();
  const bool initial = !first_replace_done_;
  first_replace_done_ = true;
  std::vector<Notification> notes;
  // Built outside the lock: the new map and indexes; the old map is released after the swap,
  // outside the lock too (destroying 100k objects is not free).
  std::unordered_map<std::string_view, ObjectPtr> fresh;
  fresh.reserve(objects.size());
  for (ObjectPtr& o : objects) {
    if (!o) continue;
    std::string_view key = o->Key();
    auto [it, inserted] = fresh.try_emplace(key, o);
    if (!inserted) {  // a duplicate in the list: the later one wins, re-keyed to its own view
      auto node = fresh.extract(it);
      node.key() = key;
      node.mapped() = std::move(o);
      fresh.insert(std::move(node));
    }
  }
  std::unordered_map<std::string_view, ObjectPtr> old;
  {
    std::unique_lock lock(mu_);
    if (notify) {
      notes.reserve(fresh.size());
      for (const auto& [key, obj] : fresh) {
        auto it = items_.find(key);
        if (it == items_.end()) {
          notes.push_back({Notification::kAdd, nullptr, obj, initial});
        } else if (it->second->ResourceVersion() != obj->ResourceVersion()) {
          notes.push_back({Notification::kUpdate, it->second, obj, false});
        }
      }
      for (const auto& [key, obj] : items_) {
        if (!fresh.contains(key)) notes.push_back({Notification::kDelete, obj, nullptr, true});
      }
    }
    old.swap(items_);
    items_.swap(fresh);
    indices_.clear();
    object_bytes_ = 0;
    for (const auto& [key, obj] : items_) {
      object_bytes_ += obj->FootprintBytes();
      IndexLocked(*obj);
    }
    resource_version_ = std::move(resource_version);
  }
  old.clear();
  Dispatch(notes);
}

void Store::ApplyEvent(DeltaType type, ObjectPtr object) {
  if (!object) return;
  std::lock_guard dispatch(dispatch_mu_);
  std::vector<Notification> notes;
  {
    std::unique_lock lock(mu_);
    resource_version_ = std::string(object->ResourceVersion());
    auto it = items_.find(object->Key());
    if (type == DeltaType::kDeleted) {
      if (it == items_.end()) return;
      ObjectPtr last = it->second;
      UnindexLocked(*last);
      object_bytes_ -= last->FootprintBytes();
      items_.erase(it);
      notes.push_back({Notification::kDelete, object, nullptr, false});
    } else if (it == items_.end()) {
      object_bytes_ += object->FootprintBytes();
      items_.emplace(object->Key(), object);
      IndexLocked(*object);
      notes.push_back({Notification::kAdd, nullptr, object, false});
    } else {
      ObjectPtr old = it->second;
      UnindexLocked(*old);
      object_bytes_ -= old->FootprintBytes();
      // Re-key the node: the map key is a view into the object, which is being replaced.
      auto node = items_.extract(it);
      node.key() = object->Key();
      node.mapped() = object;
      items_.insert(std::move(node));
      object_bytes_ += object->FootprintBytes();
      IndexLocked(*object);
      notes.push_back({Notification::kUpdate, std::move(old), object, false});
    }
  }
  Dispatch(notes);
}

void Store::Dispatch(const std::vector<Notification>& notes) {
  for (const auto& [id, h] : handlers_) {
    for (const Notification& n : notes) {
      switch (n.kind) {
        case Notification::kAdd:
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
  }
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
    for (const auto& [key, obj] : items_) {
      for (std::string& value : fn(*obj)) index[std::move(value)].insert(obj->Key());
    }
  }
  return {};
}

HandlerId Store::AddEventHandler(EventHandler handler, bool replay_existing) {
  std::lock_guard dispatch(dispatch_mu_);
  if (replay_existing && handler.on_add) {
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
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Store::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, obj] : items_) out.push_back(obj);
  return out;
}

std::vector<std::string> Store::ListKeys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [key, obj] : items_) out.emplace_back(key);
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
  auto set = idx->second.find(std::string(value));
  if (set == idx->second.end()) return out;
  out.reserve(set->second.size());
  for (std::string_view key : set->second) {
    if (auto it = items_.find(key); it != items_.end()) out.push_back(it->second);
  }
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
  // Hash node: key view + shared_ptr + next pointer + cached hash, rounded by malloc; + bucket.
  constexpr size_t kItemNode = 48 + 16;
  constexpr size_t kSetNode = 32 + 16;  // view + next + hash, rounded
  size_t bytes = object_bytes_ + items_.size() * kItemNode + items_.bucket_count() * sizeof(void*);
  for (const auto& [name, index] : indices_) {
    bytes += index.bucket_count() * sizeof(void*);
    for (const auto& [value, keys] : index) {
      bytes += 96 + value.capacity() + keys.size() * kSetNode + keys.bucket_count() * sizeof(void*);
    }
  }
  return bytes;
}

}  // namespace berth::shim
