#include "clientgo-shim/informer/shared_informer_factory.h"

namespace berth::shim {

bool IsProtobufDecodable(std::string_view path) {
  if (path == "/api/v1/pods" || path == "/api/v1/nodes") return true;
  constexpr std::string_view kNamespaces = "/api/v1/namespaces/";
  if (!path.starts_with(kNamespaces)) return false;
  path.remove_prefix(kNamespaces.size());
  const size_t slash = path.find('/');
  return slash != std::string_view::npos && slash > 0 && path.substr(slash) == "/pods";
}

SharedInformerFactory::SharedInformerFactory(RestClientPtr client,
                                             SharedInformerFactoryOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

SharedInformerFactory::~SharedInformerFactory() { Stop(); }

std::shared_ptr<SharedInformer> SharedInformerFactory::InformerFor(
    const InformerKey& key, std::optional<Transform> transform) {
  std::lock_guard lock(mu_);
  if (auto it = informers_.find(key); it != informers_.end()) return it->second;
  SharedInformerOptions o;
  o.list_watch.path = key.path;
  o.list_watch.label_selector = key.label_selector;
  o.list_watch.field_selector = key.field_selector;
  o.list_watch.page_size = options_.page_size;
  o.list_watch.backoff = options_.backoff;
  if (options_.content_type == proto::kProtobufContentType && IsProtobufDecodable(key.path)) {
    o.list_watch.accept = std::string(proto::kProtobufContentType) + ", " + kJsonContentType;
  }
  if (transform) {
    o.transform = std::move(*transform);
  } else if (auto by_path = options_.path_transforms.find(key.path); by_path != options_.path_transforms.end()) {
    o.transform = by_path->second;
  } else {
    o.transform = options_.transform;
  }
  auto informer = std::make_shared<SharedInformer>(client_, std::move(o));
  informers_.emplace(key, informer);
  return informer;
}

void SharedInformerFactory::Start() {
  std::lock_guard lock(mu_);
  for (auto& [key, informer] : informers_) informer->Start();
}

bool SharedInformerFactory::WaitForCacheSync(SteadyTime deadline) const {
  std::vector<std::shared_ptr<SharedInformer>> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, informer] : informers_) all.push_back(informer);
  }
  bool ok = true;
  for (const auto& informer : all) ok = informer->WaitForCacheSync(deadline) && ok;
  return ok;
}

void SharedInformerFactory::Stop() {
  std::vector<std::shared_ptr<SharedInformer>> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, informer] : informers_) all.push_back(informer);
  }
  // All asked first: each watch ends within the client's cancel latency (about 1 s), and joined
  // one by one they would add up to a second per informer.
  for (const auto& informer : all) informer->RequestStop();
  for (const auto& informer : all) informer->Stop();
}

std::vector<std::pair<InformerKey, std::shared_ptr<SharedInformer>>>
SharedInformerFactory::Informers() const {
  std::lock_guard lock(mu_);
  return {informers_.begin(), informers_.end()};
}

size_t SharedInformerFactory::Size() const {
  std::lock_guard lock(mu_);
  return informers_.size();
}

}  // namespace berth::shim
