#include "e2e/kubesim/api/openapi_handler.h"

#include <memory>
#include <mutex>
#include <optional>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/openapi/openapi_cache.h"
#include "e2e/kubesim/openapi/resource_info.h"
#include "e2e/kubesim/protobuf/openapi_v2_encoder.h"

namespace berth::kubesim {
namespace {

// NegotiateV2 picks the /openapi/v2 form from an Accept header: "" for JSON, the protobuf media
// response type, or nullopt when neither is acceptable. The first acceptable clause wins.
std::optional<std::string> NegotiateV2(std::string_view accept) {
  if (accept.empty()) return std::string();
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    std::string_view clause = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    clause = clause.substr(0, clause.find(';'));
    while (!clause.empty() && clause.front() == ' ') clause.remove_prefix(1);
    while (!clause.empty() && clause.back() == ' ') clause.remove_suffix(1);
    // Both the deprecated "…spec.v2@v1.0+protobuf" (what kubectl asks for) and "…spec.v2.v1.0+protobuf"
    // are answered as the latter: Go's mime parser (client-go checks the response type) refuses '@'.
    if (clause == "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" ||
        clause == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf") {
      return std::string("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    }
    if (clause == "application/json" || clause == "*/*" || clause == "application/*") return std::string();
  }
  return std::nullopt;
}

// ProtobufV2 returns the protobuf form of the v2 document `json_text`, encoded once per
// generation (the document is several megabytes; kubectl asks for it on every List it validates).
std::shared_ptr<const std::string> ProtobufV2(uint64_t generation, const std::shared_ptr<const std::string>& json_text) {
  static std::mutex mu;
  static std::optional<uint64_t> cached_generation;
  static std::shared_ptr<const std::string> cached;
  std::lock_guard lock(mu);
  if (cached && cached_generation == generation) return cached;
  auto doc = json::Parse(*json_text);
  if (!doc) return nullptr;
  auto bytes = protobuf::EncodeOpenApiV2Document(*doc);
  if (!bytes) return nullptr;
  cached = std::make_shared<const std::string>(std::move(*bytes));
  cached_generation = generation;
  return cached;
}

}  // namespace

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
    auto form = NegotiateV2(request.Header("accept"));
    if (!form) {
      return StatusError(406, "NotAcceptable",
                         "only application/json and application/com.github.proto-openapi.spec.v2@v1.0+protobuf "
                         "are served for /openapi/v2");
    }
    auto json_text = cache.V2(generation, infos);
    if (form->empty()) {
      r.body = *json_text;
      return r;
    }
    // kubectl's validation of `kind: List` files reads the gnostic protobuf form.
    auto proto = ProtobufV2(generation, json_text);
    if (!proto) return StatusError(500, "InternalError", "encoding the OpenAPI v2 document failed");
    r.content_type = *form;
    r.body = *proto;
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
