// clientgo-shim/api/label_selector.h
//
// Kubernetes label selectors: the string syntax of apimachinery labels.Parse ("app=web,tier!=db",
// "env in (prod,staging)", "!canary") and the structured metav1.LabelSelector
// (matchLabels/matchExpressions), with upstream's validation messages and matching rules.
// kubesim filters LIST/WATCH with them; controllers use them to select pods.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/api/label_validation.h"
#include "clientgo-shim/base/result.h"

namespace berth::shim {

// LabelGetter reads one label; nullopt when absent.
class LabelGetter {
 public:
  virtual ~LabelGetter() = default;
  virtual std::optional<std::string_view> Get(std::string_view key) const = 0;
};

using LabelMap = std::map<std::string, std::string, std::less<>>;

// MapLabels views a LabelMap (not owned).
class MapLabels final : public LabelGetter {
 public:
  explicit MapLabels(const LabelMap& labels) : labels_(labels) {}
  std::optional<std::string_view> Get(std::string_view key) const override;

 private:
  const LabelMap& labels_;
};

// JsonLabels views a JSON labels object (not owned); a null pointer or non-object has no labels.
class JsonLabels final : public LabelGetter {
 public:
  explicit JsonLabels(const rapidjson::Value* labels) : labels_(labels) {}
  // OfObject views `object.metadata.labels` of a Kubernetes object.
  static JsonLabels OfObject(const rapidjson::Value& object);
  std::optional<std::string_view> Get(std::string_view key) const override;

 private:
  const rapidjson::Value* labels_;
};

enum class SelectorOperator {
  kIn,
  kNotIn,
  kEquals,        // "="
  kDoubleEquals,  // "=="
  kNotEquals,     // "!="
  kExists,
  kDoesNotExist,
  kGreaterThan,   // ">" (string syntax only; integer comparison)
  kLessThan,      // "<"
};

// LabelRequirement is one ANDed term of a selector.
struct LabelRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kExists;
  std::vector<std::string> values;

  bool Matches(const LabelGetter& labels) const;
  // String is upstream's Requirement.String(): "a in (x,y)", "!a", "a!=b" (values sorted).
  std::string String() const;
};

class LabelSelector {
 public:
  // The default selector is empty and matches everything.
  LabelSelector() = default;
  static LabelSelector Everything() { return LabelSelector(); }
  // Nothing matches no object (labels.Nothing(); used for a nil metav1.LabelSelector).
  static LabelSelector Nothing();

  // Parse is labels.Parse. Errors: kInvalidArgument with upstream's text, e.g.
  // "unable to parse requirement: found '', expected: identifier" or
  // "found ',', expected: !, identifier, or 'end of string'".
  static Result<LabelSelector> Parse(std::string_view text);

  // FromJson is metav1.LabelSelectorAsSelector: nullptr or JSON null → Nothing, {} → Everything.
  // In/NotIn need values; Exists/DoesNotExist must have none. Errors: kInvalidArgument, e.g.
  // "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
  // or "\"Foo\" is not a valid label selector operator".
  static Result<LabelSelector> FromJson(const rapidjson::Value* selector);

  // FromMap is labels.SelectorFromSet: key=value for each entry, without validation.
  static LabelSelector FromMap(const LabelMap& labels);

  bool Matches(const LabelGetter& labels) const;
  bool Matches(const LabelMap& labels) const { return Matches(MapLabels(labels)); }

  // Empty is true for a selector that does not restrict (Everything); false for Nothing.
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }
  // String joins the requirements with ","; "" for Everything and Nothing.
  std::string String() const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;  // sorted by key
  bool nothing_ = false;
};

}  // namespace berth::shim
