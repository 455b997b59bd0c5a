#include "e2e/kubesim/table/go_format.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/go_format.h"

namespace berth::kubesim::table {
namespace {

std::string NonFinite(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "+Inf" : "-Inf";
}

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                   (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                    static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
          // U+2028 / U+2029 are escaped by encoding/json for JSONP safety.
          out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
          i += 2;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void AppendNumber(std::string& out, const rapidjson::Value& v) {
  if (v.IsInt64()) {
    out += std::to_string(v.GetInt64());
  } else {
    out += FormatGoJsonFloat(v.GetDouble());
  }
}

void AppendJson(std::string& out, const rapidjson::Value& v) {
  if (v.IsNull()) {
    out += "null";
  } else if (v.IsBool()) {
    out += v.GetBool() ? "true" : "false";
  } else if (v.IsNumber()) {
    AppendNumber(out, v);
  } else if (v.IsString()) {
    AppendJsonString(out, std::string_view(v.GetString(), v.GetStringLength()));
  } else if (v.IsArray()) {
    out += '[';
    bool first = true;
    for (const auto& item : v.GetArray()) {
      if (!first) out += ',';
      first = false;
      AppendJson(out, item);
    }
    out += ']';
  } else if (v.IsObject()) {
    std::vector<const rapidjson::Value::Member*> members;
    for (const auto& m : v.GetObject()) members.push_back(&m);
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    out += '{';
    bool first = true;
    for (const auto* m : members) {
      if (!first) out += ',';
      first = false;
      AppendJsonString(out, std::string_view(m->name.GetString(), m->name.GetStringLength()));
      out += ':';
      AppendJson(out, m->value);
    }
    out += '}';
  }
}

}  // namespace

bool IsGoInt(const rapidjson::Value& value) { return value.IsInt64(); }

std::string FormatGoJsonFloat(double value) {
  if (!std::isfinite(value)) return NonFinite(value);
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  const ShortestDecimal d = ShortestDigits(value);
  const std::string sign = value < 0 ? "-" : "";
  const double abs = std::fabs(value);
  if (abs < 1e-6 || abs >= 1e21) {
    std::string e = FormatDecimalE(d);
    // encoding/json cleans "e-09" up to "e-9".
    const size_t n = e.size();
    if (n >= 4 && e[n - 4] == 'e' && e[n - 3] == '-' && e[n - 2] == '0') e.erase(n - 2, 1);
    return sign + e;
  }
  return sign + FormatDecimalF(d);
}

std::string GoJsonMarshal(const rapidjson::Value& value) {
  std::string out;
  AppendJson(out, value);
  return out;
}

std::string GoPrintValue(const rapidjson::Value& value) {
  if (value.IsString()) return std::string(value.GetString(), value.GetStringLength());
  if (value.IsBool()) return value.GetBool() ? "true" : "false";
  if (value.IsNull()) return "null";
  if (value.IsNumber()) {
    return value.IsInt64() ? std::to_string(value.GetInt64()) : FormatFloatG(value.GetDouble());
  }
  return GoJsonMarshal(value);
}

}  // namespace berth::kubesim::table
