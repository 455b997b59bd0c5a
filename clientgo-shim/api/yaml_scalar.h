// clientgo-shim/api/yaml_scalar.h
//
// go-yaml v2's resolution of untagged plain scalars (the rules sigs.k8s.io/yaml inherits), and
// Go's shortest 'g' float formatting. Shared by YAML→JSON (which types a scalar) and JSON→YAML
// (which must quote strings that would read back as another type).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace berth::shim {

enum class ScalarKind { kNull, kBool, kInt, kUint, kFloat, kString };

struct ScalarValue {
  ScalarKind kind = ScalarKind::kString;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string text;  // for kString
};

// ResolvePlainScalar types an untagged plain scalar: "" ~ null → null; y/yes/true/on (and n/no/
// false/off) in lower, Title and UPPER case → bool; Go base-0 integers with "_" removed ("0x1F",
// "0o17", "017", "0b101", "1_000"); YAML floats ("1.5", "1e3", ".5", ".inf", ".nan"); else string.
ScalarValue ResolvePlainScalar(std::string_view in);

// ScalarKindTag is the short YAML tag name: "null", "bool", "int", "float", "str".
std::string_view ScalarKindTag(ScalarKind kind);

// FormatGoFloat is strconv.FormatFloat(f, 'g', -1, bits) with go-yaml's ".inf"/"-.inf"/".nan".
std::string FormatGoFloat(double f, bool bits32);

}  // namespace berth::shim
