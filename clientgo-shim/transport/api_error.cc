// clientgo-shim/transport/api_error.cc
#include "clientgo-shim/transport/api_error.h"

#include <charconv>
#include <cstdint>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_codec.h"

namespace berth::shim {
namespace {

// A plain-text body longer than this is probably an HTML error page: keep only its start.
constexpr size_t kMaxPlainMessage = 512;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' ||
                        s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string StringMember(const json::Value& v, std::string_view key) {
  const json::Value* m = json::Member(v, key);
  if (m == nullptr || !m->IsString()) return {};
  return std::string(m->GetString(), m->GetStringLength());
}

// ReadStatus fills `out` from a metav1.Status document. Returns false when the document is not
// a Status (then the caller falls back to the plain-text path).
bool ReadStatus(const json::Value& doc, ApiStatus& out) {
  if (!doc.IsObject()) return false;
  const bool is_status = json::GetString(doc, {"kind"}) == "Status";
  const json::Value* message = json::Member(doc, "message");
  const json::Value* reason = json::Member(doc, "reason");
  if (!is_status && (message == nullptr || !message->IsString()) &&
      (reason == nullptr || !reason->IsString())) {
    return false;
  }
  out.message = StringMember(doc, "message");
  out.reason = StringMember(doc, "reason");
  if (const json::Value* code = json::Member(doc, "code");
      code != nullptr && code->IsInt() && code->GetInt() >= 100 && code->GetInt() <= 599) {
    out.code = code->GetInt();
  }
  const json::Value* details = json::Member(doc, "details");
  if (details != nullptr && details->IsObject()) {
    out.name = StringMember(*details, "name");
    out.kind = StringMember(*details, "kind");
    if (const json::Value* ra = json::Member(*details, "retryAfterSeconds");
        ra != nullptr && ra->IsInt64() && ra->GetInt64() > 0 && ra->GetInt64() < 86400 * 365) {
      out.retry_after = std::chrono::seconds(ra->GetInt64());
    }
    if (const json::Value* causes = json::Member(*details, "causes");
        causes != nullptr && causes->IsArray()) {
      for (const json::Value& c : causes->GetArray()) {
        if (!c.IsObject()) continue;
        out.causes.push_back(
            {StringMember(c, "reason"), StringMember(c, "message"), StringMember(c, "field")});
      }
    }
  }
  return true;
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view header) {
  header = Trim(header);
  if (header.empty() || header.size() > 9) return std::nullopt;
  int64_t seconds = 0;
  auto [ptr, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (ec != std::errc() || ptr != header.data() + header.size() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

std::string GenericMessageForHttpStatus(int http_status) {
  switch (http_status) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "the server has asked for the client to provide credentials";
    case 403: return "the server does not allow access to the requested resource";
    case 404: return "the server could not find the requested resource";
    case 405: return "the server does not allow this method on the requested resource";
    case 406: return "the server was unable to respond with a content type that the client supports";
    case 409: return "the server reported a conflict";
    case 410: return "the server could not find the requested resource (gone)";
    case 413: return "the server has rejected the request because it is too large";
    case 415: return "the server was unable to respond with a content type that the client supports";
    case 422: return "the server rejected our request due to an error in our request";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be "
             "processing the request";
    default: break;
  }
  if (http_status >= 500) {
    return "an error on the server has prevented the request from succeeding";
  }
  return "the server responded with the status code " + std::to_string(http_status) +
         " but did not return more information";
}

ErrorCode ErrorCodeForHttpStatus(int http_status, std::string_view reason) {
  switch (http_status) {
    case 400: return ErrorCode::kBadRequest;
    case 401: return ErrorCode::kUnauthorized;
    case 403: return ErrorCode::kForbidden;
    case 404: return ErrorCode::kNotFound;
    case 409: return reason == "AlreadyExists" ? ErrorCode::kAlreadyExists : ErrorCode::kConflict;
    case 410: return ErrorCode::kGone;
    case 422: return ErrorCode::kInvalid;
    case 429: return ErrorCode::kTooManyRequests;
    case 504: return ErrorCode::kTimeout;
    default: return ErrorCode::kInternal;
  }
}

ApiStatus DecodeApiStatus(int http_status, std::string_view body,
                          std::string_view retry_after_header) {
  ApiStatus out;
  out.code = http_status;
  const std::string_view trimmed = Trim(body);
  bool decoded = false;
  if (!trimmed.empty() && trimmed.front() == '{') {
    auto doc = json::Parse(trimmed);
    if (doc) decoded = ReadStatus(*doc, out);
  } else if (proto::HasProtobufMagic(body)) {
    // A request that accepted protobuf gets its error Status in protobuf too.
    if (auto text = proto::StatusJson(body)) {
      if (auto doc = json::Parse(*text)) decoded = ReadStatus(*doc, out);
    }
  }
  // The response's own status wins over a body that disagrees: it is what the server sent.
  out.code = http_status;
  if (!decoded) {
    // Plain text (APF's "Too many requests, please try again later.") or garbage: keep a short,
    // single-line body as the message, as client-go does for small non-Status bodies.
    std::string generic = GenericMessageForHttpStatus(http_status);
    if (!trimmed.empty() && trimmed.front() != '{' && trimmed.front() != '<') {
      std::string text(trimmed.substr(0, kMaxPlainMessage));
      for (char& c : text) {
        if (c == '\n' || c == '\r' || static_cast<unsigned char>(c) < 0x20) c = ' ';
      }
      out.message = generic + " (" + text + ")";
    } else {
      out.message = std::move(generic);
    }
  }
  if (out.message.empty()) out.message = GenericMessageForHttpStatus(http_status);
  // Retry-After header beats details.retryAfterSeconds: the header is what the filter chain set.
  if (auto header = ParseRetryAfter(retry_after_header)) out.retry_after = header;
  return out;
}

Error DecodeApiError(int http_status, std::string_view body, std::string_view retry_after_header) {
  ApiStatus status = DecodeApiStatus(http_status, body, retry_after_header);
  Error e;
  e.code = ErrorCodeForHttpStatus(http_status, status.reason);
  e.message = std::move(status.message);
  e.http_status = http_status;
  e.reason = std::move(status.reason);
  e.retry_after = status.retry_after;
  return e;
}

}  // namespace berth::shim
