#include "clientgo-shim/informer/shared_informer.h"

namespace berth::shim {

SharedInformer::SharedInformer(RestClientPtr client, SharedInformerOptions options,
                               const Clock& clock)
    : store_(std::make_shared<Store>()) {
  if (!options.indexers.empty()) (void)store_->AddIndexers(options.indexers);
  ReflectorOptions r;
  r.list_watch = std::move(options.list_watch);
  r.transform = std::move(options.transform);
  r.rng_seed = options.rng_seed;
  reflector_ = std::make_unique<Reflector>(std::move(client), store_, std::move(r), clock);
}

SharedInformer::~SharedInformer() { Stop(); }

HandlerId SharedInformer::AddEventHandler(EventHandler handler) {
  return store_->AddEventHandler(std::move(handler), /*replay_existing=*/true);
}

void SharedInformer::RemoveEventHandler(HandlerId id) { store_->RemoveEventHandler(id); }

Status SharedInformer::AddIndexers(const Indexers& indexers) {
  return store_->AddIndexers(indexers);
}

void SharedInformer::Start() {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  reflector_->Start();
}

void SharedInformer::Stop() { reflector_->Stop(); }

void SharedInformer::RequestStop() { reflector_->RequestStop(); }

bool SharedInformer::HasSynced() const { return reflector_->HasSynced(); }

bool SharedInformer::WaitForCacheSync(SteadyTime deadline) const {
  return reflector_->WaitForCacheSync(deadline);
}

InformerKey SharedInformer::key() const {
  const ListWatchOptions& lw = reflector_->list_watch();
  return InformerKey{lw.path, lw.label_selector, lw.field_selector};
}

}  // namespace berth::shim
