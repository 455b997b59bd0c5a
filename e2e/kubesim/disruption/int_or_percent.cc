#include "e2e/kubesim/disruption/int_or_percent.h"

#include <cmath>
#include <string>
#include <string_view>

namespace berth::kubesim::disruption {
namespace {

// Mirrors strconv.Atoi's accepted syntax (optional sign, decimal digits) and error text.
Result<int64_t> Atoi(std::string_view s) {
  auto fail = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "strconv.Atoi: parsing \"" + std::string(s) + "\": " + std::string(why));
  };
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return fail("invalid syntax");
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return fail("invalid syntax");
    if (v > (INT64_MAX - (s[i] - '0')) / 10) return fail("value out of range");
    v = v * 10 + (s[i] - '0');
  }
  return negative ? -v : v;
}

}  // namespace

Result<int64_t> ScaledValueFromIntOrPercent(const rapidjson::Value& value, int64_t total,
                                            bool round_up) {
  const std::string prefix = "invalid value for IntOrString: ";
  if (value.IsInt64()) return value.GetInt64();
  if (!value.IsString()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     prefix + "invalid type: neither int nor percentage");
  }
  std::string_view s(value.GetString(), value.GetStringLength());
  if (s.empty() || s.back() != '%') {
    return MakeError(ErrorCode::kInvalidArgument,
                     prefix + "invalid type: string is not a percentage");
  }
  auto pct = Atoi(s.substr(0, s.size() - 1));
  if (!pct) {
    return MakeError(ErrorCode::kInvalidArgument,
                     prefix + "invalid value \"" + std::string(s) + "\": " + pct.error().message);
  }
  // Same float64 arithmetic as upstream so rounding edges agree.
  const double scaled = static_cast<double>(*pct) * static_cast<double>(total) / 100.0;
  return static_cast<int64_t>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

}  // namespace berth::kubesim::disruption
