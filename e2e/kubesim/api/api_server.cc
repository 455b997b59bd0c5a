#include "e2e/kubesim/api/api_server.h"

#include <ctime>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/audit_log.h"
#include "e2e/kubesim/api/discovery.h"
#include "e2e/kubesim/api/list_filter.h"
#include "e2e/kubesim/api/openapi_handler.h"
#include "e2e/kubesim/api/path_segments.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

// AuditingSink forwards to the real sink and writes the audit line once the status is known
// (the whole response, or the start of a watch stream).
class AuditingSink : public ResponseSink {
 public:
  AuditingSink(ResponseSink& inner, AuditLog& log, const HttpRequest& request)
      : inner_(inner), log_(log), request_(request) {}
  void Send(HttpResponse response) override {
    Record(response.status, response.content_type, response.body);
    inner_.Send(std::move(response));
  }
  bool BeginStream(int status, std::string_view content_type) override {
    Record(status, content_type);
    return inner_.BeginStream(status, content_type);
  }
  bool WriteChunk(std::string_view data) override { return inner_.WriteChunk(data); }
  void EndStream() override { inner_.EndStream(); }

 private:
  void Record(int status, std::string_view content_type, std::string_view body = {}) {
    if (recorded_) return;
    recorded_ = true;
    RequestInfo info = DescribeRequest(request_);
    std::string phase, node;
    // Only successful status writes are parsed for their phase: cheap, and what the soak test reads.
    if (status >= 200 && status < 300 && info.subresource == "status" &&
        (info.verb == "update" || info.verb == "patch")) {
      Document doc;
      doc.Parse(body.data(), body.size());
      if (!doc.HasParseError() && doc.IsObject()) {
        auto st = doc.FindMember("status");
        if (st != doc.MemberEnd() && st->value.IsObject()) {
          auto ph = st->value.FindMember("phase");
          if (ph != st->value.MemberEnd() && ph->value.IsString()) phase = ph->value.GetString();
          auto nn = st->value.FindMember("nodeName");
          if (nn != st->value.MemberEnd() && nn->value.IsString()) node = nn->value.GetString();
        }
      }
    }
    log_.Write(info, request_.Header("user-agent"), status, phase, node, request_.Header("accept"), content_type);
  }
  ResponseSink& inner_;
  AuditLog& log_;
  const HttpRequest& request_;
  bool recorded_ = false;
};

HttpResponse JsonResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

std::string NowRfc3339() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<ParsedPath> ParseResourcePath(std::string_view path) {
  auto parts = SplitPath(path);
  ParsedPath out;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    out.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    out.group = parts[1];
    out.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  if (i >= parts.size()) return std::nullopt;
  // /namespaces/{ns}/{resource}... is a namespaced request unless it addresses the namespace
  // object itself (/namespaces/{name}[/status|/finalize]).
  if (parts[i] == "namespaces" && parts.size() - i >= 3 &&
      !(parts.size() - i == 3 && (parts[i + 2] == "status" || parts[i + 2] == "finalize"))) {
    out.ns = parts[i + 1];
    i += 2;
  }
  if (i >= parts.size()) return std::nullopt;
  out.resource = parts[i++];
  if (i < parts.size()) out.name = parts[i++];
  if (i < parts.size()) out.subresource = parts[i++];
  if (i < parts.size()) return std::nullopt;
  return out;
}

ApiServer::ApiServer(ApiServerOptions options, ObjectStore& store, Registry& registry)
    : options_(std::move(options)), store_(store), registry_(registry),
      rng_(std::random_device{}()) {}

ApiServer::~ApiServer() { Shutdown(); }

void ApiServer::Shutdown() {
  shutting_down_ = true;
  store_.CloseAllWatchers();
}

