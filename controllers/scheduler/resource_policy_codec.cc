// controllers/scheduler/resource_policy_codec.cc
//
// ReadResourcePolicyView (scheduler_codec.h): a ResourcePolicy into the placement view. Every
// field berth acts on is checked as the API server would check a metav1.LabelSelector or a node
// selector requirement, so a policy that does not parse is reported (Valid=False) instead of
// being given a meaning it does not have.
#include <charconv>
#include <string>

#include "clientgo-shim/api/label_selector.h"
#include "clientgo-shim/api/label_validation.h"
#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

Error Invalid(std::string message) { return MakeError(ErrorCode::kInvalidArgument, std::move(message)).error(); }

Result<std::optional<int32_t>> ReadNonNegativeInt32(const Value& unit, std::string_view field, const std::string& path) {
  const Value* v = json::Member(unit, field);
  if (v == nullptr || v->IsNull()) return std::optional<int32_t>();
  if (!v->IsInt64() || v->GetInt64() < 0 || v->GetInt64() > INT32_MAX) {
    return std::unexpected(Invalid(path + "." + std::string(field) + ": must be an int32 >= 0, got " + json::Serialize(*v)));
  }
  return std::optional<int32_t>(static_cast<int32_t>(v->GetInt64()));
}

Result<placement::LabelMap> ReadMatchLabels(const Value* map, const std::string& path) {
  placement::LabelMap out;
  if (map == nullptr || map->IsNull()) return out;
  if (!map->IsObject()) return std::unexpected(Invalid(path + ": must be an object of strings"));
  for (const auto& m : map->GetObject()) {
    const std::string key(m.name.GetString(), m.name.GetStringLength());
    if (!m.value.IsString()) return std::unexpected(Invalid(path + "[" + key + "]: must be a string"));
    if (std::string err = shim::ValidateLabelKey(key); !err.empty()) {
      return std::unexpected(Invalid(path + ": Invalid value: \"" + key + "\": " + err));
    }
    const std::string value(m.value.GetString(), m.value.GetStringLength());
    if (std::string err = shim::ValidateLabelValue(value); !err.empty()) {
      return std::unexpected(Invalid(path + "[" + key + "]: Invalid value: \"" + value + "\": " + err));
    }
    out.emplace(key, value);
  }
  return out;
}

