#include "e2e/kubesim/api/status_errors.h"

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;


rapidjson::Document BuildStatus(int code, std::string_view reason, std::string_view message,
                                std::string_view name, std::string_view group,
                                std::string_view kind, const std::vector<StatusCause>& causes,
                                int retry_after_seconds) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "Status", a);
  doc.AddMember("apiVersion", "v1", a);
  doc.AddMember("metadata", Value(rapidjson::kObjectType), a);
  doc.AddMember("status", "Failure", a);
  json::SetString(doc, "message", message, a);
  if (!reason.empty()) json::SetString(doc, "reason", reason, a);
  if (!name.empty() || !kind.empty() || !causes.empty() || retry_after_seconds > 0) {
    Value details(rapidjson::kObjectType);
    if (!name.empty()) json::SetString(details, "name", name, a);
    if (!group.empty()) json::SetString(details, "group", group, a);
    if (!kind.empty()) json::SetString(details, "kind", kind, a);
    if (!causes.empty()) {
      Value arr(rapidjson::kArrayType);
      for (const auto& c : causes) {
        Value cause(rapidjson::kObjectType);
        json::SetString(cause, "reason", c.reason, a);
        json::SetString(cause, "message", c.message, a);
        if (!c.field.empty()) json::SetString(cause, "field", c.field, a);
        arr.PushBack(cause, a);
      }
      details.AddMember("causes", arr, a);
    }
    if (retry_after_seconds > 0) details.AddMember("retryAfterSeconds", retry_after_seconds, a);
    doc.AddMember("details", details, a);
  }
  doc.AddMember("code", code, a);
  return doc;
}

}  // namespace

HttpResponse StatusError(int code, std::string_view reason, std::string_view message,
                         std::string_view name, std::string_view group,
                         std::string_view qualified_kind, const std::vector<StatusCause>& causes,
                         int retry_after_seconds) {
  HttpResponse r;
  r.status = code;
  r.body = json::Serialize(
      BuildStatus(code, reason, message, name, group, qualified_kind, causes, retry_after_seconds));
  if (retry_after_seconds > 0) r.headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
  return r;
}

static std::string Qualified(std::string_view group, std::string_view resource) {
  std::string out(resource);
  if (!group.empty()) out.append(".").append(group);
  return out;
}

HttpResponse NotFound(std::string_view group, std::string_view resource, std::string_view name) {
  return StatusError(404, "NotFound",
                     Qualified(group, resource) + " \"" + std::string(name) + "\" not found", name,
                     group, resource);
}

HttpResponse AlreadyExists(std::string_view group, std::string_view resource,
                           std::string_view name) {
  return StatusError(409, "AlreadyExists",
                     Qualified(group, resource) + " \"" + std::string(name) + "\" already exists",
                     name, group, resource);
}

HttpResponse Conflict(std::string_view group, std::string_view resource, std::string_view name) {
  return StatusError(409, "Conflict",
                     "Operation cannot be fulfilled on " + Qualified(group, resource) + " \"" +
                         std::string(name) +
                         "\": the object has been modified; please apply your changes to the "
                         "latest version and try again",
                     name, group, resource);
}

HttpResponse BadRequest(std::string_view message) {
  return StatusError(400, "BadRequest", message);
}

HttpResponse MethodNotAllowed(std::string_view message) {
  return StatusError(405, "MethodNotAllowed", message);
}

HttpResponse Gone(std::string_view message) { return StatusError(410, "Expired", message); }

HttpResponse UnsupportedMediaType(std::string_view content_type) {
  return StatusError(415, "UnsupportedMediaType",
                     "the body of the request was in an unknown format - accepted media types "
                     "include: application/json, application/yaml, "
                     "application/vnd.kubernetes.protobuf");
}

HttpResponse InternalError(std::string_view message) {
  return StatusError(500, "InternalError",
                     "Internal error occurred: " + std::string(message));
}

std::string FieldErrorMessage(const StatusCause& cause) {
  if (cause.field.empty()) return cause.message;
  return cause.field + ": " + cause.message;
}

HttpResponse Invalid(std::string_view group, std::string_view kind, std::string_view name,
                     const std::vector<StatusCause>& causes) {
  std::string qualified_kind(kind);
  if (!group.empty()) qualified_kind.append(".").append(group);
  std::string message = qualified_kind + " \"" + std::string(name) + "\" is invalid: ";
  if (causes.size() == 1) {
    message += FieldErrorMessage(causes[0]);
  } else {
    message += "[";
    for (size_t i = 0; i < causes.size(); ++i) {
      if (i) message += ", ";
      message += FieldErrorMessage(causes[i]);
    }
    message += "]";
  }
  return StatusError(422, "Invalid", message, name, group, kind, causes);
}

HttpResponse SuccessStatus(int code, std::string_view name, std::string_view group,
                           std::string_view kind) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("kind", "Status", a);
  doc.AddMember("apiVersion", "v1", a);
  doc.AddMember("metadata", Value(rapidjson::kObjectType), a);
  doc.AddMember("status", "Success", a);
  if (!name.empty() || !kind.empty()) {
    Value details(rapidjson::kObjectType);
    if (!name.empty()) json::SetString(details, "name", name, a);
    if (!group.empty()) json::SetString(details, "group", group, a);
    if (!kind.empty()) json::SetString(details, "kind", kind, a);
    doc.AddMember("details", details, a);
  }
  doc.AddMember("code", code, a);
  HttpResponse r;
  r.status = code;
  r.body = json::Serialize(doc);
  return r;
}

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  return json::Serialize(BuildStatus(code, reason, message, {}, {}, {}, {}, 0));
}

}  // namespace berth::kubesim
