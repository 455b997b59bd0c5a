#include "e2e/kubesim/store/object_store.h"

#include <algorithm>

namespace berth::kubesim {

std::optional<HistoryEvent> Watcher::Next(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return closed_ || !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;
  HistoryEvent event = std::move(queue_.front());
  queue_.pop_front();
  return event;
}

bool Watcher::closed() const {
  std::lock_guard lock(mu_);
  return closed_ && queue_.empty();
}

bool Watcher::expired() const {
  std::lock_guard lock(mu_);
  return expired_;
}

ObjectStore::ObjectStore(size_t history_window) : history_window_(std::max<size_t>(history_window, 1)) {}

std::string ObjectStore::Key(const std::string& ns, const std::string& name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).push_back('/');
  key.append(name);
  return key;
}

uint64_t ObjectStore::CurrentResourceVersion() const {
  std::lock_guard lock(mu_);
  return rv_;
}

ObjectPtr ObjectStore::Get(const std::string& resource, const std::string& ns,
                           const std::string& name) const {
  std::lock_guard lock(mu_);
  auto coll = collections_.find(resource);
  if (coll == collections_.end()) return nullptr;
  auto it = coll->second.find(Key(ns, name));
  return it == coll->second.end() ? nullptr : it->second;
}

std::optional<ListResult> ObjectStore::List(const std::string& resource, const std::string& ns,
                                            const ObjectFilter& filter, uint64_t at_rv,
                                            size_t limit, const std::string& start_key,
                                            uint64_t offset) const {
  std::lock_guard lock(mu_);
  ListResult result;
  if (at_rv == 0 || at_rv >= rv_) {
    at_rv = 0;
    result.resource_version = rv_;
  } else {
    if (at_rv < compacted_rv_) return std::nullopt;
    result.resource_version = at_rv;
  }
  static const Collection kEmpty;
  auto coll_it = collections_.find(resource);
  const Collection& coll = coll_it == collections_.end() ? kEmpty : coll_it->second;

  // The state at an older RV is the current state overlaid with the versions that the newer
  // events replaced; walking history newest → oldest leaves the oldest replacement in place.
  std::map<std::string, ObjectPtr, std::less<>> overlay;
  if (at_rv != 0) {
    for (auto it = history_.rbegin(); it != history_.rend() && it->resource_version > at_rv; ++it) {
      if (it->resource != resource) continue;
      const ObjectPtr& any = it->object ? it->object : it->previous;
      overlay[Key(any->namespace_name, any->name)] =
          it->type == WatchEventType::kAdded ? nullptr : it->previous;
    }
  }

  const std::string ns_prefix = ns.empty() ? "" : ns + "/";
  // Pages continue strictly after start_key; a namespace confines the walk to its key prefix.
  auto begin_at = [&](const auto& m) {
    if (!start_key.empty() && (ns.empty() || start_key >= ns_prefix)) return m.upper_bound(start_key);
    return ns.empty() ? m.begin() : m.lower_bound(ns_prefix);
  };
  auto cur = begin_at(coll);
  auto ov = begin_at(overlay);
  bool more = false;
  std::string last_key;
  while (cur != coll.end() || ov != overlay.end()) {
    const std::string* key;
    ObjectPtr obj;
    if (ov == overlay.end() || (cur != coll.end() && cur->first < ov->first)) {
      key = &cur->first;
      obj = cur->second;
      ++cur;
    } else {
      key = &ov->first;
      obj = ov->second;
      if (cur != coll.end() && cur->first == ov->first) ++cur;
      ++ov;
    }
    if (!ns_prefix.empty() && key->compare(0, ns_prefix.size(), ns_prefix) != 0) break;
    if (!obj || (filter && !filter(*obj))) continue;
    if (limit != 0 && result.items.size() >= limit) {
      more = true;  // one more match exists: that is all a page needs to know
      break;
    }
    result.items.push_back(std::move(obj));
    last_key = *key;
  }
  if (!more) return result;
  result.next_key = last_key;
  result.next_offset = offset + result.items.size();
  if (filter) {
    result.remaining = -1;
    return result;
  }
  // Unfiltered: total at at_rv = current count, corrected by the overlay's differences.
  int64_t total = 0;
  if (auto counts = namespace_counts_.find(resource); counts != namespace_counts_.end()) {
    if (ns.empty()) {
      total = static_cast<int64_t>(coll.size());
    } else if (auto c = counts->second.find(ns); c != counts->second.end()) {
      total = static_cast<int64_t>(c->second);
    }
  }
  for (const auto& [key, then] : overlay) {
    if (!ns_prefix.empty() && key.compare(0, ns_prefix.size(), ns_prefix) != 0) continue;
    total += (then ? 1 : 0) - (coll.count(key) ? 1 : 0);
  }
  result.remaining = std::max<int64_t>(0, total - static_cast<int64_t>(result.next_offset));
  return result;
}

