#include "e2e/kubesim/disruption/selector_text.h"

#include <map>
#include <string_view>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

std::string_view View(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

std::string DescribeLabelSelector(const rapidjson::Value* selector) {
  if (selector == nullptr || selector->IsNull() || !selector->IsObject()) return "nil";
  std::map<std::string, std::string> labels;  // Go sorts the keys
  if (const auto* ml = json::Member(*selector, "matchLabels"); ml != nullptr && ml->IsObject()) {
    for (const auto& m : ml->GetObject()) {
      labels[std::string(View(m.name))] = m.value.IsString() ? std::string(View(m.value)) : "";
    }
  }
  std::string out = "&LabelSelector{MatchLabels:map[string]string{";
  for (const auto& [k, v] : labels) out += k + ": " + v + ",";
  out += "},MatchExpressions:[]LabelSelectorRequirement{";
  if (const auto* me = json::Member(*selector, "matchExpressions");
      me != nullptr && me->IsArray()) {
    for (const auto& expr : me->GetArray()) {
      if (!expr.IsObject()) continue;
      out += "LabelSelectorRequirement{Key:" + std::string(json::GetString(expr, {"key"})) +
             ",Operator:" + std::string(json::GetString(expr, {"operator"})) + ",Values:[";
      if (const auto* values = json::Member(expr, "values"); values != nullptr && values->IsArray()) {
        bool first = true;
        for (const auto& v : values->GetArray()) {
          if (!v.IsString()) continue;
          if (!first) out += " ";
          out += std::string(View(v));
          first = false;
        }
      }
      out += "],},";
    }
  }
  out += "},}";
  return out;
}

}  // namespace berth::kubesim::disruption
