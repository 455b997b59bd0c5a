#include "clientgo-shim/api/quantity.h"

#include <array>
#include <charconv>
#include <limits>
#include <vector>

namespace berth::shim {
namespace {

using Int128 = __int128;
using UInt128 = unsigned __int128;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

constexpr Int128 kNanosPerUnit = 1'000'000'000;
constexpr Int128 kInt128Max = static_cast<Int128>(~static_cast<UInt128>(0) >> 1);
// BinarySI values are capped at 2^63-1 units, in nanos.
constexpr Int128 kBinaryCapNanos =
    static_cast<Int128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;

std::unexpected<Error> Fail(std::string_view message) {
  return MakeError(ErrorCode::kInvalidArgument, std::string(message));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Scanned is the split of a quantity string, with the same rules as apimachinery's scanner:
// leading zeros of the integer part are dropped and an empty integer part reads as "0".
struct Scanned {
  bool positive = true;
  std::string_view num;
  std::string_view denom;
  std::string_view suffix;
};

bool Scan(std::string_view s, Scanned& out) {
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    out.positive = s[0] != '-';
    ++pos;
  }
  while (pos < end && s[pos] == '0') ++pos;
  if (pos >= end) {
    out.num = "0";
    return true;
  }
  size_t start = pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  out.num = s.substr(start, pos - start);
  if (pos >= end) return true;
  if (out.num.empty()) out.num = "0";
  if (s[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && IsDigit(s[pos])) ++pos;
    out.denom = s.substr(start, pos - start);
    if (pos >= end) return true;
  }
  const size_t suffix_start = pos;
  constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  if (pos < end) return false;  // a character that fits no part of the grammar
  out.suffix = s.substr(suffix_start);
  return true;
}

struct Suffix {
  int base = 10;
  int32_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

bool InterpretSuffix(std::string_view s, Suffix& out) {
  using F = Quantity::Format;
  static constexpr std::pair<std::string_view, int32_t> kDecimal[] = {
      {"", 0},   {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int32_t> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [name, exp] : kDecimal) {
    if (s == name) {
      out = {10, exp, F::kDecimalSI};
      return true;
    }
  }
  for (const auto& [name, exp] : kBinary) {
    if (s == name) {
      out = {2, exp, F::kBinarySI};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // Go's strconv.ParseInt(s, 10, 64): optional sign, digits, no overflow; then int32(...).
    std::string_view digits = s.substr(1);
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty()) return false;
    uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
    if (magnitude > (negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1)) return false;
    uint64_t as_bits = negative ? (~magnitude + 1) : magnitude;
    out = {10, static_cast<int32_t>(static_cast<uint32_t>(as_bits)), F::kDecimalExponent};
    return true;
  }
  return false;
}

bool MulOverflow(Int128 a, Int128 b, Int128& out) { return __builtin_mul_overflow(a, b, &out); }

// Pow10 returns 10^n for 0 <= n <= 38, or false when it does not fit.
bool Pow10(int64_t n, Int128& out) {
  if (n < 0 || n > 38) return false;
  Int128 r = 1;
  for (int64_t i = 0; i < n; ++i) r *= 10;
  out = r;
  return true;
}

// DecimalNanos computes ceil(digits × 10^e10) for a non-negative digit string (no sign), where
// the digits carry no leading zeros. Returns false on overflow of the 128-bit representation.
bool DecimalNanos(std::string_view digits, int64_t e10, Int128& out) {
  const int64_t len = static_cast<int64_t>(digits.size());
  if (len == 0) {
    out = 0;
    return true;
  }
  const int64_t int_digits = len + e10;  // digits left of the decimal point
  if (int_digits > 39) return false;
  if (int_digits <= 0) {
    out = 1;  // 0 < value < 1 nano: rounds up to the smallest representable value
    return true;
  }
  UInt128 q = 0;
  const int64_t take = std::min(len, int_digits);
  for (int64_t i = 0; i < take; ++i) {
    UInt128 next = q * 10 + static_cast<unsigned>(digits[i] - '0');
    if (next / 10 != q) return false;
    q = next;
  }
  for (int64_t i = take; i < int_digits; ++i) {
    if (q > static_cast<UInt128>(kInt128Max) / 10) return false;
    q *= 10;
  }
  bool sticky = digits.substr(static_cast<size_t>(take)).find_first_not_of('0') !=
                std::string_view::npos;
  if (sticky) ++q;
  if (q > static_cast<UInt128>(kInt128Max)) return false;
  out = static_cast<Int128>(q);
  return true;
}

// BigUint is a minimal unsigned big integer (base 2^32) for the rare fractional or very long
// BinarySI inputs, whose exact value needs more than 128 bits before rounding to nanos.
class BigUint {
 public:
  void MulAdd(uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t& limb : limbs_) {
      uint64_t v = static_cast<uint64_t>(limb) * mul + carry;
      limb = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  uint32_t Div(uint32_t div) {
    uint64_t rem = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(cur / div);
      rem = cur % div;
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
    return static_cast<uint32_t>(rem);
  }
  bool IsZero() const { return limbs_.empty(); }
  // ToUInt128 returns false when the value needs more than 128 bits.
  bool ToUInt128(UInt128& out) const {
    if (limbs_.size() > 4) return false;
    out = 0;
    for (size_t i = limbs_.size(); i-- > 0;) out = (out << 32) | limbs_[i];
    return true;
  }

 private:
  std::vector<uint32_t> limbs_;
};

// BinaryNanos computes min(cap, ceil(digits × 2^exp × 10^(9 - denom_len))), exactly, for any
// length of input.
void BinaryNanos(std::string_view digits, int32_t exp, int64_t denom_len, Int128& out) {
  // An integer part of more than 20 digits is at least 10^20 > 2^63-1 units: capped.
  if (static_cast<int64_t>(digits.size()) - denom_len > 20) {
    out = kBinaryCapNanos;
    return;
  }
  // Fraction digits past place 9 + 61 cannot change ceil(nanos) beyond the sticky bit: together
  // they are worth less than 2^exp × 10^-61 nanos, which is below one nano and below the distance
  // from any non-integer value of the kept digits to the next integer (exp <= 60). Dropping
  // them bounds the work whatever the input length.
  constexpr int64_t kFractionDigits = 70;
  bool sticky = false;
  if (denom_len > kFractionDigits) {
    const size_t drop = static_cast<size_t>(denom_len - kFractionDigits);
    if (drop >= digits.size()) {
      sticky = !digits.empty();
      digits = {};
    } else {
      sticky = digits.substr(digits.size() - drop).find_first_not_of('0') != std::string_view::npos;
      digits.remove_suffix(drop);
    }
    denom_len = kFractionDigits;
  }
  BigUint n;
  for (char c : digits) n.MulAdd(10, static_cast<uint32_t>(c - '0'));
  for (int32_t i = 0; i < exp; i += 10) n.MulAdd(1024, 0);
  for (int64_t i = denom_len; i < 9; ++i) n.MulAdd(10, 0);
  for (int64_t i = 9; i < denom_len; ++i) sticky |= n.Div(10) != 0;
  UInt128 q;
  if (!n.ToUInt128(q) || q > static_cast<UInt128>(kBinaryCapNanos)) {
    out = kBinaryCapNanos;
    return;
  }
  if (sticky) ++q;
  out = std::min(static_cast<Int128>(q), kBinaryCapNanos);
}

// IncrementDecimal adds one to a string of decimal digits ("199" → "200", "99" → "100").
void IncrementDecimal(std::string& digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return;
    }
    digits[i] = '0';
  }
  digits.insert(digits.begin(), '1');
}

// AppendExponentSuffix appends the suffix of mantissa × 10^exponent (exponent a multiple of 3)
// as upstream's suffixer does: DecimalSI by name up to "E", otherwise and for DecimalExponent
// "e<exponent>" ("" for 10^0).
void AppendExponentSuffix(std::string& out, int64_t exponent, Quantity::Format format) {
  if (format == Quantity::Format::kDecimalSI) {
    static constexpr std::string_view kDecimalSuffix[] = {"n", "u", "m", "",  "k",
                                                          "M", "G", "T", "P", "E"};
    if (exponent >= -9 && exponent <= 18) {
      out.append(kDecimalSuffix[(exponent + 9) / 3]);
      return;
    }
    // DecimalSI has no suffix past "E": upstream falls back to exponent notation.
  } else if (exponent == 0) {
    return;
  }
  out.push_back('e');
  out.append(std::to_string(exponent));
}

void AppendInt128(std::string& out, Int128 v) {
  std::array<char, 48> buf;
  size_t pos = buf.size();
  bool negative = v < 0;
  UInt128 u = negative ? static_cast<UInt128>(0) - static_cast<UInt128>(v) : static_cast<UInt128>(v);
  do {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  } while (u != 0);
  if (negative) buf[--pos] = '-';
  out.append(buf.data() + pos, buf.size() - pos);
}

Int128 Abs(Int128 v) { return v < 0 ? -v : v; }

// CeilAway divides rounding away from zero, then saturates to int64.
int64_t CeilAwayToInt64(Int128 nanos, Int128 divisor) {
  Int128 q = nanos / divisor;
  if (nanos % divisor != 0) q += nanos > 0 ? 1 : -1;
  if (q > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (q < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(q);
}

Int128 SaturatingAdd(Int128 a, Int128 b) {
  Int128 r;
  // Symmetric bounds keep negation and Abs() defined on saturated values.
  if (__builtin_add_overflow(a, b, &r) || r < -kInt128Max) return b > 0 ? kInt128Max : -kInt128Max;
  return r;
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return Fail(kErrFormatWrong);
  Quantity q;
  if (text == "0") {
    q.given_ = "0";
    return q;
  }
  Scanned sc;
  if (!Scan(text, sc)) return Fail(kErrFormatWrong);
  Suffix suf;
  if (!InterpretSuffix(sc.suffix, suf)) return Fail(kErrSuffix);
  q.format_ = suf.format;

  // apimachinery's int64 fast path: it decides both the value and whether the input string is
  // reused verbatim by String().
  const int64_t digit_count = static_cast<int64_t>(sc.num.size() + sc.denom.size());
  int64_t precision = -1;
  int64_t scale = 0;
  if (suf.base == 10) {
    scale = suf.exponent;
    precision = 18 - digit_count;
  } else if (sc.denom.empty()) {
    precision = 15 - static_cast<int64_t>(sc.num.size()) - suf.exponent * 3 / 10 - 1;
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(sc.denom.size());
    if (scale >= -9) {
      int64_t value = 0;
      for (char c : sc.num) value = value * 10 + (c - '0');
      for (char c : sc.denom) value = value * 10 + (c - '0');
      int64_t mantissa = suf.base == 2 ? (int64_t{1} << suf.exponent) : 1;
      int64_t result;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {
        Int128 factor;
        Int128 nanos = 0;
        if (result != 0 && (!Pow10(scale + 9, factor) || MulOverflow(result, factor, nanos))) {
          // "1e30": valid, beyond 128-bit nanos. Only decimal values get here (binary ones
          // on this path are below 2^63 units).
          q = BeyondNanoRange(sc.positive, std::to_string(result), scale);
          q.format_ = suf.format;
        } else {
          q.nanos_ = sc.positive ? nanos : -nanos;
        }
        bool reuse;
        if (suf.base == 2) {
          reuse = suf.exponent % 10 == 0 && (value & 0x07) != 0;
        } else {
          // Upstream: the digit string has no leading zero and does not end in "000".
          reuse = scale % 3 == 0 && sc.num[0] != '0' && value % 1000 != 0;
        }
        if (reuse) q.given_ = std::string(text);
        return q;
      }
    }
  }

  // Slow path: exact value rounded up (away from zero) to nano precision.
  std::string digits;
  digits.reserve(sc.num.size() + sc.denom.size());
  digits.append(sc.num).append(sc.denom);
  size_t first = digits.find_first_not_of('0');
  std::string_view sig = first == std::string::npos ? std::string_view{}
                                                    : std::string_view(digits).substr(first);
  Int128 nanos = 0;
  const int64_t denom_len = static_cast<int64_t>(sc.denom.size());
  if (suf.base == 10) {
    if (!DecimalNanos(sig, int64_t{suf.exponent} + 9 - denom_len, nanos)) {
      Quantity big = BeyondNanoRange(sc.positive, std::string(sig), int64_t{suf.exponent} - denom_len);
      big.format_ = suf.format;
      return big;
    }
  } else {
    BinaryNanos(sig, suf.exponent, denom_len, nanos);
    if (nanos > 0 && nanos < kNanosPerUnit) q.format_ = Format::kDecimalSI;
  }
  q.nanos_ = sc.positive ? nanos : -nanos;
  return q;
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  Quantity q;
  q.nanos_ = static_cast<Int128>(milli) * 1'000'000;
  q.format_ = format;
  return q;
}

Quantity Quantity::FromInt(int64_t value, Format format) {
  Quantity q;
  q.nanos_ = static_cast<Int128>(value) * kNanosPerUnit;
  q.format_ = format;
  return q;
}

std::string Quantity::String() const {
  if (!given_.empty()) return given_;
  if (nanos_ == 0) return "0";
  std::string out;
  out.reserve(24);
  if (!big_digits_.empty()) {
    // Same canonical form as below, on the exact digits: exponent a multiple of 3.
    if (nanos_ < 0) out.push_back('-');
    out.append(big_digits_);
    int64_t exponent = big_exponent_;
    while (((exponent % 3) + 3) % 3 != 0) {
      out.push_back('0');
      --exponent;
    }
    AppendExponentSuffix(out, exponent, format_ == Format::kBinarySI ? Format::kDecimalSI : format_);
    return out;
  }
  Format format = format_;
  if (format == Format::kBinarySI &&
      (Abs(nanos_) < 1024 * kNanosPerUnit || nanos_ % kNanosPerUnit != 0)) {
    format = Format::kDecimalSI;  // binary would have to round: print exactly in decimal
  }
  if (format == Format::kBinarySI) {
    static constexpr std::string_view kBinarySuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    Int128 v = nanos_ / kNanosPerUnit;
    size_t power = 0;
    while (Abs(v) >= 1024 && v % 1024 == 0 && power + 1 < std::size(kBinarySuffix)) {
      v /= 1024;
      ++power;
    }
    AppendInt128(out, v);
    out.append(kBinarySuffix[power]);
    return out;
  }
  Int128 mantissa = nanos_;
  int64_t exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  switch (((exponent % 3) + 3) % 3) {
    case 1:
      mantissa *= 10;
      exponent -= 1;
      break;
    case 2:
      mantissa *= 100;
      exponent -= 2;
      break;
    default:
      break;
  }
  AppendInt128(out, mantissa);
  AppendExponentSuffix(out, exponent, format);
  return out;
}

Quantity Quantity::BeyondNanoRange(bool positive, std::string digits, int64_t exponent) {
  Quantity q;
  q.nanos_ = positive ? kInt128Max : -kInt128Max;
  if (exponent < -9) {
    // Round up to nano precision, as upstream does for every parsed value. The caller only
    // passes magnitudes above 10^29, so the digits extend well past the nano place.
    const size_t drop = static_cast<size_t>(-9 - exponent);
    if (drop >= digits.size()) return q;  // not reached; the saturated bound is still safe
    bool sticky = std::string_view(digits).substr(digits.size() - drop).find_first_not_of('0') !=
                  std::string_view::npos;
    digits.resize(digits.size() - drop);
    if (sticky) IncrementDecimal(digits);
    exponent = -9;
  }
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  q.big_digits_ = std::move(digits);
  q.big_exponent_ = exponent;
  return q;
}

bool Quantity::IsBeyondNanoRange() const {
  return !big_digits_.empty() || nanos_ == kInt128Max || nanos_ == -kInt128Max;
}

std::strong_ordering Quantity::Compare(const Quantity& a, const Quantity& b) {
  if (a.nanos_ != b.nanos_) return a.nanos_ <=> b.nanos_;
  const bool a_big = !a.big_digits_.empty();
  const bool b_big = !b.big_digits_.empty();
  if (!a_big && !b_big) return std::strong_ordering::equal;
  // Same sign, both at the saturated bound: compare magnitudes. A parsed value ranks above
  // the bare bound that saturated arithmetic leaves.
  std::strong_ordering magnitude = std::strong_ordering::equal;
  if (a_big != b_big) {
    magnitude = a_big ? std::strong_ordering::greater : std::strong_ordering::less;
  } else {
    const int64_t a_order = static_cast<int64_t>(a.big_digits_.size()) + a.big_exponent_;
    const int64_t b_order = static_cast<int64_t>(b.big_digits_.size()) + b.big_exponent_;
    // Without trailing zeros, equal orders compare digit by digit as strings.
    magnitude = a_order != b_order ? a_order <=> b_order : a.big_digits_.compare(b.big_digits_) <=> 0;
  }
  if (a.nanos_ > 0) return magnitude;
  return magnitude == std::strong_ordering::less      ? std::strong_ordering::greater
         : magnitude == std::strong_ordering::greater ? std::strong_ordering::less
                                                      : std::strong_ordering::equal;
}

int64_t Quantity::Value() const { return CeilAwayToInt64(nanos_, kNanosPerUnit); }

int64_t Quantity::MilliValue() const { return CeilAwayToInt64(nanos_, 1'000'000); }

void Quantity::Add(const Quantity& y) {
  given_.clear();
  if (nanos_ == 0) {
    *this = y;  // takes y's format (upstream) and its exact digits when beyond the range
    given_.clear();
    return;
  }
  if (y.IsZero()) return;
  if (IsBeyondNanoRange() || y.IsBeyondNanoRange()) {
    // Not exact out there: the result is the bound on the side of the larger magnitude, so a
    // sum of huge values of opposite sign never collapses to zero unless they are equal.
    Quantity minus_y = y;
    minus_y.Neg();
    const std::strong_ordering order = Compare(*this, minus_y);
    big_digits_.clear();
    big_exponent_ = 0;
    nanos_ = order == 0 ? 0 : (order > 0 ? kInt128Max : -kInt128Max);
    return;
  }
  nanos_ = SaturatingAdd(nanos_, y.nanos_);
}

void Quantity::Sub(const Quantity& y) {
  Quantity minus_y = y;
  minus_y.Neg();
  Add(minus_y);
}

void Quantity::Neg() {
  given_.clear();
  nanos_ = -nanos_;  // the bounds are symmetric; big digits hold the magnitude
}

Result<ResourceList> ParseResourceList(const rapidjson::Value& object) {
  if (!object.IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "resource list must be a JSON object");
  }
  ResourceList out;
  for (const auto& member : object.GetObject()) {
    std::string key(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& v = member.value;
    std::string text;
    if (v.IsNull()) continue;
    if (v.IsString()) {
      text.assign(v.GetString(), v.GetStringLength());
      // Go's decoder trims surrounding whitespace of quantity strings.
      size_t b = text.find_first_not_of(" \t\r\n");
      size_t e = text.find_last_not_of(" \t\r\n");
      text = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
    } else if (v.IsInt64()) {
      text = std::to_string(v.GetInt64());
    } else if (v.IsUint64()) {
      text = std::to_string(v.GetUint64());
    } else if (v.IsDouble()) {
      char buf[64];
      auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v.GetDouble());
      text.assign(buf, ec == std::errc() ? ptr : buf);
    } else {
      return MakeError(ErrorCode::kInvalidArgument,
                       key + ": quantity must be a string or a number");
    }
    auto q = Quantity::Parse(text);
    if (!q) return MakeError(ErrorCode::kInvalidArgument, key + ": " + q.error().message);
    out.insert_or_assign(std::move(key), std::move(*q));
  }
  return out;
}

void AddResources(ResourceList& into, const ResourceList& add) {
  for (const auto& [name, q] : add) into[name].Add(q);
}

void SubResources(ResourceList& from, const ResourceList& sub) {
  for (const auto& [name, q] : sub) from[name].Sub(q);
}

bool Fits(const ResourceList& request, const ResourceList& available) {
  for (const auto& [name, q] : request) {
    auto it = available.find(name);
    const Quantity zero;
    if (q > (it == available.end() ? zero : it->second)) return false;
  }
  return true;
}

}  // namespace berth::shim
