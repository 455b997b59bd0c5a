#include "e2e/kubesim/schema/go_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace berth::kubesim::schema {
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

}  // namespace

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
          std::snprintf(buf, sizeof(buf), "\\x%02x", cp);
          out += buf;
        } else if (cp < 0x10000) {
          std::snprintf(buf, sizeof(buf), "\\u%04x", cp);
          out += buf;
        } else {
          std::snprintf(buf, sizeof(buf), "\\U%08x", cp);
          out += buf;
        }
    }
    i += len;
  }
  out += '"';
  return out;
}

std::string GoFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // Shortest round-trip digits, in scientific form "d.ddde±XX".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  bool neg = false;
  if (!sci.empty() && sci[0] == '-') {
    neg = true;
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exp = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = neg ? "-" : "";
  // fmt's %v is strconv 'g' with shortest precision, which switches to %e when the exponent is
  // below -4 or at least 6 (hence 1e+06 but 100000).
  if (exp < -4 || exp >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += ebuf;
    return out;
  }
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (static_cast<size_t>(dp) >= digits.size()) {
    out += digits + std::string(static_cast<size_t>(dp) - digits.size(), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return out;
}

std::string GoSharpV(const rapidjson::Value& v) {
  if (v.IsNull()) return "interface {}(nil)";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) return GoFloat(v.GetDouble());
  if (v.IsString()) return GoQuote(std::string_view(v.GetString(), v.GetStringLength()));
  if (v.IsArray()) {
    std::string out = "[]interface {}{";
    bool first = true;
    for (const auto& item : v.GetArray()) {
      if (!first) out += ", ";
      first = false;
      out += GoSharpV(item);
    }
    return out + "}";
  }
  // Go's fmt prints map keys sorted.
  std::vector<std::pair<std::string, const rapidjson::Value*>> members;
  for (const auto& m : v.GetObject()) {
    members.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), &m.value);
  }
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "map[string]interface {}{";
  bool first = true;
  for (const auto& [key, value] : members) {
    if (!first) out += ", ";
    first = false;
    out += GoQuote(key) + ":" + GoSharpV(*value);
  }
  return out + "}";
}

std::string GoBadValue(const rapidjson::Value& v) {
  if (v.IsNull()) return "\"null\"";
  return GoSharpV(v);
}

}  // namespace berth::kubesim::schema