void ObjectStore::AppendHistoryLocked(HistoryEvent event) {
  history_.push_back(std::move(event));
  while (history_.size() > history_window_) {
    compacted_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
}

void ObjectStore::PublishAndUnlock(std::unique_lock<std::mutex>& lock, const HistoryEvent& event) {
  AppendHistoryLocked(event);
  NotifyLocked(event);
  // notify_mu_ is taken before mu_ is released so listeners see events in commit order, and
  // listeners run without mu_ so they may read the store.
  std::unique_lock notify(notify_mu_);
  lock.unlock();
  std::vector<std::function<void(const HistoryEvent&)>> listeners;
  {
    std::lock_guard ll(listeners_mu_);
    listeners = listeners_;
  }
  for (auto& listener : listeners) listener(event);
}

void ObjectStore::NotifyLocked(const HistoryEvent& event) {
  auto it = watchers_.begin();
  while (it != watchers_.end()) {
    auto watcher = it->lock();
    if (!watcher) {
      it = watchers_.erase(it);
      continue;
    }
    ++it;
    if (watcher->resource_ != event.resource) continue;
    const ObjectPtr& any = event.object ? event.object : event.previous;
    if (!watcher->namespace_.empty() && any->namespace_name != watcher->namespace_) continue;
    {
      std::lock_guard wl(watcher->mu_);
      if (watcher->closed_) continue;
      watcher->queue_.push_back(event);
    }
    watcher->cv_.notify_one();
  }
}

std::optional<ObjectStore::Commit> ObjectStore::Put(const std::string& resource,
                                                    const std::string& ns, const std::string& name,
                                                    const Builder& build) {
  std::unique_lock lock(mu_);
  Collection& coll = collections_[resource];
  const std::string key = Key(ns, name);
  auto it = coll.find(key);
  ObjectPtr current = it == coll.end() ? nullptr : it->second;
  ObjectPtr next = build(current, rv_ + 1);
  if (!next) return std::nullopt;
  ++rv_;
  HistoryEvent event{current ? WatchEventType::kModified : WatchEventType::kAdded, resource, next,
                     current, rv_};
  if (it == coll.end()) {
    coll.emplace(key, next);
    ++namespace_counts_[resource][ns];
  } else {
    it->second = next;
  }
  PublishAndUnlock(lock, event);
  return Commit{next, current, false};
}

std::optional<ObjectStore::Commit> ObjectStore::Remove(const std::string& resource,
                                                       const std::string& ns,
                                                       const std::string& name,
                                                       const Builder& build) {
  std::unique_lock lock(mu_);
  auto coll_it = collections_.find(resource);
  if (coll_it == collections_.end()) return std::nullopt;
  Collection& coll = coll_it->second;
  auto it = coll.find(Key(ns, name));
  if (it == coll.end()) return std::nullopt;
  ObjectPtr current = it->second;
  ObjectPtr final_version = build(current, rv_ + 1);
  if (!final_version) return std::nullopt;
  ++rv_;
  coll.erase(it);
  if (auto& count = namespace_counts_[resource][ns]; count > 0) --count;
  HistoryEvent event{WatchEventType::kDeleted, resource, final_version, current, rv_};
  PublishAndUnlock(lock, event);
  return Commit{final_version, current, true};
}

WatcherPtr ObjectStore::Watch(const std::string& resource, const std::string& ns,
                              uint64_t from_rv) {
  std::lock_guard lock(mu_);
  if (from_rv < compacted_rv_) return nullptr;
  auto watcher = std::make_shared<Watcher>();
  watcher->resource_ = resource;
  watcher->namespace_ = ns;
  // History is ordered by RV; replay what the client has not seen yet.
  auto first = std::upper_bound(history_.begin(), history_.end(), from_rv,
                                [](uint64_t rv, const HistoryEvent& e) { return rv < e.resource_version; });
  for (auto it = first; it != history_.end(); ++it) {
    if (it->resource != resource) continue;
    const ObjectPtr& any = it->object ? it->object : it->previous;
    if (!ns.empty() && any->namespace_name != ns) continue;
    watcher->queue_.push_back(*it);
  }
  watchers_.push_back(watcher);
  return watcher;
}

void ObjectStore::StopWatch(const WatcherPtr& watcher) {
  if (!watcher) return;
  {
    std::lock_guard wl(watcher->mu_);
    watcher->closed_ = true;
    watcher->queue_.clear();
  }
  watcher->cv_.notify_all();
  std::lock_guard lock(mu_);
  std::erase_if(watchers_, [&](const std::weak_ptr<Watcher>& w) {
    auto p = w.lock();
    return !p || p == watcher;
  });
}

void ObjectStore::CloseAllWatchers() {
  std::lock_guard lock(mu_);
  for (auto& weak : watchers_) {
    if (auto watcher = weak.lock()) {
      {
        std::lock_guard wl(watcher->mu_);
        watcher->closed_ = true;
      }
      watcher->cv_.notify_all();
    }
  }
  watchers_.clear();
}

void ObjectStore::Subscribe(std::function<void(const HistoryEvent&)> listener) {
  std::lock_guard ll(listeners_mu_);
  listeners_.push_back(std::move(listener));
}

std::vector<std::string> ObjectStore::Resources() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [resource, coll] : collections_) {
    if (!coll.empty()) out.push_back(resource);
  }
  return out;
}

uint64_t ObjectStore::OldestRetainedResourceVersion() const {
  std::lock_guard lock(mu_);
  return compacted_rv_;
}

void ObjectStore::SetHistoryWindow(size_t events) {
  std::lock_guard lock(mu_);
  history_window_ = std::max<size_t>(events, 1);
  while (history_.size() > history_window_) {
    compacted_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
}

size_t ObjectStore::HistoryWindow() const {
  std::lock_guard lock(mu_);
  return history_window_;
}

size_t ObjectStore::ObjectCount() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [resource, coll] : collections_) n += coll.size();
  return n;
}

}  // namespace berth::kubesim
