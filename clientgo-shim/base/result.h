// clientgo-shim/base/result.h
//
// Error values shared by every berth module. Nothing throws across module lines: functions that
// can fail return Result<T>, a std::expected whose error names the step and the object.
// Example:
//   Result<Quantity> q = ParseQuantity("500m");
//   if (!q) log(q.error().message);
#pragma once

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <utility>

namespace berth {

// ErrorCode: what kind of failure happened; callers branch on it (retry, relist, give up).
enum class ErrorCode {
  kInvalidArgument,  // malformed input: a parser rejected it
  kTransport,        // no HTTP response (connect, TLS, reset)
  kTimeout,
  kNotFound,
  kAlreadyExists,
  kConflict,
  kGone,             // 410: resourceVersion too old, relist
  kTooManyRequests,
  kUnauthorized,
  kForbidden,
  kInvalid,          // 422 from the server
  kBadRequest,
  kDecode,           // a response body that could not be decoded
  kInternal,
  kFenced,           // a write refused before sending: this process no longer leads (not retried)
};

// Error: one failure, with a message that names the step ("LIST pods page 3: ...").
struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  int http_status = 0;                                   // 0 when no response arrived
  std::string reason;                                    // metav1.Status reason, when known
  std::optional<std::chrono::milliseconds> retry_after;  // from Retry-After or Status.details
};

template <class T>
using Result = std::expected<T, Error>;

// Status: a Result with no value.
using Status = std::expected<void, Error>;

// MakeError builds the unexpected value for a Result return.
inline std::unexpected<Error> MakeError(ErrorCode code, std::string message) {
  return std::unexpected<Error>(Error{code, std::move(message), 0, {}, {}});
}

// ErrorCodeName is for logs and test output.
const char* ErrorCodeName(ErrorCode code);

}  // namespace berth
