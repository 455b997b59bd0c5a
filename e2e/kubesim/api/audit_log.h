// e2e/kubesim/api/audit_log.h
//
// kubesim's audit log (--audit-log PATH): one JSON line per API request, naming the request the
// way kube-apiserver's RequestInfo does (verb, apiGroup, resource, subresource, namespace, name)
// plus the caller's User-Agent and the response code. kubesim stores RBAC objects but does not
// enforce them; tests read this log to check that a component's requests are covered by its
// RBAC rules.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// RequestInfo: the authorization attributes of one request, as kube-apiserver derives them.
struct RequestInfo {
  bool is_resource_request = false;
  std::string path;  // the request path (reported for non-resource requests)
  // get list watch create update patch delete deletecollection for resource requests; the
  // lower-case HTTP method for non-resource requests.
  std::string verb;
  std::string api_group, api_version, resource, subresource, ns, name;
};

// DescribeRequest derives the RequestInfo of a request from its method, path and query: GET on a
// collection is list (watch with ?watch=true or a /watch/ path prefix), DELETE on a collection is
// deletecollection, and a list/watch with fieldSelector metadata.name=X names X. Never fails:
// paths that are not resource paths give a non-resource RequestInfo.
RequestInfo DescribeRequest(const HttpRequest& request);

// AuditLogLine renders one audit line (JSON, no trailing newline). `ts` is the wall-clock time the
// response was decided (Unix seconds, millisecond resolution); `phase` and `nodeName`, when not
// empty, are status.phase and status.nodeName of the object a successful status write returned
// (so a test can follow phase transitions and placements from the log alone). `accept` (the
// request's Accept header) and `content_type` (the response's), when not empty, show which media
// type a client asked for and got (JSON or protobuf).
std::string AuditLogLine(const RequestInfo& info, std::string_view user_agent, int code,
                         std::string_view phase = {}, std::string_view node_name = {},
                         std::string_view accept = {}, std::string_view content_type = {});

// AuditLog appends audit lines to a file; Write is thread-safe and flushes every line.
class AuditLog {
 public:
  // Open opens PATH for appending (created if missing).
  // Errors: kInvalidArgument when the file cannot be opened (message names the path and errno text).
  static Result<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Write appends the line for one request.
  void Write(const RequestInfo& info, std::string_view user_agent, int code,
             std::string_view phase = {}, std::string_view node_name = {}, std::string_view accept = {},
             std::string_view content_type = {});

 private:
  explicit AuditLog(std::FILE* file) : file_(file) {}
  std::mutex mu_;
  std::FILE* file_;
};

}  // namespace berth::kubesim
