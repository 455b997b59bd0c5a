#include "clientgo-shim/api/label_validation.h"

#include <algorithm>
#include <vector>

#include "clientgo-shim/base/go_format.h"

namespace berth::shim {
namespace {

// --- validation (apimachinery util/validation wording) ---

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

// RegexError mirrors validation.RegexError, including its doubled space before "or".
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += e;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string MaxLenError(int n) { return "must be no more than " + std::to_string(n) + " characters"; }

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// MatchesQualifiedName: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool MatchesDns1123Subdomain(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string ValidateLabelKey(std::string_view key) {
  std::vector<std::string> errs;
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return "a qualified name " +
             RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
             " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.push_back("prefix part " + MaxLenError(253));
      if (!MatchesDns1123Subdomain(prefix)) {
        errs.push_back("prefix part " +
                       RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63));
  }
  if (!MatchesQualifiedName(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return GoJoin(errs, "; ");
}

std::string ValidateLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!value.empty() && !MatchesQualifiedName(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, "(" + std::string(kQualifiedNameFmt) + ")?",
                              {"MyValue", "my_value", "12345"}));
  }
  return GoJoin(errs, "; ");
}

}  // namespace berth::shim
