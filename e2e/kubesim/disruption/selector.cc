#include "e2e/kubesim/disruption/selector.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::disruption {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A qualified-name part / label value: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63.
bool IsNamePart(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// DNS-1123 subdomain: lower-case alphanumerics, '-' and '.', at most 253.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return lower_alnum(c) || c == '-' || c == '.'; });
}

bool IsLabelKey(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsNamePart(key);
  return IsDnsSubdomain(key.substr(0, slash)) && IsNamePart(key.substr(slash + 1));
}

bool IsLabelValue(std::string_view v) { return v.empty() || IsNamePart(v); }

std::string_view View(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

Result<Selector> Selector::FromJson(const rapidjson::Value* selector) {
  Selector out;
  if (selector == nullptr || selector->IsNull()) return out;  // nil selector: matches nothing
  if (!selector->IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "label selector is not an object");
  }
  out.nothing_ = false;
  if (const auto* ml = json::Member(*selector, "matchLabels"); ml != nullptr && !ml->IsNull()) {
    if (!ml->IsObject()) {
      return MakeError(ErrorCode::kInvalidArgument, "matchLabels is not an object");
    }
    for (const auto& m : ml->GetObject()) {
      std::string_view key = View(m.name);
      if (!IsLabelKey(key)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid label key \"" + std::string(key) + "\"");
      }
      if (!m.value.IsString() || !IsLabelValue(View(m.value))) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid label value for key \"" + std::string(key) + "\"");
      }
      out.requirements_.push_back({std::string(key), Op::kIn, {std::string(View(m.value))}});
    }
  }
  if (const auto* me = json::Member(*selector, "matchExpressions");
      me != nullptr && !me->IsNull()) {
    if (!me->IsArray()) {
      return MakeError(ErrorCode::kInvalidArgument, "matchExpressions is not an array");
    }
    for (const auto& expr : me->GetArray()) {
      if (!expr.IsObject()) {
        return MakeError(ErrorCode::kInvalidArgument, "matchExpressions entry is not an object");
      }
      std::string_view key = json::GetString(expr, {"key"});
      std::string_view op_text = json::GetString(expr, {"operator"});
      if (!IsLabelKey(key)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "invalid label key \"" + std::string(key) + "\"");
      }
      Requirement req{std::string(key), Op::kIn, {}};
      if (op_text == "In") {
        req.op = Op::kIn;
      } else if (op_text == "NotIn") {
        req.op = Op::kNotIn;
      } else if (op_text == "Exists") {
        req.op = Op::kExists;
      } else if (op_text == "DoesNotExist") {
        req.op = Op::kDoesNotExist;
      } else {
        return MakeError(ErrorCode::kInvalidArgument,
                         "\"" + std::string(op_text) + "\" is not a valid label selector operator");
      }
      if (const auto* values = json::Member(expr, "values"); values != nullptr && !values->IsNull()) {
        if (!values->IsArray()) {
          return MakeError(ErrorCode::kInvalidArgument, "values is not an array");
        }
        for (const auto& v : values->GetArray()) {
          if (!v.IsString() || !IsLabelValue(View(v))) {
            return MakeError(ErrorCode::kInvalidArgument,
                             "invalid label value for key \"" + std::string(key) + "\"");
          }
          req.values.emplace_back(View(v));
        }
      }
      const bool set_op = req.op == Op::kIn || req.op == Op::kNotIn;
      if (set_op && req.values.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "values: Invalid value: []string(nil): for 'in', 'notin' operators, "
                         "values set can't be empty");
      }
      if (!set_op && !req.values.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "values: Invalid value: values set must be empty for exists and "
                         "does not exist");
      }
      out.requirements_.push_back(std::move(req));
    }
  }
  return out;
}

bool Selector::Matches(const rapidjson::Value* labels) const {
  if (nothing_) return false;
  for (const Requirement& req : requirements_) {
    const rapidjson::Value* v = labels != nullptr ? json::Member(*labels, req.key) : nullptr;
    const bool has = v != nullptr && v->IsString();
    const bool in_set =
        has && std::find(req.values.begin(), req.values.end(), View(*v)) != req.values.end();
    switch (req.op) {
      case Op::kIn:
        if (!in_set) return false;
        break;
      case Op::kNotIn:
        if (in_set) return false;
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

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
