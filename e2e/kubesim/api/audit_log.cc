// The audit log: RequestInfo derivation and the thread-safe line writer.
#include "e2e/kubesim/api/audit_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/path_segments.h"
#include "e2e/kubesim/api/request_body.h"

namespace berth::kubesim {
namespace {

// MethodVerb: RequestInfo's verb for a method before the collection/watch adjustments.
std::string MethodVerb(std::string_view method) {
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  std::string lower(method);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// ExactName: the X of a field selector that requires metadata.name=X (or ==X), else "".
std::string ExactName(std::string_view selector) {
  std::string found;
  size_t start = 0;
  while (start <= selector.size()) {
    size_t comma = selector.find(',', start);
    if (comma == std::string_view::npos) comma = selector.size();
    std::string_view term = selector.substr(start, comma - start);
    start = comma + 1;
    if (term.rfind("metadata.name", 0) != 0) continue;
    std::string_view rest = term.substr(std::string_view("metadata.name").size());
    if (rest.rfind("==", 0) == 0) {
      found = rest.substr(2);
    } else if (rest.rfind("=", 0) == 0) {
      found = rest.substr(1);
    }
  }
  return found;
}

}  // namespace

RequestInfo DescribeRequest(const HttpRequest& request) {
  RequestInfo info;
  info.path = request.path;
  info.verb = MethodVerb(request.method);
  auto parts = SplitPath(request.path);
  // /api/{version}[/watch]/... or /apis/{group}/{version}[/watch]/...
  size_t prefix = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    prefix = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    prefix = 3;
  } else {
    return info;  // non-resource request: verb stays the lower-case method
  }
  bool watch_prefix = parts[prefix] == "watch";
  std::string rebuilt;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (watch_prefix && i == prefix) continue;
    rebuilt += '/';
    rebuilt += parts[i];
  }
  auto parsed = ParseResourcePath(rebuilt);
  if (!parsed) return info;
  info.is_resource_request = true;
  info.api_group = parsed->group;
  info.api_version = parsed->version;
  info.resource = parsed->resource;
  info.name = parsed->name;
  info.subresource = parsed->subresource;
  info.ns = parsed->ns;
  // A namespace object's own requests carry that namespace (RequestInfo sets it from the path).
  if (info.ns.empty() && info.api_group.empty() && info.resource == "namespaces") info.ns = info.name;
  if (watch_prefix) info.verb = "watch";
  if (info.name.empty() && (info.verb == "get" || info.verb == "watch")) {
    if (info.verb == "get") {
      auto watch = ParseGoBool(request.Query("watch"));
      info.verb = watch && *watch ? "watch" : "list";
    }
    info.name = ExactName(request.Query("fieldSelector"));
  }
  if (info.name.empty() && info.verb == "delete") info.verb = "deletecollection";
  return info;
}

std::string AuditLogLine(const RequestInfo& info, std::string_view user_agent, int code,
                         std::string_view phase, std::string_view node_name, std::string_view accept,
                         std::string_view content_type) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  json::SetString(doc, "verb", info.verb, a);
  if (info.is_resource_request) {
    json::SetString(doc, "apiGroup", info.api_group, a);
    json::SetString(doc, "apiVersion", info.api_version, a);
    json::SetString(doc, "resource", info.resource, a);
    json::SetString(doc, "subresource", info.subresource, a);
    json::SetString(doc, "namespace", info.ns, a);
    json::SetString(doc, "name", info.name, a);
  } else {
    json::SetString(doc, "nonResourceURL", info.path, a);
  }
  json::SetString(doc, "userAgent", user_agent, a);
  doc.AddMember("code", code, a);
  if (!phase.empty()) json::SetString(doc, "phase", phase, a);
  if (!node_name.empty()) json::SetString(doc, "nodeName", node_name, a);
  if (!accept.empty()) json::SetString(doc, "accept", accept, a);
  if (!content_type.empty()) json::SetString(doc, "contentType", content_type, a);
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  doc.AddMember("ts", static_cast<double>(now.count()) / 1000.0, a);
  return json::Serialize(doc);
}

Result<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (!file) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot open audit log \"" + path + "\": " + std::strerror(errno));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(file));
}

AuditLog::~AuditLog() { std::fclose(file_); }

void AuditLog::Write(const RequestInfo& info, std::string_view user_agent, int code,
                     std::string_view phase, std::string_view node_name, std::string_view accept,
                     std::string_view content_type) {
  std::string line = AuditLogLine(info, user_agent, code, phase, node_name, accept, content_type);
  line.push_back('\n');
  std::lock_guard lock(mu_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace berth::kubesim
