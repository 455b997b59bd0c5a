// e2e/kubesim/server/status_response.h
//
// metav1.Status error bodies produced by the transport itself (401, 413, 400, injected faults),
// in the apiserver's shape so kubectl prints "Error from server (<reason>): <message>".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// StatusDetails: the optional metav1.StatusDetails fields the transport fills.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::optional<int> retry_after_seconds;
  std::string cause_message;  // becomes details.causes[0].message when non-empty
};

// StatusBody renders {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...}.
std::string StatusBody(int code, std::string_view reason, std::string_view message,
                       const std::optional<StatusDetails>& details = std::nullopt);

// StatusResponse wraps StatusBody in an application/json HttpResponse with that status code.
HttpResponse StatusResponse(int code, std::string_view reason, std::string_view message,
                            const std::optional<StatusDetails>& details = std::nullopt);

}  // namespace berth::kubesim
