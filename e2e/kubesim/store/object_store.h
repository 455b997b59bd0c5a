// e2e/kubesim/store/object_store.h
//
// kubesim's storage: what etcd plus the watch cache are to kube-apiserver. Objects are kept as
// serialized JSON (compact, and LIST/WATCH bodies are mostly concatenation) next to the few
// fields that selectors read. Every write takes the next value of one global, monotonic
// resourceVersion and is appended to a bounded history, which serves watches that resume from an
// older resourceVersion and LISTs at an exact older resourceVersion (continue pages, Exact match).
// Thread-safety: every public method may be called from any thread; one mutex guards the state.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace berth::kubesim {

// EncodingCache: a lazily computed alternative encoding of an immutable object (its protobuf
// message), so repeated protobuf LISTs and watches encode each version once. Any thread may fill
// it; a racing second fill stores an equal value. A copy starts empty (its JSON may change).
class EncodingCache {
 public:
  EncodingCache() = default;
  EncodingCache(const EncodingCache&) {}
  EncodingCache& operator=(const EncodingCache&) {
    value_.store(nullptr);
    return *this;
  }
  std::shared_ptr<const std::string> Get() const { return value_.load(std::memory_order_acquire); }
  void Set(std::shared_ptr<const std::string> v) const { value_.store(std::move(v), std::memory_order_release); }

 private:
  mutable std::atomic<std::shared_ptr<const std::string>> value_;
};

// StoredObject: one immutable version of an object. Shared between the store, the history and
// in-flight responses, so a LIST never copies object bodies under the lock.
struct StoredObject {
  std::string json;  // the full object, serialized, with metadata.resourceVersion set
  uint64_t resource_version = 0;
  std::string namespace_name;  // "" for cluster-scoped
  std::string name;
  std::string uid;
  std::map<std::string, std::string, std::less<>> labels;
  // Selectable fields beyond metadata.name/namespace (spec.nodeName, status.phase, ...).
  std::map<std::string, std::string> fields;
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::vector<std::string> owner_uids;  // metadata.ownerReferences[].uid, for the GC's index
  EncodingCache protobuf;  // the object's protobuf message (no envelope), once a client asked for it
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

enum class WatchEventType { kAdded, kModified, kDeleted };

// HistoryEvent: one committed change; `previous` is the version it replaced (null for ADDED).
struct HistoryEvent {
  WatchEventType type;
  std::string resource;  // "group/plural", "" group for core: "/pods"
  ObjectPtr object;      // the new version; for DELETED the last version, with the delete's RV
  ObjectPtr previous;
  uint64_t resource_version;
};

// ObjectFilter: a predicate on objects (namespace, label and field selectors).
using ObjectFilter = std::function<bool(const StoredObject&)>;

// ListResult: one page, in key order (namespace/name), at `resource_version`.
struct ListResult {
  std::vector<ObjectPtr> items;
  uint64_t resource_version = 0;
  std::string next_key;  // empty when this was the last page; else the key to continue from
  // Matching items after this page (remainingItemCount), or -1 when unknown: with a filter the
  // apiserver cannot count cheaply and leaves it unset, and so does kubesim.
  int64_t remaining = 0;
  uint64_t next_offset = 0;  // matching items before next_key: carried in the continue token
};

// Watcher: a subscription to one resource's changes; filled by commits, drained by one reader.
class Watcher {
 public:
  // Next waits until an event or a close; returns nullopt on timeout or close.
  std::optional<HistoryEvent> Next(std::chrono::steady_clock::time_point deadline);
  bool closed() const;
  // Expired is true when the watcher fell too far behind and was closed with 410 semantics.
  bool expired() const;

 private:
  friend class ObjectStore;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<HistoryEvent> queue_;
  bool closed_ = false;
  bool expired_ = false;
  std::string resource_;
  std::string namespace_;  // "" = all
};
using WatcherPtr = std::shared_ptr<Watcher>;

// ObjectStore: see the file comment.
class ObjectStore {
 public:
  explicit ObjectStore(size_t history_window = 50000);

