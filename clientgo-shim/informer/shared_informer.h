// clientgo-shim/informer/shared_informer.h
//
// SharedInformer: one reflector (one LIST+WATCH) and one Store for a resource and selector
// set, shared by every handler registered on it (client-go's sharedIndexInformer).
// - Handlers registered after objects are cached first receive on_add(obj, true) for each of
//   them (synthetic adds), atomically with respect to new events: nothing missed, nothing twice.
// - Handlers run on the reflector's thread, in event order; keep them short (enqueue a key).
// - Readers (controllers) use store(): Get/List/ByIndex; ObjectPtrs are immutable and shared.
// Thread-safety: every method may be called from any thread; Start/Stop are idempotent.
// Example:
//   SharedInformer pods(client, {.list_watch = {.path = "/api/v1/pods"}});
//   pods.AddIndexers({{kNodeNameIndex, NodeNameIndexFunc()}});
//   pods.AddEventHandler({.on_add = [&](const ObjectPtr& p, bool) { queue.Add(p->Key()); }});
//   pods.Start();
//   if (!pods.WaitForCacheSync(std::chrono::steady_clock::now() + 30s)) { ... }
#pragma once

#include <compare>
#include <memory>
#include <mutex>
#include <string>

#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/cache/transform.h"
#include "clientgo-shim/transport/rest_client.h"
#include "clientgo-shim/watch/reflector.h"

namespace berth::shim {

// InformerKey: what makes two informers the same (and so shared by a factory).
struct InformerKey {
  std::string path;            // "/api/v1/pods"
  std::string label_selector;  // "" = everything
  std::string field_selector;
  auto operator<=>(const InformerKey&) const = default;
};

// SharedInformerOptions: each field says its default.
struct SharedInformerOptions {
  ListWatchOptions list_watch;               // path (required), selectors, paging, backoff
  Transform transform = DefaultTransform();  // Default: DefaultTransform().
  Indexers indexers;                         // Default: none (AddIndexers adds more later).
  uint64_t rng_seed = 0;                     // 0 = from the clock. Default: 0.
};

class SharedInformer {
 public:
  // `clock` must outlive the informer.
  SharedInformer(RestClientPtr client, SharedInformerOptions options,
                 const Clock& clock = SystemClock());
  ~SharedInformer();  // Stop()
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // AddEventHandler registers a handler; it first gets synthetic adds for cached objects.
  HandlerId AddEventHandler(EventHandler handler);
  void RemoveEventHandler(HandlerId id);
  // AddIndexers adds named indexes (existing objects are indexed at once).
  // Errors: kAlreadyExists for a name already in use.
  Status AddIndexers(const Indexers& indexers);

  // Start begins listing and watching. Stop ends it (the cache keeps its last contents).
  void Start();
  void Stop();
  // RequestStop: Stop without waiting for the watch to end (SharedInformerFactory::Stop).
  void RequestStop();
  bool HasSynced() const;
  // WaitForCacheSync blocks until the first list is cached or `deadline`. Returns HasSynced().
  bool WaitForCacheSync(SteadyTime deadline) const;

  // store: the cache, for reads (Get/List/ByIndex).
  const Store& store() const { return *store_; }
  InformerKey key() const;
  // LastSyncResourceVersion: see Reflector.
  std::string LastSyncResourceVersion() const { return reflector_->LastSyncResourceVersion(); }
  ReflectorStats Stats() const { return reflector_->Stats(); }

 private:
  std::shared_ptr<Store> store_;
  std::unique_ptr<Reflector> reflector_;
  std::mutex mu_;
  bool started_ = false;
};

}  // namespace berth::shim
