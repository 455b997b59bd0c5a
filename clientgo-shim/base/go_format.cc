// clientgo-shim/base/go_format.cc
#include "clientgo-shim/base/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace berth {
namespace {

// DecodeRune reads one UTF-8 sequence at s[i]; returns the code point and its length, or
// (-1, 1) for an invalid byte, as Go's utf8.DecodeRuneInString does.
std::pair<int32_t, size_t> DecodeRune(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  size_t len = 0;
  int32_t cp = 0;
  int32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return {-1, 1};
  }
  if (i + len > s.size()) return {-1, 1};
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {-1, 1};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {-1, 1};
  return {cp, len};
}

// IsPrintable approximates Go's strconv.IsPrint: ASCII controls, DEL, C1 controls and a few
// Unicode spaces/format characters are not printable.
bool IsPrintable(int32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp >= 0x80 && cp <= 0xA0) return false;
  if (cp == 0xAD || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF) return false;
  if (cp >= 0x200B && cp <= 0x200F) return false;
  return true;
}

// FromScientific parses to_chars' shortest scientific output of a non-negative value.
ShortestDecimal FromScientific(std::string_view s) {
  ShortestDecimal d;
  const size_t e = s.find('e');
  for (char c : s.substr(0, e)) {
    if (c != '.') d.digits.push_back(c);
  }
  std::string_view exp = s.substr(e + 1);
  if (!exp.empty() && exp.front() == '+') exp.remove_prefix(1);
  std::from_chars(exp.data(), exp.data() + exp.size(), d.exponent);
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// FormatG applies strconv's 'g' rule for the shortest precision: %e when the exponent is below
// -4 or at least 6 (eprec = 6), hence "1e+06" but "100000".
std::string FormatG(bool negative, const ShortestDecimal& d) {
  const std::string sign = negative ? "-" : "";
  if (d.exponent < -4 || d.exponent >= 6) return sign + FormatDecimalE(d);
  return sign + FormatDecimalF(d);
}

std::string NonFinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}

}  // namespace

std::string GoJoin(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (size_t i = 0; i < s.size();) {
    auto [cp, len] = DecodeRune(s, i);
    if (cp < 0) {
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      i += 1;
      continue;
    }
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (IsPrintable(cp)) {
          out.append(s.substr(i, len));
        } else if (cp < 0x80) {
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned>(cp));
          out += buf;
        } else if (cp < 0x10000) {
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(cp));
          out += buf;
        } else {
          std::snprintf(buf, sizeof(buf), "\\U%08x", static_cast<unsigned>(cp));
          out += buf;
        }
    }
    i += len;
  }
  out += '"';
  return out;
}

ShortestDecimal ShortestDigits(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  return FromScientific(std::string_view(buf, static_cast<size_t>(res.ptr - buf)));
}

ShortestDecimal ShortestDigits32(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  return FromScientific(std::string_view(buf, static_cast<size_t>(res.ptr - buf)));
}

std::string FormatDecimalE(const ShortestDecimal& d) {
  std::string out(1, d.digits.empty() ? '0' : d.digits[0]);
  if (d.digits.size() > 1) {
    out += '.';
    out.append(d.digits, 1);
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "e%c%02d", d.exponent < 0 ? '-' : '+',
                d.exponent < 0 ? -d.exponent : d.exponent);
  return out + buf;
}

std::string FormatDecimalF(const ShortestDecimal& d) {
  const int n = static_cast<int>(d.digits.size());
  const int exp = d.exponent;
  if (exp < 0) return "0." + std::string(static_cast<size_t>(-exp - 1), '0') + d.digits;
  if (exp + 1 >= n) return d.digits + std::string(static_cast<size_t>(exp + 1 - n), '0');
  return d.digits.substr(0, static_cast<size_t>(exp + 1)) + "." +
         d.digits.substr(static_cast<size_t>(exp + 1));
}

std::string FormatFloatG(double v) {
  if (!std::isfinite(v)) return NonFinite(v);
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  return FormatG(v < 0, ShortestDigits(v));
}

std::string FormatFloat32G(float v) {
  if (!std::isfinite(v)) return NonFinite(v);
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  return FormatG(v < 0, ShortestDigits32(v));
}

}  // namespace berth
