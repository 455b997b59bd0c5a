// clientgo-shim/transport/api_error.h
//
// Turns a non-2xx API-server answer into a berth::Error. The body is usually a metav1.Status
// ({"kind":"Status","status":"Failure","message":…,"reason":…,"code":…,"details":{…}}), but some
// answers are plain text (the max-in-flight/APF 429 "Too many requests, please try again later.",
// proxies, load balancers), so decoding is tolerant: a body that is not a Status never fails, it
// just yields the generic client-go message for the HTTP status.
// Pure functions, no I/O; safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// StatusCause: one entry of metav1.Status details.causes.
struct StatusCause {
  std::string type;     // "FieldValueInvalid", "FieldManagerConflict", …
  std::string message;
  std::string field;    // "spec.containers[0].image"
};

// ApiStatus: the parts of a metav1.Status a client branches on.
struct ApiStatus {
  int code = 0;            // HTTP status (from the body's code, else the response's)
  std::string reason;      // "NotFound", "AlreadyExists", "Expired", …; may be empty
  std::string message;     // human text; never empty after DecodeApiStatus
  std::string name;        // details.name
  std::string kind;        // details.kind
  std::vector<StatusCause> causes;
  std::optional<std::chrono::milliseconds> retry_after;  // details.retryAfterSeconds or header
};

// DecodeApiStatus reads a response body (Status JSON or anything else) and the Retry-After
// header value (integer seconds; "" when absent). Never fails: unknown shapes fall back to the
// generic message for `http_status`, and a short plain-text body is kept as the message.
ApiStatus DecodeApiStatus(int http_status, std::string_view body,
                          std::string_view retry_after_header = {});

// ErrorCodeForHttpStatus maps an HTTP status (and Status reason, for 409) to an ErrorCode:
// 400 kBadRequest, 401 kUnauthorized, 403 kForbidden, 404 kNotFound, 409 kAlreadyExists when the
// reason is AlreadyExists else kConflict, 410 kGone, 422 kInvalid, 429 kTooManyRequests,
// 504 kTimeout, other 5xx kInternal, anything else kInternal.
ErrorCode ErrorCodeForHttpStatus(int http_status, std::string_view reason = {});

// DecodeApiError is DecodeApiStatus followed by the mapping above: Error{code, message,
// http_status, reason, retry_after}. The message is the Status message unchanged (as client-go's
// StatusError.Error()), so callers can prefix it with their step ("GET pods/x: ...").
Error DecodeApiError(int http_status, std::string_view body,
                     std::string_view retry_after_header = {});

// ParseRetryAfter reads a Retry-After header: non-negative integer seconds. HTTP-dates and
// anything malformed give nullopt (client-go ignores them too).
std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view header);

// GenericMessageForHttpStatus is client-go's text for a status with no usable body
// (apimachinery errors.NewGenericServerResponse), e.g. 404 "the server could not find the
// requested resource".
std::string GenericMessageForHttpStatus(int http_status);

}  // namespace berth::shim
