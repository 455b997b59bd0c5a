#include "clientgo-shim/api/yaml_scalar.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "clientgo-shim/base/go_format.h"

namespace berth::shim {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool InList(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list) {
    if (s == x) return true;
  }
  return false;
}

// GoParseUint is strconv.ParseUint(s, 0, 64) on a string without underscores.
bool GoParseUint(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  int base = 10;
  if (s[0] == '0') {
    const char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
    if (p == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (p == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
      if (s.empty()) {
        out = 0;
        return true;
      }
    }
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// GoParseInt is strconv.ParseInt(s, 0, 64).
bool GoParseInt(std::string_view s, int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t u;
  if (!GoParseUint(s, u)) return false;
  if (neg) {
    if (u > (uint64_t{1} << 63)) return false;
    out = static_cast<int64_t>(0 - u);
  } else {
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    out = static_cast<int64_t>(u);
  }
  return true;
}

// MatchesYamlFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool MatchesYamlFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// ParseDecimalFloat parses a string already matched as a decimal float; false on overflow, as
// Go's ParseFloat reports a range error there.
bool ParseDecimalFloat(std::string_view s, double& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  std::string buf(s);
  if (buf.starts_with(".")) buf.insert(0, "0");
  if (buf.starts_with("-.")) buf.insert(1, "0");
  auto [ptr, ec] = std::from_chars(buf.data(), buf.data() + buf.size(), out);
  if (ec == std::errc::result_out_of_range) {
    // Underflow reads as zero in Go; overflow is an error.
    size_t e = buf.find_first_of("eE");
    if (e != std::string::npos && buf[e + 1] == '-') {
      out = buf[0] == '-' ? -0.0 : 0.0;
      return true;
    }
    return false;
  }
  return ec == std::errc() && ptr == buf.data() + buf.size();
}

ScalarValue Str(std::string_view in) {
  ScalarValue v;
  v.kind = ScalarKind::kString;
  v.text = std::string(in);
  return v;
}

}  // namespace

ScalarValue ResolvePlainScalar(std::string_view in) {
  ScalarValue v;
  char hint = 'N';
  if (!in.empty()) {
    const char c = in[0];
    if (c == '+' || c == '-') {
      hint = 'S';
    } else if (IsDigit(c)) {
      hint = 'D';
    } else if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) {
      hint = 'M';
    } else if (c == '.') {
      hint = '.';
    } else {
      return Str(in);
    }
  }
  if (InList(in, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    v.kind = ScalarKind::kBool;
    v.b = true;
    return v;
  }
  if (InList(in, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    v.kind = ScalarKind::kBool;
    return v;
  }
  if (InList(in, {"", "~", "null", "Null", "NULL"})) {
    v.kind = ScalarKind::kNull;
    return v;
  }
  if (InList(in, {".nan", ".NaN", ".NAN"})) {
    v.kind = ScalarKind::kFloat;
    v.f = std::numeric_limits<double>::quiet_NaN();
    return v;
  }
  if (InList(in, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    v.kind = ScalarKind::kFloat;
    v.f = std::numeric_limits<double>::infinity();
    return v;
  }
  if (InList(in, {"-.inf", "-.Inf", "-.INF"})) {
    v.kind = ScalarKind::kFloat;
    v.f = -std::numeric_limits<double>::infinity();
    return v;
  }
  if (hint == '.') {
    if (MatchesYamlFloat(in) && ParseDecimalFloat(in, v.f)) {
      v.kind = ScalarKind::kFloat;
      return v;
    }
    return Str(in);
  }
  if (hint == 'D' || hint == 'S') {
    std::string plain;
    plain.reserve(in.size());
    for (char c : in) {
      if (c != '_') plain += c;
    }
    if (GoParseInt(plain, v.i)) {
      v.kind = ScalarKind::kInt;
      return v;
    }
    if (GoParseUint(plain, v.u)) {
      v.kind = ScalarKind::kUint;
      return v;
    }
    if (MatchesYamlFloat(plain) && ParseDecimalFloat(plain, v.f)) {
      v.kind = ScalarKind::kFloat;
      return v;
    }
  }
  return Str(in);
}

std::string_view ScalarKindTag(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kNull: return "null";
    case ScalarKind::kBool: return "bool";
    case ScalarKind::kInt:
    case ScalarKind::kUint: return "int";
    case ScalarKind::kFloat: return "float";
    case ScalarKind::kString: return "str";
  }
  return "str";
}

std::string FormatGoFloat(double f, bool bits32) {
  if (std::isnan(f)) return ".nan";
  if (std::isinf(f) || (bits32 && std::fabs(f) > std::numeric_limits<float>::max())) {
    return f > 0 ? ".inf" : "-.inf";  // float32(f) overflows to ±Inf in Go
  }
  return bits32 ? FormatFloat32G(static_cast<float>(f)) : FormatFloatG(f);
}

}  // namespace berth::shim