  uint64_t CurrentResourceVersion() const;

  // Get returns the current version, or null.
  ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) const;

  // List returns matching objects at `at_rv` (0 = current). Returns nullopt when `at_rv` is older
  // than the retained history (the caller answers 410 Expired). Pages start after `start_key`;
  // `offset` is how many items earlier pages returned (for remainingItemCount). A page costs
  // O(limit + changes since at_rv), never a walk of the whole collection.
  std::optional<ListResult> List(const std::string& resource, const std::string& ns,
                                 const ObjectFilter& filter, uint64_t at_rv, size_t limit,
                                 const std::string& start_key, uint64_t offset = 0) const;

  // Mutation: `build` receives the current version (null when absent) and the RV the write will
  // get, and returns the new object (null = no change). It runs under the store lock, so it must
  // not call back into the store. Returns the committed object or the error string `build` set.
  struct Commit {
    ObjectPtr object;
    ObjectPtr previous;
    bool deleted = false;
  };
  using Builder = std::function<ObjectPtr(const ObjectPtr& current, uint64_t next_rv)>;
  // Put commits an ADDED or MODIFIED event for the object `build` returns.
  std::optional<Commit> Put(const std::string& resource, const std::string& ns,
                            const std::string& name, const Builder& build);
  // Remove deletes the object if `precondition` (may be empty) accepts it; the DELETED event
  // carries `final_version` (the object with the delete's RV), produced by `build`.
  std::optional<Commit> Remove(const std::string& resource, const std::string& ns,
                               const std::string& name, const Builder& build);

  // Watch subscribes to changes of `resource` (in `ns`, "" = all) after `from_rv`. Returns null
  // when `from_rv` is older than the history window (410). Events already in history after
  // from_rv are queued at once.
  WatcherPtr Watch(const std::string& resource, const std::string& ns, uint64_t from_rv);
  void StopWatch(const WatcherPtr& watcher);

  // Subscribe registers an internal listener called after every commit, outside the lock, in
  // commit order (kubesim's own controllers use it). Listeners must be quick.
  void Subscribe(std::function<void(const HistoryEvent&)> listener);

  // Resources lists every resource key with at least one object.
  std::vector<std::string> Resources() const;

  // The oldest RV a watch may resume from (exclusive).
  uint64_t OldestRetainedResourceVersion() const;
  void SetHistoryWindow(size_t events);
  size_t HistoryWindow() const;
  size_t ObjectCount() const;

  // Key is the ordering key of objects within a resource: "namespace/name".
  static std::string Key(const std::string& ns, const std::string& name);

  // DropAllWatchers closes every watch (kubesim's "restart" fault and shutdown).
  void CloseAllWatchers();

 private:
  using Collection = std::map<std::string, ObjectPtr, std::less<>>;
  // Objects per namespace of each resource, so a page can report remainingItemCount in O(1).
  using NamespaceCounts = std::unordered_map<std::string, size_t>;
  void AppendHistoryLocked(HistoryEvent event);
  void NotifyLocked(const HistoryEvent& event);
  // PublishAndUnlock records a committed event (history, watchers), releases `lock` (on mu_) and
  // calls the listeners in commit order; used by every write path.
  void PublishAndUnlock(std::unique_lock<std::mutex>& lock, const HistoryEvent& event);

  mutable std::mutex mu_;
  uint64_t rv_ = 1;
  std::unordered_map<std::string, Collection> collections_;
  std::unordered_map<std::string, NamespaceCounts> namespace_counts_;
  std::deque<HistoryEvent> history_;
  size_t history_window_;
  uint64_t compacted_rv_ = 1;  // history holds every event with rv > compacted_rv_
  std::vector<std::weak_ptr<Watcher>> watchers_;
  std::mutex listeners_mu_;
  std::vector<std::function<void(const HistoryEvent&)>> listeners_;
  std::mutex notify_mu_;  // serialises listener delivery so listeners see commit order
};

}  // namespace berth::kubesim
