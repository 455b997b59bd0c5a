#include "e2e/kubesim/schema/cause.h"

#include <set>

#include "e2e/kubesim/schema/go_format.h"

namespace berth::kubesim::schema {

std::string_view CauseTypeText(std::string_view type) {
  if (type == "FieldValueNotFound") return "Not found";
  if (type == kCauseRequired) return "Required value";
  if (type == "FieldValueDuplicate") return "Duplicate value";
  if (type == kCauseInvalid) return "Invalid value";
  if (type == kCauseNotSupported) return "Unsupported value";
  if (type == kCauseForbidden) return "Forbidden";
  if (type == kCauseTooLong) return "Too long";
  if (type == kCauseTooMany) return "Too many";
  if (type == "InternalError") return "Internal error";
  if (type == kCauseTypeInvalid) return "Invalid value";
  return type;
}

Cause MakeCause(std::string_view type, std::string field, std::string_view bad_value,
                std::string_view detail) {
  std::string message(CauseTypeText(type));
  // Required, Forbidden, TooLong and Internal never print the bad value.
  const bool omit_value = type == kCauseRequired || type == kCauseForbidden ||
                          type == kCauseTooLong || type == "InternalError";
  if (!omit_value && !bad_value.empty()) {
    message += ": ";
    message += bad_value;
  }
  if (!detail.empty()) {
    message += ": ";
    message += detail;
  }
  return Cause{std::string(type), std::move(field), std::move(message)};
}

std::string FormatCause(const Cause& cause) { return cause.field + ": " + cause.message; }

std::string FormatInvalidMessage(std::string_view qualified_kind, std::string_view name,
                                 const std::vector<Cause>& causes) {
  std::string head = std::string(qualified_kind) + " " + GoQuote(name) + " is invalid";
  std::vector<std::string> distinct;
  std::set<std::string> seen;
  for (const Cause& cause : causes) {
    std::string text = FormatCause(cause);
    if (seen.insert(text).second) distinct.push_back(std::move(text));
  }
  if (distinct.empty()) return head;
  if (distinct.size() == 1) return head + ": " + distinct.front();
  std::string joined;
  for (const std::string& text : distinct) {
    if (!joined.empty()) joined += ", ";
    joined += text;
  }
  return head + ": [" + joined + "]";
}

}  // namespace berth::kubesim::schema
