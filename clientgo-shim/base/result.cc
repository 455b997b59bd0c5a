#include "clientgo-shim/base/result.h"

namespace berth {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "InvalidArgument";
    case ErrorCode::kTransport: return "Transport";
    case ErrorCode::kTimeout: return "Timeout";
    case ErrorCode::kNotFound: return "NotFound";
    case ErrorCode::kAlreadyExists: return "AlreadyExists";
    case ErrorCode::kConflict: return "Conflict";
    case ErrorCode::kGone: return "Gone";
    case ErrorCode::kTooManyRequests: return "TooManyRequests";
    case ErrorCode::kUnauthorized: return "Unauthorized";
    case ErrorCode::kForbidden: return "Forbidden";
    case ErrorCode::kInvalid: return "Invalid";
    case ErrorCode::kBadRequest: return "BadRequest";
    case ErrorCode::kDecode: return "Decode";
    case ErrorCode::kInternal: return "Internal";
    case ErrorCode::kFenced: return "Fenced";
  }
  return "Unknown";
}

}  // namespace berth
