// clientgo-shim/cache/store.h
//
// Store: the informer's in-memory copy of one resource kind, keyed by "<ns>/<name>", with named
// indexes and event handlers. Pipeline: reflector → [Store] → handlers.
// - One writer (the reflector's thread) calls Replace (after a full LIST) and ApplyEvent (per
//   watch event). Replace computes tombstones for objects that vanished between lists
//   (client-go's DeletedFinalStateUnknown): handlers see them as deletes with
//   final_state_unknown = true.
// - Any number of readers call Get/List/ByIndex from any thread. They see the last state the
//   watch delivered, which can lag the server. They get shared ObjectPtrs: immutable, never
//   changed in place; an update swaps the pointer.
// - Handlers run synchronously on the writer's thread, in event order, after the store has been
//   updated and without the read lock held (a handler may read the store). Keep them short
//   (enqueue a key). A handler must not call the writer API or AddEventHandler (deadlock).
// Example:
//   Store store;
//   store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}});
//   auto pods_on_n1 = store.ByIndex(kNodeNameIndex, "node-1");
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/cached_object.h"

namespace berth::shim {

// kNamespaceIndex is client-go's cache.NamespaceIndex.
inline constexpr char kNamespaceIndex[] = "namespace";
// kNodeNameIndex indexes pods by spec.nodeName (unscheduled pods are not indexed).
inline constexpr char kNodeNameIndex[] = "spec.nodeName";

// IndexFunc returns the index values of one object (empty: not indexed). It must be
// deterministic: the store calls it again on the old object to remove stale entries.
using IndexFunc = std::function<std::vector<std::string>(const CachedObject& object)>;
using Indexers = std::map<std::string, IndexFunc>;

// NamespaceIndexFunc: the object's namespace (cluster-scoped objects are not indexed).
IndexFunc NamespaceIndexFunc();
// NodeNameIndexFunc: spec.nodeName when set.
IndexFunc NodeNameIndexFunc();

// DeltaType: the kind of change ApplyEvent applies.
enum class DeltaType { kAdded, kModified, kDeleted };

// DeletedObject is what OnDelete receives.
struct DeletedObject {
  std::string key;
  ObjectPtr object;                  // the last state the store (or the DELETED event) had
  bool final_state_unknown = false;  // deleted while the watch was down; seen at a relist
};

// EventHandler: any callback may be empty.
struct EventHandler {
  // in_initial_list: the object came from the first full list (or a replay for a late handler).
  std::function<void(const ObjectPtr& object, bool in_initial_list)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  std::function<void(const DeletedObject& deleted)> on_delete;
};
using HandlerId = uint64_t;

class Store {
 public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // ---- writer (one thread) ----

  // Replace swaps in the result of a full list. Objects new to the store → on_add; objects whose
  // resourceVersion changed → on_update; objects no longer listed → on_delete with
  // final_state_unknown. Unchanged objects produce no event.
  void Replace(std::vector<ObjectPtr> objects, std::string resource_version);
  // ApplyEvent applies one watch event. kAdded/kModified upsert (an add for an unknown key, an
  // update otherwise); kDeleted removes the key, notifying with `object` (its last state). A
  // delete of an unknown key is ignored. A null object is ignored.
  void ApplyEvent(DeltaType type, ObjectPtr object);

  // ---- configuration ----

  // AddIndexers adds named indexes and indexes the objects already stored.
  // Errors: kAlreadyExists when a name is taken ("indexer conflict: <name>").
  Status AddIndexers(const Indexers& indexers);
  // AddEventHandler registers a handler. With replay_existing, it first receives on_add(obj,
  // true) for every stored object, atomically with respect to the writer (no event is missed or
  // seen twice). Returns an id for RemoveEventHandler.
  HandlerId AddEventHandler(EventHandler handler, bool replay_existing);
  void RemoveEventHandler(HandlerId id);

  // ---- readers (any thread) ----

  // Get returns the object with this key, or nullptr.
  ObjectPtr Get(std::string_view key) const;
  // List returns every object, in no particular order (a snapshot; holds the read lock while
  // copying pointers).
  std::vector<ObjectPtr> List() const;
  std::vector<std::string> ListKeys() const;
  // ByIndex returns the objects whose index `index_name` has `value`.
  // Errors: kNotFound when no such index ("index with name X does not exist").
  Result<std::vector<ObjectPtr>> ByIndex(std::string_view index_name,
                                         std::string_view value) const;
  // IndexValues returns the values present in an index (sorted). Errors: as ByIndex.
  Result<std::vector<std::string>> IndexValues(std::string_view index_name) const;
  size_t Size() const;
  // ResourceVersion: of the last Replace or event applied ("" before the first).
  std::string ResourceVersion() const;
  // FootprintBytes estimates the store's own heap: objects (FootprintBytes), hash nodes of the
  // key map and indexes. Interned strings are counted by the InternPool.
  size_t FootprintBytes() const;

 private:
  using KeySet = std::unordered_set<std::string_view>;  // views into CachedObject keys
  using Index = std::unordered_map<std::string, KeySet>;
  struct Notification {
    enum Kind { kAdd, kUpdate, kDelete } kind;
    ObjectPtr old_object;  // update: old; delete: last state
    ObjectPtr new_object;  // add/update
    bool flag = false;     // add: in_initial_list; delete: final_state_unknown
  };

  void IndexLocked(const CachedObject& object);
  void UnindexLocked(const CachedObject& object);
  void Dispatch(const std::vector<Notification>& notes);

  // dispatch_mu_ serialises the writer (update + dispatch) and handler registration.
  std::mutex dispatch_mu_;
  std::vector<std::pair<HandlerId, EventHandler>> handlers_;
  HandlerId next_handler_id_ = 1;
  bool first_replace_done_ = false;

  mutable std::shared_mutex mu_;  // guards everything below
  std::unordered_map<std::string_view, ObjectPtr> items_;  // key views into the object
  Indexers indexers_;
  std::unordered_map<std::string, Index> indices_;
  std::string resource_version_;
  size_t object_bytes_ = 0;
};

}  // namespace berth::shim
