// clientgo-shim/informer/shared_informer_factory.h
//
// SharedInformerFactory: hands out one SharedInformer per (path, label selector, field
// selector), so two controllers that watch pods share one LIST+WATCH and one cache (client-go's
// sharedInformerFactory). The first request for a key decides its transform; later requests get
// the same informer whatever transform they ask for.
// Thread-safety: all methods may be called from any thread.
// Example:
//   SharedInformerFactory factory(client);
//   auto pods = factory.InformerFor({"/api/v1/pods"});
//   auto nodes = factory.InformerFor({"/api/v1/nodes"});
//   factory.Start();
//   factory.WaitForCacheSync(std::chrono::steady_clock::now() + 60s);
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "clientgo-shim/informer/shared_informer.h"
#include "clientgo-shim/proto/protobuf_codec.h"

namespace berth::shim {

// kJsonContentType: the JSON media type.
inline constexpr char kJsonContentType[] = "application/json";

// SharedInformerFactoryOptions: defaults for the informers it creates. Each field says its
// default.
struct SharedInformerFactoryOptions {
  Transform transform = DefaultTransform();  // Default: DefaultTransform().
  // path_transforms: the transform of informers of these collection paths (exactly as given to
  // InformerFor, e.g. "/api/v1/pods") when InformerFor is given none, so every controller sharing
  // the informer caches the same fields whichever asked first. Default: none.
  std::map<std::string, Transform, std::less<>> path_transforms;
  int page_size = kDefaultPageSize;          // Default: 500.
  BackoffOptions backoff;                    // Default: client-go's 800 ms → 30 s.
  // content_type: what informers of kinds the shim decodes from protobuf (IsProtobufDecodable)
  // ask for. kJsonContentType (the default) asks JSON for everything; kProtobufContentType sends
  // "application/vnd.kubernetes.protobuf, application/json" (kube-controller-manager's
  // --kube-api-content-type; JSON stays the fallback). Other paths (CRDs) always ask for JSON.
  // Default: kJsonContentType.
  std::string content_type = kJsonContentType;
};

// IsProtobufDecodable: the collection `path` lists a kind clientgo-shim/proto decodes (core/v1
// pods and nodes, cluster-wide or in a namespace).
bool IsProtobufDecodable(std::string_view path);

class SharedInformerFactory {
 public:
  explicit SharedInformerFactory(RestClientPtr client, SharedInformerFactoryOptions options = {});
  ~SharedInformerFactory();  // Stop()

  // InformerFor returns the informer for `key`, creating it (not started) on first use with
  // `transform` or the factory's default.
  std::shared_ptr<SharedInformer> InformerFor(const InformerKey& key,
                                              std::optional<Transform> transform = std::nullopt);
  // Start starts every informer created so far (call again after creating more).
  void Start();
  // WaitForCacheSync waits until every informer has synced or `deadline` passes (an informer
  // created after Start and never started cannot sync). Returns true when all have synced.
  bool WaitForCacheSync(SteadyTime deadline) const;
  // Stop stops every informer.
  void Stop();
  // Informers: every informer created so far, with its key (for health checks and logs).
  std::vector<std::pair<InformerKey, std::shared_ptr<SharedInformer>>> Informers() const;
  // Size: the number of distinct informers.
  size_t Size() const;

 private:
  RestClientPtr client_;
  SharedInformerFactoryOptions options_;
  mutable std::mutex mu_;
  std::map<InformerKey, std::shared_ptr<SharedInformer>> informers_;
};

}  // namespace berth::shim
