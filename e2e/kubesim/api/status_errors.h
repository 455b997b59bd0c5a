// e2e/kubesim/api/status_errors.h
//
// metav1.Status responses in kube-apiserver's exact wording: kubectl prints
// "Error from server (<reason>): <message>", and users and scripts match on it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// StatusCause: one entry of details.causes.
struct StatusCause {
  std::string reason;  // e.g. "FieldValueRequired", "DisruptionBudget"
  std::string message;
  std::string field;
};

// StatusError builds a Failure Status response. `qualified_kind` is details.kind (the resource,
// e.g. "pods"), `group` details.group.
HttpResponse StatusError(int code, std::string_view reason, std::string_view message,
                         std::string_view name = {}, std::string_view group = {},
                         std::string_view qualified_kind = {},
                         const std::vector<StatusCause>& causes = {}, int retry_after_seconds = 0);

// The common ones. `resource` is the plural ("pods"), `group` the API group ("" for core).
HttpResponse NotFound(std::string_view group, std::string_view resource, std::string_view name);
HttpResponse AlreadyExists(std::string_view group, std::string_view resource, std::string_view name);
HttpResponse Conflict(std::string_view group, std::string_view resource, std::string_view name);
HttpResponse BadRequest(std::string_view message);
HttpResponse MethodNotAllowed(std::string_view message);
HttpResponse Gone(std::string_view message);
HttpResponse UnsupportedMediaType(std::string_view content_type);
HttpResponse InternalError(std::string_view message);
// Invalid is the 422 for field errors: `kind` is the Kind ("Pod"), `group` its group.
HttpResponse Invalid(std::string_view group, std::string_view kind, std::string_view name,
                     const std::vector<StatusCause>& causes);
// SuccessStatus is the body some verbs return (eviction, binding, deletecollection for some).
HttpResponse SuccessStatus(int code, std::string_view name = {}, std::string_view group = {},
                           std::string_view kind = {});

// StatusJson renders a Status body (for watch ERROR events).
std::string StatusJson(int code, std::string_view reason, std::string_view message);

// FieldErrorMessage renders one cause as the apiserver does inside Invalid messages:
// "spec.owners: Required value".
std::string FieldErrorMessage(const StatusCause& cause);

}  // namespace berth::kubesim
