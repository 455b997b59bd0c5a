// clientgo-shim/api/label_validation.h
//
// Label key and value validation with apimachinery's util/validation wording
// (IsQualifiedName, IsValidLabelValue), used by selectors and by kubesim's object validation.
#pragma once

#include <string>
#include <string_view>

namespace berth::shim {

// ValidateLabelKey returns upstream's IsQualifiedName messages joined by "; " (empty when valid):
// an optional DNS-1123 subdomain prefix (≤253) and "/", then a name (≤63, alphanumeric at both
// ends, '-', '_', '.' inside).
std::string ValidateLabelKey(std::string_view key);

// ValidateLabelValue returns upstream's IsValidLabelValue messages joined by "; " (empty if
// valid): empty, or ≤63 characters shaped like a qualified name.
std::string ValidateLabelValue(std::string_view value);

}  // namespace berth::shim
