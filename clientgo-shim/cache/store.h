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
//   The first Replace of a large list (kConcurrentDispatchMin objects or more) hands its adds to
//   each handler on up to hardware_concurrency threads at once, a handler per thread: every
//   handler still sees every add, in list order, on one thread; Replace returns after all of
//   them. Handlers must therefore not share unlocked state with another handler of the same
//   store (they already run concurrently with other stores' handlers and with reconcilers).
// - Memory: each stored object has a slot, found by key through a SlotTable (no per-object
//   hash node); an index maps a value to a vector of slot numbers
//   (4 bytes per indexed object, not a hash-set node per object), and an update whose index
//   values did not change leaves the index alone.
// Example:
//   Store store;
//   store.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}});
//   auto pods_on_n1 = store.ByIndex(kNodeNameIndex, "node-1");
#pragma once

#include <chrono>
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
#include "clientgo-shim/cache/slot_table.h"

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

// kConcurrentDispatchMin: the size of a first list from which Replace builds indexes and runs
// handlers on several threads.
inline constexpr size_t kConcurrentDispatchMin = 2048;

// DeltaType: the kind of change ApplyEvent applies.
enum class DeltaType { kAdded, kModified, kDeleted };

// DeletedObject is what OnDelete receives.
struct DeletedObject {
  std::string key;
  ObjectPtr object;                  // the last state the store (or the DELETED event) had
  bool final_state_unknown = false;  // deleted while the watch was down; seen at a relist
};

// ReplaceTimings: where one Replace spent its time (the reflector logs them for the first list).
struct ReplaceTimings {
  std::chrono::nanoseconds build{0};     // the new key map and indexes (and the event diff)
  std::chrono::nanoseconds dispatch{0};  // the handlers, all of them
  std::vector<std::chrono::nanoseconds> per_handler;      // each handler's wall time, in registration order
  std::vector<std::chrono::nanoseconds> per_handler_cpu;  // and its thread's CPU time (load-independent)
};

// EventHandler: any callback may be empty.
struct EventHandler {
  // in_initial_list: the object came from the first full list (or a replay for a late handler).
  std::function<void(const ObjectPtr& object, bool in_initial_list)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  std::function<void(const DeletedObject& deleted)> on_delete;
  // on_initial_list, when set, receives the first list's adds (or a late handler's replay) in
  // one call, in list order, instead of on_add(object, true) for each: a handler can then build
  // its state in bulk (e.g. convert objects on several threads). Its other events still arrive
  // one by one.
  std::function<void(const std::vector<ObjectPtr>& objects)> on_initial_list = nullptr;
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
  ReplaceTimings Replace(std::vector<ObjectPtr> objects, std::string resource_version);
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
  using Slot = uint32_t;
  // Index: value → the slots of the objects with that value, unordered (removal swaps with the
  // last). Each object appears once per value.
  using Index = std::unordered_map<std::string, std::vector<Slot>>;
  struct Notification {
    enum Kind { kAdd, kUpdate, kDelete } kind;
    ObjectPtr old_object;  // update: old; delete: last state
    ObjectPtr new_object;  // add/update
    bool flag = false;     // add: in_initial_list; delete: final_state_unknown
  };

  void IndexLocked(Slot slot, const CachedObject& object);
  void UnindexLocked(Slot slot, const CachedObject& object);
  // ReindexLocked moves `slot` between index values where `before` and `after` differ.
  void ReindexLocked(Slot slot, const CachedObject& before, const CachedObject& after);
  Slot AllocateSlotLocked(ObjectPtr object);
  // KeyOf reads a filed slot's key for items_ (callers hold mu_).
  auto KeyOf() const {
    return [this](Slot slot) { return slots_[slot]->Key(); };
  }
  void Dispatch(const std::vector<Notification>& notes, bool concurrent, ReplaceTimings* timings = nullptr);

  // dispatch_mu_ serialises the writer (update + dispatch) and handler registration.
  std::mutex dispatch_mu_;
  std::vector<std::pair<HandlerId, EventHandler>> handlers_;
  HandlerId next_handler_id_ = 1;
  bool first_replace_done_ = false;

  mutable std::shared_mutex mu_;  // guards everything below
  SlotTable items_;               // key → slot; keys read from slots_[slot]'s object
  std::vector<ObjectPtr> slots_;  // nullptr: free
  std::vector<Slot> free_slots_;
  Indexers indexers_;
  std::unordered_map<std::string, Index> indices_;
  std::string resource_version_;
  size_t object_bytes_ = 0;
};

}  // namespace berth::shim
