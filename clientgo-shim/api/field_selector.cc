#include "clientgo-shim/api/field_selector.h"

#include <algorithm>

namespace berth::shim {
namespace {

std::unexpected<Error> Fail(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

// SplitTerms splits on commas not preceded by an escaping backslash; escapes stay in place.
std::vector<std::string_view> SplitTerms(std::string_view s) {
  std::vector<std::string_view> terms;
  if (s.empty()) return terms;
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (in_slash) {
      in_slash = false;
    } else if (s[i] == '\\') {
      in_slash = true;
    } else if (s[i] == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(start));
  return terms;
}

// SplitTerm splits at the first operator; "!=" and "==" are tried before "=" at each position.
bool SplitTerm(std::string_view term, std::string_view& lhs, std::string_view& op,
               std::string_view& rhs) {
  for (size_t i = 0; i < term.size(); ++i) {
    std::string_view rest = term.substr(i);
    for (std::string_view candidate : {"!=", "==", "="}) {
      if (rest.starts_with(candidate)) {
        lhs = term.substr(0, i);
        op = candidate;
        rhs = rest.substr(candidate.size());
        return true;
      }
    }
  }
  return false;
}

Result<std::string> Unescape(std::string_view s) {
  if (s.find_first_of("\\,=") == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  bool in_slash = false;
  for (char c : s) {
    if (in_slash) {
      if (c == '\\' || c == ',' || c == '=') {
        out += c;
      } else {
        // Go reports the escaped rune; for a multi-byte rune this shows its first byte only.
        return Fail(std::string("invalid field selector: invalid escape sequence: \\") + c);
      }
      in_slash = false;
      continue;
    }
    if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      return Fail("invalid field selector: unescaped character in value: " +
                  std::to_string(static_cast<int>(c)));
    } else {
      out += c;
    }
  }
  if (in_slash) return Fail("invalid field selector: invalid escape sequence: \\");
  return out;
}

}  // namespace

std::string EscapeFieldValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  std::vector<std::string_view> terms = SplitTerms(text);
  std::sort(terms.begin(), terms.end());
  FieldSelector sel;
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    std::string_view lhs, op, rhs;
    if (!SplitTerm(term, lhs, op, rhs)) {
      return Fail("invalid selector: '" + std::string(text) + "'; can't understand '" +
                  std::string(term) + "'");
    }
    auto value = Unescape(rhs);
    if (!value) return std::unexpected(value.error());
    sel.requirements_.push_back({std::string(lhs), op != "!=", std::move(*value)});
  }
  return sel;
}

bool FieldSelector::Matches(const FieldGetter& get) const {
  for (const FieldRequirement& r : requirements_) {
    std::optional<std::string> have = get(r.field);
    const bool equal = have.value_or("") == r.value;
    if (equal != r.equals) return false;
  }
  return true;
}

std::string FieldSelector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].field;
    out += requirements_[i].equals ? "=" : "!=";
    out += EscapeFieldValue(requirements_[i].value);
  }
  return out;
}

std::optional<std::string> FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.equals) return r.value;
  }
  return std::nullopt;
}

}  // namespace berth::shim
