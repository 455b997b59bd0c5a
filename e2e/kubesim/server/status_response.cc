#include "e2e/kubesim/server/status_response.h"

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {

std::string StatusBody(int code, std::string_view reason, std::string_view message,
                       const std::optional<StatusDetails>& details) {
  json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  json::SetString(doc, "kind", "Status", a);
  json::SetString(doc, "apiVersion", "v1", a);
  json::SetMember(doc, "metadata", json::Value(rapidjson::kObjectType), a);
  json::SetString(doc, "status", "Failure", a);
  json::SetString(doc, "message", message, a);
  if (!reason.empty()) json::SetString(doc, "reason", reason, a);  // omitempty, as metav1.Status
  if (details) {
    json::Value d(rapidjson::kObjectType);
    if (!details->name.empty()) json::SetString(d, "name", details->name, a);
    if (!details->group.empty()) json::SetString(d, "group", details->group, a);
    if (!details->kind.empty()) json::SetString(d, "kind", details->kind, a);
    if (!details->cause_message.empty()) {
      json::Value cause(rapidjson::kObjectType);
      json::SetString(cause, "message", details->cause_message, a);
      json::Value causes(rapidjson::kArrayType);
      causes.PushBack(std::move(cause), a);
      json::SetMember(d, "causes", std::move(causes), a);
    }
    if (details->retry_after_seconds) {
      json::SetMember(d, "retryAfterSeconds", json::Value(*details->retry_after_seconds), a);
    }
    json::SetMember(doc, "details", std::move(d), a);
  }
  json::SetMember(doc, "code", json::Value(code), a);
  return json::Serialize(doc);
}

HttpResponse StatusResponse(int code, std::string_view reason, std::string_view message,
                            const std::optional<StatusDetails>& details) {
  HttpResponse r;
  r.status = code;
  r.content_type = "application/json";
  r.body = StatusBody(code, reason, message, details);
  return r;
}

}  // namespace berth::kubesim