// ReadRequirement: one matchExpressions entry with the API server's rules for node selector
// requirements (units may use Gt/Lt as node affinity does).
Result<placement::NodeSelectorRequirement> ReadRequirement(const Value& e, const std::string& path) {
  if (!e.IsObject()) return std::unexpected(Invalid(path + ": must be an object"));
  placement::NodeSelectorRequirement req;
  const Value* key = json::Member(e, "key");
  if (key == nullptr || !key->IsString()) return std::unexpected(Invalid(path + ".key: Required value"));
  req.key = key->GetString();
  if (std::string err = shim::ValidateLabelKey(req.key); !err.empty()) {
    return std::unexpected(Invalid(path + ".key: Invalid value: \"" + req.key + "\": " + err));
  }
  const Value* op = json::Member(e, "operator");
  const std::string op_text = op != nullptr && op->IsString() ? op->GetString() : "";
  req.op = placement::ParseNodeSelectorOperator(op_text);
  if (req.op == placement::NodeSelectorOperator::kUnknown) {
    return std::unexpected(Invalid(path + ".operator: Unsupported value: \"" + op_text +
                                   "\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\""));
  }
  if (const Value* values = json::Member(e, "values"); values != nullptr && !values->IsNull()) {
    if (!values->IsArray()) return std::unexpected(Invalid(path + ".values: must be an array of strings"));
    for (const auto& v : values->GetArray()) {
      if (!v.IsString()) return std::unexpected(Invalid(path + ".values: must be an array of strings"));
      req.values.emplace_back(v.GetString(), v.GetStringLength());
    }
  }
  using Op = placement::NodeSelectorOperator;
  switch (req.op) {
    case Op::kIn:
    case Op::kNotIn:
      if (req.values.empty()) {
        return std::unexpected(Invalid(path + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!req.values.empty()) {
        return std::unexpected(
            Invalid(path + ".values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    case Op::kGt:
    case Op::kLt: {
      if (req.values.size() != 1) {
        return std::unexpected(
            Invalid(path + ".values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      const std::string& v = req.values.front();
      int64_t n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
        return std::unexpected(Invalid(path + ".values[0]: Invalid value: \"" + v + "\": must be an integer"));
      }
      break;
    }
    case Op::kUnknown: break;
  }
  return req;
}

Result<placement::UnitNodeSelector> ReadUnitNodeSelector(const Value* sel, const std::string& path) {
  placement::UnitNodeSelector out;
  if (sel == nullptr || sel->IsNull()) return out;
  if (!sel->IsObject()) return std::unexpected(Invalid(path + ": must be an object"));
  auto labels = ReadMatchLabels(json::Member(*sel, "matchLabels"), path + ".matchLabels");
  if (!labels) return std::unexpected(labels.error());
  out.match_labels = std::move(*labels);
  if (const Value* list = json::Member(*sel, "matchExpressions"); list != nullptr && !list->IsNull()) {
    if (!list->IsArray()) return std::unexpected(Invalid(path + ".matchExpressions: must be an array"));
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      auto req = ReadRequirement((*list)[i], path + ".matchExpressions[" + std::to_string(i) + "]");
      if (!req) return std::unexpected(req.error());
      out.match_expressions.push_back(std::move(*req));
    }
  }
  return out;
}

}  // namespace

Result<placement::ResourcePolicyView> ReadResourcePolicyView(const Value& policy) {
  placement::ResourcePolicyView view;
  view.namespace_name = json::GetString(policy, {"metadata", "namespace"});
  view.name = json::GetString(policy, {"metadata", "name"});
  const Value* spec = json::Member(policy, "spec");
  if (spec == nullptr || !spec->IsObject()) return view;  // selects every pod, no units
  if (const Value* keys = json::Member(*spec, "matchLabelKeys"); keys && keys->IsArray()) {
    for (const auto& k : keys->GetArray()) {
      if (k.IsString()) view.match_label_keys.emplace_back(k.GetString());
    }
  }
  const Value* ignore = json::Find(*spec, {"matchPolicy", "ignoreTerminatingPod"});
  view.ignore_terminating_pod = ignore != nullptr && ignore->IsBool() && ignore->GetBool();
  const std::string strategy(json::GetString(*spec, {"strategy"}));
  if (strategy != "" && strategy != "prefer" && strategy != "required") {
    return std::unexpected(Invalid("spec.strategy: unsupported value \"" + strategy + "\" (prefer or required)"));
  }
  view.required = strategy == "required";
  // An absent podSelector selects every pod of the namespace (the KEP's field is a value, not a
  // pointer, so absent and {} mean the same).
  if (const Value* selector = json::Member(*spec, "podSelector"); selector && !selector->IsNull()) {
    auto parsed = shim::LabelSelector::FromJson(selector);
    if (!parsed) return std::unexpected(Invalid("spec.podSelector: " + parsed.error().message));
    view.pod_selector = std::move(*parsed);
  }
  if (const Value* units = json::Member(*spec, "units"); units && units->IsArray()) {
    for (rapidjson::SizeType i = 0; i < units->Size(); ++i) {
      const Value& u = (*units)[i];
      const std::string path = "spec.units[" + std::to_string(i) + "]";
      if (!u.IsObject()) return std::unexpected(Invalid(path + ": must be an object"));
      placement::ResourcePolicyUnit unit;
      unit.name = json::GetString(u, {"name"});
      auto priority = ReadNonNegativeInt32(u, "priority", path);
      if (!priority) return std::unexpected(priority.error());
      unit.priority = priority->value_or(0);
      auto max_count = ReadNonNegativeInt32(u, "maxCount", path);
      if (!max_count) return std::unexpected(max_count.error());
      unit.max_count = *max_count;
      auto selector = ReadUnitNodeSelector(json::Member(u, "nodeSelector"), path + ".nodeSelector");
      if (!selector) return std::unexpected(selector.error());
      unit.node_selector = std::move(*selector);
      view.units.push_back(std::move(unit));
    }
  }
  return view;
}

}  // namespace berth::controllers