std::string ApiServer::NewUid() {
  uint64_t hi, lo;
  {
    std::lock_guard lock(rng_mu_);
    hi = rng_();
    lo = rng_();
  }
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

ObjectPtr ApiServer::ToStored(const Value& object, uint64_t resource_version) {
  auto stored = std::make_shared<StoredObject>();
  stored->json = json::Serialize(object);
  stored->resource_version = resource_version;
  stored->namespace_name = std::string(json::GetString(object, {"metadata", "namespace"}));
  stored->name = std::string(json::GetString(object, {"metadata", "name"}));
  stored->uid = std::string(json::GetString(object, {"metadata", "uid"}));
  stored->deleting = json::Find(object, {"metadata", "deletionTimestamp"}) != nullptr;
  if (const Value* labels = json::Find(object, {"metadata", "labels"}); labels && labels->IsObject()) {
    for (const auto& m : labels->GetObject()) {
      if (m.value.IsString()) stored->labels.emplace(m.name.GetString(), m.value.GetString());
    }
  }
  if (const Value* owners = json::Find(object, {"metadata", "ownerReferences"}); owners && owners->IsArray()) {
    for (const auto& o : owners->GetArray()) {
      std::string_view uid = json::GetString(o, {"uid"});
      if (!uid.empty()) stored->owner_uids.emplace_back(uid);
    }
  }
  // The field selectors kube-apiserver supports beyond metadata.name/namespace.
  static const std::vector<std::vector<std::string_view>> kFields = {
      {"spec", "nodeName"}, {"spec", "schedulerName"}, {"spec", "serviceAccountName"},
      {"status", "phase"}, {"status", "podIP"}, {"status", "nominatedNodeName"},
      {"spec", "unschedulable"}, {"involvedObject", "kind"}, {"involvedObject", "namespace"},
      {"involvedObject", "name"}, {"involvedObject", "uid"}, {"involvedObject", "apiVersion"},
      {"involvedObject", "resourceVersion"}, {"involvedObject", "fieldPath"}, {"reason"},
      {"type"}, {"source"}, {"reportingComponent"}, {"spec", "restartPolicy"}};
  for (const auto& path : kFields) {
    const Value* v = &object;
    for (auto key : path) {
      v = json::Member(*v, key);
      if (!v) break;
    }
    std::string name;
    for (auto key : path) {
      if (!name.empty()) name += '.';
      name += key;
    }
    if (v && v->IsString()) {
      stored->fields.emplace(name, v->GetString());
    } else if (v && v->IsBool()) {
      stored->fields.emplace(name, v->GetBool() ? "true" : "false");
    } else if (v && v->IsObject() && name == "source") {
      stored->fields.emplace(name, std::string(json::GetString(*v, {"component"})));
    }
  }
  return stored;
}

ResourceTypePtr ApiServer::TypeOf(std::string_view group, std::string_view plural) const {
  for (const auto& t : registry_.All()) {
    if (t->group == group && t->plural == plural && t->version == t->storage_version) return t;
  }
  for (const auto& t : registry_.All()) {
    if (t->group == group && t->plural == plural) return t;
  }
  return nullptr;
}

void ApiServer::Handle(const HttpRequest& request, ResponseSink& real_sink) {
  std::optional<AuditingSink> audited;
  if (options_.audit_log) audited.emplace(real_sink, *options_.audit_log, request);
  ResponseSink& sink = audited ? static_cast<ResponseSink&>(*audited) : real_sink;
  if (shutting_down_) {
    sink.Send(StatusError(503, "ServiceUnavailable", "apiserver is shutting down"));
    return;
  }
  Route(request, sink);
}

void ApiServer::Route(const HttpRequest& request, ResponseSink& sink) {
  const std::string& path = request.path;
  if (path == "/version" || path == "/version/") {
    sink.Send(JsonResponse(200, VersionJson()));
    return;
  }
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    HttpResponse r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "ok";
    sink.Send(std::move(r));
    return;
  }
  if (path.rfind("/openapi/", 0) == 0) {
    sink.Send(ServeOpenApi(request, registry_));
    return;
  }
  if (request.method == "GET") {
    if (path == "/api" || path == "/api/") {
      sink.Send(JsonResponse(200, CoreApiVersionsJson(options_.server_address)));
      return;
    }
    if (path == "/apis" || path == "/apis/") {
      sink.Send(JsonResponse(200, ApiGroupListJson(registry_, options_.server_address)));
      return;
    }
    auto parts = SplitPath(path);
    if (parts.size() == 2 && parts[0] == "api") {
      if (auto body = ApiResourceListJson(registry_, "", parts[1])) {
        sink.Send(JsonResponse(200, *body));
        return;
      }
    }
    if (parts.size() == 2 && parts[0] == "apis") {
      if (auto body = ApiGroupJson(registry_, parts[1])) {
        sink.Send(JsonResponse(200, *body));
        return;
      }
    }
    if (parts.size() == 3 && parts[0] == "apis") {
      if (auto body = ApiResourceListJson(registry_, parts[1], parts[2])) {
        sink.Send(JsonResponse(200, *body));
        return;
      }
    }
  }
  auto parsed = ParseResourcePath(path);
  if (!parsed) {
    sink.Send(StatusError(404, "NotFound", "the server could not find the requested resource"));
    return;
  }
  HandleResource(request, *parsed, sink);
}

