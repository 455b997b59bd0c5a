#include "e2e/kubesim/disruption/api_status.h"

#include <cstdio>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

using rapidjson::Document;
using rapidjson::Value;

Document StatusHeader(std::string_view status) {
  Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  json::SetString(doc, "kind", "Status", a);
  json::SetString(doc, "apiVersion", "v1", a);
  json::SetMember(doc, "metadata", Value(rapidjson::kObjectType), a);
  json::SetString(doc, "status", status, a);
  return doc;
}

}  // namespace

Document SuccessStatus(int code) {
  Document doc = StatusHeader("Success");
  json::SetMember(doc, "code", Value(code), doc.GetAllocator());
  return doc;
}

Document FailureStatus(int code, std::string_view reason, std::string_view message,
                       const std::optional<StatusDetails>& details) {
  Document doc = StatusHeader("Failure");
  auto& a = doc.GetAllocator();
  if (!message.empty()) json::SetString(doc, "message", message, a);
  if (!reason.empty()) json::SetString(doc, "reason", reason, a);
  if (details.has_value()) {
    Value d(rapidjson::kObjectType);
    if (!details->name.empty()) json::SetString(d, "name", details->name, a);
    if (!details->group.empty()) json::SetString(d, "group", details->group, a);
    if (!details->kind.empty()) json::SetString(d, "kind", details->kind, a);
    if (!details->causes.empty()) {
      Value causes(rapidjson::kArrayType);
      for (const StatusCause& c : details->causes) {
        Value cause(rapidjson::kObjectType);
        if (!c.reason.empty()) json::SetString(cause, "reason", c.reason, a);
        if (!c.message.empty()) json::SetString(cause, "message", c.message, a);
        causes.PushBack(std::move(cause), a);
      }
      json::SetMember(d, "causes", std::move(causes), a);
    }
    if (details->retry_after_seconds != 0) {
      json::SetMember(d, "retryAfterSeconds", Value(details->retry_after_seconds), a);
    }
    json::SetMember(doc, "details", std::move(d), a);
  }
  json::SetMember(doc, "code", Value(code), a);
  return doc;
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace berth::kubesim::disruption
