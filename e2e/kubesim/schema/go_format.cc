#include "e2e/kubesim/schema/go_format.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "clientgo-shim/base/go_format.h"

namespace berth::kubesim::schema {
std::string GoSharpV(const rapidjson::Value& v) {
  if (v.IsNull()) return "interface {}(nil)";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsNumber()) return FormatFloatG(v.GetDouble());
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