void ApiServer::HandleGet(const HttpRequest& request, const ResourceType& type,
                          const ParsedPath& path, ResponseMedia media, ResponseSink& sink) {
  ObjectPtr obj = store_.Get(type.StorageKey(), path.ns, path.name);
  if (!obj) {
    sink.Send(NotFound(type.group, type.plural, path.name));
    return;
  }
  sink.Send(FormatObject(request, type, obj, media));
}

void ApiServer::HandleList(const HttpRequest& request, const ResourceType& type,
                           const ParsedPath& path, ResponseMedia media, ResponseSink& sink) {
  auto filter = BuildListFilter(request, type);
  if (!filter.ok()) {
    sink.Send(*filter.error);
    return;
  }
  // limit/continue: the continue token carries the RV of the first page and the last key.
  size_t limit = 0;
  if (auto l = request.Query("limit"); !l.empty()) {
    try {
      long long v = std::stoll(std::string(l));
      if (v > 0) limit = static_cast<size_t>(v);
    } catch (...) {
      sink.Send(BadRequest("invalid value for limit: " + std::string(l)));
      return;
    }
  }
  uint64_t at_rv = 0;
  std::string start_key;
  std::string rv_param(request.Query("resourceVersion"));
  std::string rv_match(request.Query("resourceVersionMatch"));
  // ValidateListOptions (apimachinery): the resourceVersionMatch rules.
  {
    std::vector<StatusCause> causes;
    if (!rv_match.empty()) {
      if (rv_param.empty()) {
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
                          "resourceVersionMatch"});
      }
      if (!request.Query("continue").empty()) {
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: resourceVersionMatch is forbidden when continue is provided",
                          "resourceVersionMatch"});
      }
      if (rv_match != "Exact" && rv_match != "NotOlderThan") {
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: \"" + rv_match + "\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
                          "resourceVersionMatch"});
      }
      if (rv_match == "Exact" && rv_param == "0") {
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                          "resourceVersionMatch"});
      }
    }
    if (!request.Query("sendInitialEvents").empty()) {
      causes.push_back({"FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list", "sendInitialEvents"});
    }
    if (!causes.empty()) {
      sink.Send(Invalid("meta.k8s.io", "ListOptions", "", causes));
      return;
    }
  }
  bool has_continue = !request.Query("continue").empty();
  uint64_t offset = 0;
  if (auto cont = request.Query("continue"); !cont.empty()) {
    if (!rv_param.empty() && rv_param != "0") {
      sink.Send(BadRequest("specifying resource version is not allowed when using continue"));
      return;
    }
    auto token = DecodeContinue(cont);
    if (!token) {
      sink.Send(BadRequest("continue key is not valid: " + token.error()));
      return;
    }
    at_rv = token->resource_version;
    start_key = token->last_key;
    offset = token->offset;
  } else if (!rv_param.empty() && rv_param != "0") {
    uint64_t requested = 0;
    try {
      requested = std::stoull(rv_param);
    } catch (...) {
      sink.Send(BadRequest("invalid resource version \"" + rv_param + "\""));
      return;
    }
    uint64_t current = store_.CurrentResourceVersion();
    if (requested > current) {
      sink.Send(StatusError(504, "Timeout",
                            "Too large resource version: " + rv_param +
                                ", current: " + std::to_string(current),
                            {}, {}, {}, {{"ResourceVersionTooLarge", "Too large resource version", ""}}, 1));
      return;
    }
    if (rv_match == "Exact") at_rv = requested;
  }
  auto page = store_.List(type.StorageKey(), path.ns, filter.filter, at_rv, limit, start_key, offset);
  if (!page) {
    if (limit == 0 && !has_continue) {
      sink.Send(Gone("The resourceVersion for the provided list is too old."));
      return;
    }
    // Paging over compacted history: 410 with a token that continues at the latest state.
    HttpResponse gone = Gone(
        "The provided continue parameter is too old to display a consistent list "
        "result. You can start a new list without the continue parameter, or use the "
        "continue token in this response to retrieve the remainder of the results. "
        "Continuing with the provided token results in an inconsistent list - objects "
        "that were created, modified, or deleted between the time the first chunk was "
        "returned and now may show up in the list.");
    if (auto doc = json::Parse(gone.body); doc && doc->IsObject()) {
      auto& a = doc->GetAllocator();
      json::SetString(json::EnsureObject(*doc, "metadata", a), "continue", EncodeContinueAtLatest(start_key), a);
      gone.body = json::Serialize(*doc);
    }
    sink.Send(std::move(gone));
    return;
  }
  sink.Send(FormatList(request, type, *page, media));
}

}  // namespace berth::kubesim
