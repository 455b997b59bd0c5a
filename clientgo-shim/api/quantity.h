// clientgo-shim/api/quantity.h
//
// Quantity: a fixed-point number with a unit suffix, exactly as apimachinery's resource.Quantity
// parses, compares and prints it ("500m", "1Gi", "2e3"). kubesim stores what clients send in the
// canonical form the real apiserver would echo back, and controllers compare requests against
// capacity without floating point.
//
// Representation: the value in nano units (value × 10^9) as a 128-bit integer. apimachinery keeps
// arbitrary precision but rounds every parsed value up (away from zero) to nano precision, so
// nanos are exact. Magnitudes beyond 128-bit nanos (~1.7e29, e.g. "1e30", which the apiserver
// accepts) are kept exactly as decimal digits × 10^exponent: they parse, print and compare
// exactly, while Nanos(), Value() and MilliValue() saturate (never wrap, never zero: upstream's
// MilliValue returns 0 for "1e30"). BinarySI values are capped at 2^63-1, silently, as upstream
// does ("9Ei" parses as 2^63-1).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

class Quantity {
 public:
  // Format is the suffix family remembered from parsing; String() prints in it.
  enum class Format : uint8_t {
    kDecimalExponent,  // 12e6
    kBinarySI,         // 12Mi (12 × 2^20)
    kDecimalSI,        // 12M (12 × 10^6)
  };

  // The zero quantity, DecimalSI.
  Quantity() = default;

  // Parse reads a quantity string (no surrounding whitespace).
  // Errors: kInvalidArgument with apimachinery's messages: "quantities must match the regular
  // expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" or "unable to parse quantity's
  // suffix". Every string of the grammar parses, whatever its magnitude or length (upstream's
  // third message, "unable to parse numeric part of quantity", cannot occur here).
  // Note (upstream behaviour): a bare suffix parses as zero ("Mi" == 0), and so do "-", "+", ".".
  static Result<Quantity> Parse(std::string_view text);

  // FromMilli is NewMilliQuantity: value / 1000 in the given format.
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);
  // FromInt is NewQuantity: an integer value in the given format.
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);

  // String is Quantity.String(): the canonical form, e.g. "1.5" → "1500m", "1024Mi" → "1Gi".
  // Like upstream, a parsed string judged canonical by the parser's fast path is returned as
  // given ("+5" stays "+5", "1.001" stays "1.001"); arithmetic drops that remembered string.
  std::string String() const;

  // Value is ceil(q) rounded away from zero; saturates at the int64 bounds.
  int64_t Value() const;
  // MilliValue is ceil(q × 1000) rounded away from zero; saturates at the int64 bounds, so a
  // value too large for int64 milli-units reads as INT64_MAX, never as zero.
  int64_t MilliValue() const;

  bool IsZero() const { return nanos_ == 0; }
  int Sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }
  Format format() const { return format_; }
  // Nanos is the exact value × 10^9, or ±(2^127-1) when IsBeyondNanoRange().
  __int128 Nanos() const { return nanos_; }
  // IsBeyondNanoRange: the magnitude exceeds what 128-bit nanos hold (parsed values above ~1.7e29,
  // or arithmetic that saturated). Value() and MilliValue() then saturate.
  bool IsBeyondNanoRange() const;

  // Add adds y; if this is zero it takes y's format (upstream rule). Saturates at ±(2^127-1)
  // nanos; a value beyond that range plus a non-zero value becomes the saturated bound.
  void Add(const Quantity& y);
  // Sub subtracts y; if this is zero it takes y's format. Saturates like Add.
  void Sub(const Quantity& y);
  // Neg negates in place.
  void Neg();

  // Comparison is by value only (format and remembered string are ignored); exact for parsed
  // values beyond the nano range too.
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return Compare(a, b);
  }
  friend bool operator==(const Quantity& a, const Quantity& b) { return Compare(a, b) == 0; }

 private:
  static std::strong_ordering Compare(const Quantity& a, const Quantity& b);
  static Quantity BeyondNanoRange(bool positive, std::string digits, int64_t exponent);

  __int128 nanos_ = 0;
  Format format_ = Format::kDecimalSI;
  std::string given_;  // the input string when upstream would reuse it verbatim
  // Beyond the nano range: |value| = big_digits_ × 10^big_exponent_ (digits without leading or
  // trailing zeros, rounded up to nano precision); nanos_ holds the saturated ±(2^127-1).
  std::string big_digits_;
  int64_t big_exponent_ = 0;
};

// ResourceList is core/v1 ResourceList: resource name → quantity, ordered by name.
using ResourceList = std::map<std::string, Quantity, std::less<>>;

// ParseResourceList reads a JSON object whose values are quantity strings or numbers
// ({"cpu": "500m", "memory": 1073741824}); null values are skipped, as Go's decoder does.
// Errors: kInvalidArgument naming the key ("memory: quantities must match ...").
Result<ResourceList> ParseResourceList(const rapidjson::Value& object);

// AddResources adds every entry of `add` into `into` (missing keys start at zero).
void AddResources(ResourceList& into, const ResourceList& add);
// SubResources subtracts every entry of `sub` from `from` (missing keys start at zero).
void SubResources(ResourceList& from, const ResourceList& sub);
// Fits reports whether every request is ≤ the same key in `available` (absent counts as zero).
bool Fits(const ResourceList& request, const ResourceList& available);

}  // namespace berth::shim
