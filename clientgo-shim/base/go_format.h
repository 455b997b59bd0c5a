// clientgo-shim/base/go_format.h
//
// Go's text renderings that berth must reproduce byte for byte (error messages, kubectl columns,
// metrics, YAML): strings.Join, strconv.Quote (%q) and strconv.FormatFloat with the shortest precision ('g',
// which is also fmt's %v of a float), plus the shortest-digits pieces other float layouts
// (encoding/json's) are built from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace berth {

// GoJoin is Go's strings.Join: the parts with `sep` between them ("" for none).
std::string GoJoin(const std::vector<std::string>& parts, std::string_view sep);

// GoQuote returns s as Go's strconv.Quote would ("a\"b" → "\"a\\\"b\""): \a \b \f \n \r \t \v
// named, other non-printable runes as \xNN / \uNNNN / \UNNNNNNNN, invalid UTF-8 bytes as \xNN.
std::string GoQuote(std::string_view s);

// FormatFloatG is strconv.FormatFloat(v, 'g', -1, 64), i.e. fmt's %v of a float64: "1.5",
// "100000", "1e+06", "1e-05", "-0", "NaN", "+Inf", "-Inf".
std::string FormatFloatG(double v);

// FormatFloat32G is strconv.FormatFloat(float64(v), 'g', -1, 32): shortest digits of the float32.
std::string FormatFloat32G(float v);

// ShortestDecimal is |v| as d.ddd × 10^exponent with the fewest digits that round-trip
// (no trailing zeros; "0" with exponent 0 for zero).
struct ShortestDecimal {
  std::string digits;
  int exponent = 0;
};

// ShortestDigits splits a finite |v| into its shortest round-trip digits (the sign is dropped).
ShortestDecimal ShortestDigits(double v);
ShortestDecimal ShortestDigits32(float v);

// FormatDecimalE prints d.ddde±XX with at least two exponent digits (Go's %e layout).
std::string FormatDecimalE(const ShortestDecimal& d);

// FormatDecimalF prints the digits in plain decimal notation (Go's %f layout).
std::string FormatDecimalF(const ShortestDecimal& d);

}  // namespace berth
