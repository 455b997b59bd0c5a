#include "e2e/kubesim/api/request_body.h"

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/protobuf/decoder.h"

namespace berth::kubesim {

Result<rapidjson::Document> ParseRequestJson(std::string_view text) {
  // RapidJSON's parser (and every walk after it) recurses: refuse what Go's decoder refuses first.
  if (json::NestsDeeperThan(text, kMaxJsonDepth)) return MakeError(ErrorCode::kInvalidArgument, "exceeded max depth");
  return json::Parse(text);
}

std::variant<rapidjson::Document, HttpResponse> DecodeObjectText(std::string_view text, bool yaml) {
  rapidjson::Document doc;
  if (yaml) {
    auto docs = shim::YamlToJsonDocuments(text);
    if (!docs) return BadRequest("error converting YAML to JSON: " + docs.error().message);
    if (docs->size() != 1) return BadRequest("expected exactly one YAML document in the request body");
    doc = std::move((*docs)[0]);
  } else {
    auto parsed = ParseRequestJson(text);
    if (!parsed) {
      return BadRequest("couldn't get version/kind; json parse error: " + parsed.error().message);
    }
    doc = std::move(*parsed);
  }
  if (!doc.IsObject()) {
    return BadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal " +
                      std::string(doc.IsArray() ? "array" : "value") +
                      " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
  }
  return doc;
}

std::variant<rapidjson::Document, HttpResponse> DecodeBody(const HttpRequest& request) {
  std::string_view ct = request.Header("content-type");
  if (auto semi = ct.find(';'); semi != std::string_view::npos) ct = ct.substr(0, semi);
  while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
  bool yaml = false;
  if (ct.empty() || ct == "application/json" || ct == "*/*") {
    yaml = false;
  } else if (ct == "application/yaml" || ct == "application/x-yaml" || ct == "text/yaml") {
    yaml = true;
  } else if (ct == protobuf::kProtobufMediaType) {
    // kubectl's typed clients (create namespace/configmap/deployment/...) send protobuf.
    auto decoded = protobuf::DecodeKubernetesProtobuf(request.body);
    if (decoded) return std::move(*decoded);
    if (decoded.error().code == ErrorCode::kNotFound) return UnsupportedMediaType(ct);
    return BadRequest(decoded.error().message);
  } else {
    return UnsupportedMediaType(ct);
  }
  return DecodeObjectText(request.body, yaml);
}

std::optional<rapidjson::Document> DecodeBodyOrReply(const HttpRequest& request, ResponseSink& sink) {
  auto decoded = DecodeBody(request);
  if (auto* err = std::get_if<HttpResponse>(&decoded)) {
    sink.Send(std::move(*err));
    return std::nullopt;
  }
  return std::move(std::get<rapidjson::Document>(decoded));
}

HttpResponse JsonObjectResponse(int code, const rapidjson::Value& doc) {
  HttpResponse r;
  r.status = code;
  r.body = json::Serialize(doc);
  return r;
}

}  // namespace berth::kubesim
