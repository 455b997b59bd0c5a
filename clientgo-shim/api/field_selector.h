// clientgo-shim/api/field_selector.h
//
// Field selectors as the apiserver parses ?fieldSelector= (apimachinery fields.ParseSelector):
// comma-separated "field=value", "field==value", "field!=value" terms; a backslash escapes
// "\", "," and "=" in values. Which fields exist is the caller's decision: kubesim inspects
// requirements() and answers 400 "field label not supported: X" for unknown ones.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// FieldRequirement is one term; `equals` is false for "!=".
struct FieldRequirement {
  std::string field;
  bool equals = true;
  std::string value;  // unescaped
};

class FieldSelector {
 public:
  // FieldGetter returns a field's value, or nullopt when the object lacks it (treated as "",
  // as fields.Set does).
  using FieldGetter = std::function<std::optional<std::string>(std::string_view field)>;

  // The default selector is empty and matches everything.
  FieldSelector() = default;

  // Parse is fields.ParseSelector. Terms are sorted (upstream sorts the raw terms). Errors:
  // kInvalidArgument, e.g. "invalid selector: 'a'; can't understand 'a'",
  // "invalid field selector: invalid escape sequence: \x",
  // "invalid field selector: unescaped character in value: 61" (Go prints the rune's number).
  static Result<FieldSelector> Parse(std::string_view text);

  // Matches is true when every requirement holds for the getter's values.
  bool Matches(const FieldGetter& get) const;

  bool Empty() const { return requirements_.empty(); }
  // String is upstream's form: "f=v" / "f!=v" joined by ",", values re-escaped.
  std::string String() const;
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  // RequiresExactMatch returns the value required by an "=" term on `field`, if any.
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;

 private:
  std::vector<FieldRequirement> requirements_;
};

// EscapeFieldValue is fields.EscapeValue: "\" → "\\", "," → "\,", "=" → "\=".
std::string EscapeFieldValue(std::string_view value);

}  // namespace berth::shim
