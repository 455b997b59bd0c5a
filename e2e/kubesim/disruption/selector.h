// e2e/kubesim/disruption/selector.h
//
// metav1.LabelSelector matching as LabelSelectorAsSelector does it: a missing (null) selector
// matches nothing, an empty one `{}` matches everything, and an invalid one is an error.
// Private to the disruption folder: a minimal stand-in until clientgo-shim/api/label_selector.h
// is usable here.
#pragma once

#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::disruption {

// Selector is a parsed metav1.LabelSelector.
class Selector {
 public:
  // FromJson parses `selector` (may be nullptr or JSON null = "nothing").
  // Errors: kInvalidArgument naming the offending key, operator or value.
  static Result<Selector> FromJson(const rapidjson::Value* selector);

  // Matches reports whether a labels object (metadata.labels, may be nullptr) is selected.
  bool Matches(const rapidjson::Value* labels) const;

 private:
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  bool nothing_ = true;
  std::vector<Requirement> requirements_;
};

// DescribeLabelSelector renders a selector the way Go's %v prints *metav1.LabelSelector
// ("&LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]...{},}", or
// "nil"); used in event messages that quote the selector.
std::string DescribeLabelSelector(const rapidjson::Value* selector);

}  // namespace berth::kubesim::disruption
