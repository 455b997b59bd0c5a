// ApiServer::HandleResource: routes a resource request to its verb (GET/LIST/WATCH, POST, PUT,
// PATCH, DELETE, DELETECOLLECTION) and subresource, decoding bodies and query options on the way.
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/list_filter.h"
#include "e2e/kubesim/api/request_body.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {

using rapidjson::Document;
using rapidjson::Value;

namespace {

// WarningHeader formats a warning as RFC 7234 says and the apiserver sends it: code 299, agent
// "-", and the text as a quoted-string (backslash before '"' and '\\').
std::string WarningHeader(std::string_view text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// DeprecationWarningSink adds a deprecated CRD version's warning to every response, as the
// apiserver's CR handler does for any verb, errors included. Watch streams are not decorated:
// ResponseSink::BeginStream takes no headers (kubectl shows the warning on the initial list).
class DeprecationWarningSink : public ResponseSink {
 public:
  DeprecationWarningSink(ResponseSink& inner, std::string warning) : inner_(inner), header_(WarningHeader(warning)) {}
  void Send(HttpResponse response) override {
    response.headers.emplace_back("Warning", header_);
    inner_.Send(std::move(response));
  }
  bool BeginStream(int status, std::string_view content_type) override {
    return inner_.BeginStream(status, content_type);
  }
  bool WriteChunk(std::string_view data) override { return inner_.WriteChunk(data); }
  void EndStream() override { inner_.EndStream(); }

 private:
  ResponseSink& inner_;
  std::string header_;
};

}  // namespace

void ApiServer::HandleResource(const HttpRequest& request, const ParsedPath& path,
                               ResponseSink& outer_sink) {
  ResourceTypePtr type = registry_.Find(path.group, path.version, path.resource);
  if (!type || (!type->namespaced && !path.ns.empty())) {
    outer_sink.Send(StatusError(404, "NotFound", "the server could not find the requested resource"));
    return;
  }
  std::optional<DeprecationWarningSink> warned;
  if (type->deprecated) warned.emplace(outer_sink, type->deprecation_warning);
  ResponseSink& sink = warned ? static_cast<ResponseSink&>(*warned) : outer_sink;
  const std::string& sub = path.subresource;
  if (!sub.empty()) {
    bool known = (sub == "status" && type->has_status) || (sub == "scale" && type->has_scale) ||
                 (type->group.empty() && type->plural == "pods" && (sub == "binding" || sub == "eviction")) ||
                 (type->group.empty() && type->plural == "namespaces" && sub == "finalize");
    if (!known) {
      sink.Send(StatusError(404, "NotFound", "the server could not find the requested resource"));
      return;
    }
  }
  // The response's media type first: a 406 comes before any work, as the apiserver's handlers
  // negotiate before they read or write.
  bool protobuf = options_.serve_protobuf && HasProtobufForm(*type);
  ResponseMedia media = NegotiateResponseMedia(request.Header("accept"), protobuf);
  if (media == ResponseMedia::kNotAcceptable) {
    sink.Send(StatusError(406, "NotAcceptable",
                          std::string("only the following media types are accepted: application/json, "
                                      "application/yaml") +
                              (protobuf ? ", application/vnd.kubernetes.protobuf" : "")));
    return;
  }
  WriteOptions opts;
  if (auto fv = request.Query("fieldValidation"); !fv.empty()) opts.field_validation = fv;
  if (opts.field_validation != "Strict" && opts.field_validation != "Warn" &&
      opts.field_validation != "Ignore") {
    sink.Send(BadRequest("fieldValidation parameter unsupported: " + opts.field_validation));
    return;
  }
  opts.dry_run = request.Query("dryRun") == "All";
  opts.subresource = sub == "finalize" ? "" : sub;
  const std::string& m = request.method;

  if (sub == "scale") {
    HandleScale(request, *type, path, sink);
    return;
  }
  if (m == "GET") {
    if (path.name.empty()) {
      std::string_view watch = request.Query("watch");
      auto is_watch = watch.empty() ? std::optional<bool>(false) : ParseGoBool(watch);
      if (!is_watch) {
        sink.Send(BadRequest("invalid value for watch: strconv.ParseBool: parsing \"" + std::string(watch) +
                             "\": invalid syntax"));
        return;
      }
      if (*is_watch) {
        HandleWatch(request, *type, path, media, sink);
      } else {
        HandleList(request, *type, path, media, sink);
      }
    } else {
      HandleGet(request, *type, path, media, sink);
    }
    return;
  }
  auto send_result = [&](OpResult r) {
    if (!r.ok()) {
      sink.Send(std::move(*r.error));
      return;
    }
    HttpResponse resp = FormatObject(request, *type, r.object, media);
    resp.status = r.code;
    for (const auto& w : r.warnings) resp.headers.emplace_back("Warning", WarningHeader(w));
    sink.Send(std::move(resp));
  };
  if (m == "POST") {
    if (sub == "eviction") {
      HandleEviction(request, path, sink);
      return;
    }
    if (sub == "binding") {
      HandleBinding(request, path, sink);
      return;
    }
    if (!path.name.empty() && sub.empty()) {
      sink.Send(MethodNotAllowed("the server does not allow this method on the requested resource"));
      return;
    }
    auto body = DecodeBody(request);
    if (auto* err = std::get_if<HttpResponse>(&body)) {
      sink.Send(std::move(*err));
      return;
    }
    send_result(DoCreate(*type, path.ns, std::move(std::get<Document>(body)), opts));
    return;
  }
  if (m == "PUT" && !path.name.empty()) {
    auto body = DecodeBody(request);
    if (auto* err = std::get_if<HttpResponse>(&body)) {
      sink.Send(std::move(*err));
      return;
    }
    send_result(DoUpdate(*type, path.ns, path.name, std::move(std::get<Document>(body)), opts));
    return;
  }
  if (m == "PATCH" && !path.name.empty()) {
    send_result(DoPatch(*type, path.ns, path.name, request.Header("content-type"), request.body, opts));
    return;
  }
  if (m == "DELETE") {
    DeleteOptions del;
    del.dry_run = opts.dry_run;
    if (!request.body.empty()) {
      // JSON from kubectl; protobuf from typed clients (Helm deleting its release Secrets).
      auto decoded = DecodeBody(request);
      auto* doc = std::get_if<Document>(&decoded);
      if (!doc || !doc->IsObject()) {
        sink.Send(BadRequest("invalid DeleteOptions body"));
        return;
      }
      if (const Value* g = json::Member(*doc, "gracePeriodSeconds"); g && g->IsInt64()) {
        del.grace_period_seconds = g->GetInt64();
      }
      del.propagation_policy = json::GetString(*doc, {"propagationPolicy"});
      del.precondition_uid = json::GetString(*doc, {"preconditions", "uid"});
      del.precondition_rv = json::GetString(*doc, {"preconditions", "resourceVersion"});
      if (const Value* d = json::Member(*doc, "dryRun"); d && d->IsArray() && !d->Empty()) del.dry_run = true;
    }
    if (auto g = request.Query("gracePeriodSeconds"); !g.empty()) {
      try {
        del.grace_period_seconds = std::stoll(std::string(g));
      } catch (...) {
        sink.Send(BadRequest("invalid gracePeriodSeconds"));
        return;
      }
    }
    if (auto p = request.Query("propagationPolicy"); !p.empty()) del.propagation_policy = p;
    if (!del.propagation_policy.empty() && del.propagation_policy != "Background" &&
        del.propagation_policy != "Foreground" && del.propagation_policy != "Orphan") {
      sink.Send(Invalid("meta.k8s.io", "DeleteOptions", "",
                        {{"FieldValueNotSupported",
                          "Unsupported value: \"" + del.propagation_policy +
                              "\": supported values: \"Foreground\", \"Background\", \"Orphan\"",
                          "propagationPolicy"}}));
      return;
    }
    if (path.name.empty()) {
      // deletecollection: delete every object the selectors match, then list what was deleted.
      HttpRequest list_req = request;
      list_req.query.erase("continue");
      auto filter = BuildListFilter(list_req, *type);
      if (!filter.ok()) {
        sink.Send(*filter.error);
        return;
      }
      auto page = store_.List(type->StorageKey(), path.ns, filter.filter, 0, 0, "");
      ListResult deleted;
      for (const auto& obj : page->items) {
        OpResult r = DoDelete(*type, obj->namespace_name, obj->name, del);
        if (r.ok() && r.object) deleted.items.push_back(r.object);
      }
      deleted.resource_version = store_.CurrentResourceVersion();
      sink.Send(FormatList(request, *type, deleted, media));
      return;
    }
    send_result(DoDelete(*type, path.ns, path.name, del));
    return;
  }
  sink.Send(MethodNotAllowed("the server does not allow this method on the requested resource"));
}

}  // namespace berth::kubesim
