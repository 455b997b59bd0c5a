#include "e2e/kubesim/api/openapi_handler.h"

#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/openapi/openapi_cache.h"
#include "e2e/kubesim/openapi/resource_info.h"

namespace berth::kubesim {

HttpResponse ServeOpenApi(const HttpRequest& request, const Registry& registry) {
  static openapi::OpenApiCache cache;
  auto types = registry.All();  // keeps the CRD schemas alive during the build
  std::vector<openapi::ResourceInfo> infos;
  for (const auto& t : types) {
    openapi::ResourceInfo info;
    info.group = t->group;
    info.version = t->version;
    info.kind = t->kind;
    info.list_kind = t->list_kind;
    info.plural = t->plural;
    info.singular = t->singular;
    info.namespaced = t->namespaced;
    info.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    if (t->has_status) info.subresources.push_back("status");
    if (t->has_scale) info.subresources.push_back("scale");
    if (t->group.empty() && t->plural == "pods") {
      info.subresources.push_back("binding");
      info.subresources.push_back("eviction");
    }
    info.schema = t->is_crd && t->schema ? t->schema.get() : nullptr;
    infos.push_back(std::move(info));
  }
  uint64_t generation = registry.Generation();
  std::string_view path = request.path;
  HttpResponse r;
  if (path == "/openapi/v2") {
    // kubectl asks for protobuf first; JSON is what we have, so answer 406 to protobuf-only.
    std::string_view accept = request.Header("accept");
    if (!accept.empty() && accept.find("json") == std::string_view::npos && accept.find("*/*") == std::string_view::npos) {
      return StatusError(406, "NotAcceptable", "only application/json is served for /openapi/v2");
    }
    r.body = *cache.V2(generation, infos);
    return r;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    r.body = *cache.Root(generation, infos);
    return r;
  }
  constexpr std::string_view kPrefix = "/openapi/v3/";
  if (path.rfind(kPrefix, 0) == 0) {
    if (auto doc = cache.GroupVersion(generation, path.substr(kPrefix.size()), infos)) {
      r.body = *doc;
      return r;
    }
  }
  return StatusError(404, "NotFound", "the server could not find the requested resource");
}

}  // namespace berth::kubesim
