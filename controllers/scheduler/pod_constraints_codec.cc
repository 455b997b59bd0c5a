// controllers/scheduler/pod_constraints_codec.cc — see pod_constraints_codec.h.
#include "controllers/scheduler/pod_constraints_codec.h"

#include <charconv>
#include <optional>

#include "clientgo-shim/base/go_format.h"
#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

// GoValue renders a bad value as the apiserver's field errors do: strings quoted, the rest as JSON.
std::string GoValue(const Value& v) {
  return v.IsString() ? GoQuote(std::string_view(v.GetString(), v.GetStringLength())) : json::Serialize(v);
}

std::string Invalid(const std::string& path, const Value& v, std::string_view detail) {
  return path + ": Invalid value: " + GoValue(v) + ": " + std::string(detail);
}

// Present: the member, or nullptr when absent or null (an omitted optional field).
const Value* Present(const Value& object, std::string_view name) {
  const Value* v = json::Member(object, name);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

// ArrayAt: the member `name` as an array; nullptr when absent, and an error naming it when it is
// not an array (never read as empty).
const Value* ArrayAt(const Value& object, std::string_view name, const std::string& path,
                     std::vector<std::string>& errors) {
  const Value* v = Present(object, name);
  if (v != nullptr && !v->IsArray()) {
    errors.push_back(Invalid(path, *v, "must be an array"));
    return nullptr;
  }
  return v;
}

// StringAt: the member `name` as a string ("" when absent); nullopt, with an error, when it is
// another type.
std::optional<std::string_view> StringAt(const Value& object, std::string_view name, const std::string& path,
                                         std::vector<std::string>& errors) {
  const Value* v = Present(object, name);
  if (v == nullptr) return std::string_view();
  if (!v->IsString()) {
    errors.push_back(Invalid(path, *v, "must be a string"));
    return std::nullopt;
  }
  return std::string_view(v->GetString(), v->GetStringLength());
}

// Strings: a []string member; false (with errors) when it is not an array of strings.
bool Strings(const Value& object, std::string_view name, const std::string& path, std::vector<std::string>& out,
             std::vector<std::string>& errors) {
  const size_t before = errors.size();
  const Value* list = ArrayAt(object, name, path, errors);
  if (list == nullptr) return errors.size() == before;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& v = (*list)[i];
    if (!v.IsString()) {
      errors.push_back(Invalid(path + "[" + std::to_string(i) + "]", v, "must be a string"));
      continue;
    }
    out.emplace_back(v.GetString(), v.GetStringLength());
  }
  return errors.size() == before;
}

// Weight: a weighted term's weight, validated as the apiserver does (1-100); nullopt with an error.
std::optional<int32_t> Weight(const Value& item, const std::string& path, std::vector<std::string>& errors) {
  const Value* w = json::Member(item, "weight");
  if (w == nullptr || w->IsNull()) {
    errors.push_back(path + ": Invalid value: 0: must be in the range 1-100");  // Go's zero value
    return std::nullopt;
  }
  if (!w->IsInt() || w->GetInt() < 1 || w->GetInt() > 100) {
    errors.push_back(Invalid(path, *w, "must be in the range 1-100"));
    return std::nullopt;
  }
  return w->GetInt();
}

// LabelKeys: matchLabelKeys / mismatchLabelKeys as a []string; false (with errors) when malformed.
bool LabelKeys(const Value& term, std::string_view name, const std::string& path, std::vector<std::string>& errors) {
  std::vector<std::string> ignored;
  return Strings(term, name, path + "." + std::string(name), ignored, errors);
}

// MergedSelector: metav1.LabelSelectorAsSelector of `selector` with the pod's values of
// `match_keys` (In) and `mismatch_keys` (NotIn) added. A nil selector matches nothing (the keys
// cannot be set without one).
Result<shim::LabelSelector> MergedSelector(const Value* selector, const Value* match_keys, const Value* mismatch_keys,
                                           const placement::LabelMap& pod_labels) {
  if (selector == nullptr || selector->IsNull()) return shim::LabelSelector::Nothing();
  auto has_keys = [](const Value* keys) { return keys != nullptr && keys->IsArray() && !keys->Empty(); };
  if (!has_keys(match_keys) && !has_keys(mismatch_keys)) return shim::LabelSelector::FromJson(selector);
  if (!selector->IsObject()) return shim::LabelSelector::FromJson(selector);  // its error
  rapidjson::Document doc;
  doc.CopyFrom(*selector, doc.GetAllocator());
  auto& alloc = doc.GetAllocator();
  if (!doc.HasMember("matchExpressions") || !doc["matchExpressions"].IsArray()) {
    doc.RemoveMember("matchExpressions");
    doc.AddMember("matchExpressions", Value(rapidjson::kArrayType), alloc);
  }
  Value& expressions = doc["matchExpressions"];
  auto add = [&](const Value* keys, const char* op) {
    if (!has_keys(keys)) return;
    for (const auto& k : keys->GetArray()) {
      if (!k.IsString()) continue;
      auto label = pod_labels.find(std::string_view(k.GetString(), k.GetStringLength()));
      if (label == pod_labels.end()) continue;
      Value req(rapidjson::kObjectType);
      req.AddMember("key", Value(k.GetString(), alloc), alloc);
      req.AddMember("operator", Value(op, alloc), alloc);
      Value values(rapidjson::kArrayType);
      values.PushBack(Value(label->second.c_str(), alloc), alloc);
      req.AddMember("values", values, alloc);
      expressions.PushBack(req, alloc);
    }
  };
  add(match_keys, "In");
  add(mismatch_keys, "NotIn");
  return shim::LabelSelector::FromJson(&doc);
}

void ReadTerms(const Value* list, bool weighted, const std::string& path, const placement::PodSpecView& view,
               std::vector<placement::PodAffinityTerm>& out, std::vector<std::string>& errors) {
  if (list == nullptr) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& item = (*list)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    const Value* t = weighted ? json::Member(item, "podAffinityTerm") : &item;
    if (!item.IsObject() || t == nullptr || !t->IsObject()) {
      errors.push_back(at + ": must be an object");
      continue;
    }
    placement::PodAffinityTerm term;
    if (weighted) {
      auto weight = Weight(item, at + ".weight", errors);
      if (!weight) continue;
      term.weight = *weight;
    }
    const std::string term_path = weighted ? at + ".podAffinityTerm" : at;
    auto topology_key = StringAt(*t, "topologyKey", term_path + ".topologyKey", errors);
    if (!topology_key) continue;
    term.topology_key = *topology_key;
    if (term.topology_key.empty()) {
      errors.push_back(term_path + ".topologyKey: Required value: can not be empty");
      continue;
    }
    if (!LabelKeys(*t, "matchLabelKeys", term_path, errors) || !LabelKeys(*t, "mismatchLabelKeys", term_path, errors)) {
      continue;
    }
    auto selector = MergedSelector(json::Member(*t, "labelSelector"), json::Member(*t, "matchLabelKeys"),
                                   json::Member(*t, "mismatchLabelKeys"), view.labels);
    if (!selector) {
      errors.push_back(term_path + ".labelSelector: " + selector.error().message);
      continue;
    }
    term.selector = std::move(*selector);
    if (!Strings(*t, "namespaces", term_path + ".namespaces", term.namespaces, errors)) continue;
    if (const Value* ns_selector = json::Member(*t, "namespaceSelector"); ns_selector && !ns_selector->IsNull()) {
      auto parsed = shim::LabelSelector::FromJson(ns_selector);
      if (!parsed) {
        errors.push_back(term_path + ".namespaceSelector: " + parsed.error().message);
        continue;
      }
      term.namespace_selector = std::move(*parsed);
    }
    // Neither namespaces nor a namespaceSelector: the pod's own namespace.
    if (term.namespaces.empty() && !term.namespace_selector) term.namespaces.push_back(view.namespace_name);
    out.push_back(std::move(term));
  }
}

// ReadRequirement: one NodeSelectorRequirement, checked as the apiserver's
// ValidateNodeSelectorRequirement (`field` false) or ValidateNodeFieldSelectorRequirement (true)
// and, for Gt/Lt, as the scheduler parses the value (an integer). Errors name the field.
std::optional<placement::NodeSelectorRequirement> ReadRequirement(const Value& r, const std::string& path, bool field,
                                                                  std::vector<std::string>& errors) {
  if (!r.IsObject()) {
    errors.push_back(Invalid(path, r, "must be an object"));
    return std::nullopt;
  }
  const size_t before = errors.size();
  auto key = StringAt(r, "key", path + ".key", errors);
  auto op_text = StringAt(r, "operator", path + ".operator", errors);
  placement::NodeSelectorRequirement req;
  Strings(r, "values", path + ".values", req.values, errors);
  if (errors.size() != before) return std::nullopt;
  req.key = *key;
  req.op = placement::ParseNodeSelectorOperator(*op_text);
  const std::string values_path = path + ".values";
  using Op = placement::NodeSelectorOperator;
  const bool in_or_not_in = req.op == Op::kIn || req.op == Op::kNotIn;
  if (field) {
    if (!in_or_not_in) {
      errors.push_back(path + ".operator: Invalid value: " + GoQuote(*op_text) + ": not a valid selector operator");
    } else if (req.values.size() != 1) {
      errors.push_back(values_path +
                       ": Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field "
                       "selector");
    }
    if (req.key != "metadata.name") {
      errors.push_back(path + ".key: Invalid value: " + GoQuote(req.key) + ": not a valid field selector key");
    }
  } else {
    switch (req.op) {
      case Op::kIn:
      case Op::kNotIn:
        if (req.values.empty()) {
          errors.push_back(values_path + ": Required value: must be specified when `operator` is 'In' or 'NotIn'");
        }
        break;
      case Op::kExists:
      case Op::kDoesNotExist:
        if (!req.values.empty()) {
          errors.push_back(values_path +
                           ": Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        }
        break;
      case Op::kGt:
      case Op::kLt:
        if (req.values.size() != 1) {
          errors.push_back(values_path + ": Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
        } else if (int64_t parsed = 0; std::from_chars(req.values[0].data(), req.values[0].data() + req.values[0].size(),
                                                       parsed).ptr != req.values[0].data() + req.values[0].size() ||
                                       req.values[0].empty()) {
          // The scheduler's nodeSelectorRequirementsAsSelector parses it with strconv.ParseInt.
          errors.push_back(values_path + "[0]: Invalid value: " + GoQuote(req.values[0]) +
                           ": for 'Gt', 'Lt' operators, the value must be an integer");
        }
        break;
      case Op::kUnknown:
        errors.push_back(path + ".operator: Invalid value: " + GoQuote(*op_text) + ": not a valid selector operator");
        break;
    }
    if (req.key.empty()) errors.push_back(path + ".key: Invalid value: \"\": name part must be non-empty");
  }
  if (errors.size() != before) return std::nullopt;
  return req;
}

}  // namespace

std::optional<placement::NodeSelectorTerm> ReadNodeSelectorTerm(const Value& term, const std::string& path,
                                                                std::vector<std::string>& errors) {
  if (!term.IsObject()) {
    errors.push_back(Invalid(path, term, "must be an object"));
    return std::nullopt;
  }
  const size_t before = errors.size();
  placement::NodeSelectorTerm out;
  for (auto [name, field] : {std::pair{"matchExpressions", false}, std::pair{"matchFields", true}}) {
    const std::string list_path = path + "." + name;
    const Value* list = ArrayAt(term, name, list_path, errors);
    if (list == nullptr) continue;
    auto& into = field ? out.match_fields : out.match_expressions;
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      auto req = ReadRequirement((*list)[i], list_path + "[" + std::to_string(i) + "]", field, errors);
      if (req) into.push_back(std::move(*req));
    }
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

namespace {

void ReadSpread(const Value* list, const std::string& path, placement::PodSpecView& view,
                std::vector<std::string>& errors) {
  if (list == nullptr) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& c = (*list)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!c.IsObject()) {
      errors.push_back(at + ": must be an object");
      continue;
    }
    placement::TopologySpreadConstraint out;
    const Value* skew = json::Member(c, "maxSkew");
    if (skew == nullptr || skew->IsNull()) {
      errors.push_back(at + ".maxSkew: Invalid value: 0: must be greater than zero");
      continue;
    }
    if (!skew->IsInt() || skew->GetInt() < 1) {
      errors.push_back(Invalid(at + ".maxSkew", *skew, "must be greater than zero"));
      continue;
    }
    out.max_skew = skew->GetInt();
    auto topology_key = StringAt(c, "topologyKey", at + ".topologyKey", errors);
    if (!topology_key) continue;
    out.topology_key = *topology_key;
    if (out.topology_key.empty()) {
      errors.push_back(at + ".topologyKey: Required value: can not be empty");
      continue;
    }
    auto when_text = StringAt(c, "whenUnsatisfiable", at + ".whenUnsatisfiable", errors);
    if (!when_text) continue;
    const std::string_view when = *when_text;
    if (when != "DoNotSchedule" && when != "ScheduleAnyway") {
      errors.push_back(at + ".whenUnsatisfiable: Unsupported value: \"" + std::string(when) +
                       "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
      continue;
    }
    out.do_not_schedule = when == "DoNotSchedule";
    if (const Value* min = json::Member(c, "minDomains"); min && !min->IsNull()) {
      if (!min->IsInt() || min->GetInt() < 1) {
        errors.push_back(Invalid(at + ".minDomains", *min, "must be greater than zero"));
        continue;
      }
      out.min_domains = min->GetInt();
    }
    auto policy = [&](std::string_view field, bool fallback, bool* honor) {
      auto text = StringAt(c, field, at + "." + std::string(field), errors);
      if (!text) return false;
      const std::string_view v = *text;
      if (v.empty()) {
        *honor = fallback;
        return true;
      }
      if (v != "Honor" && v != "Ignore") {
        errors.push_back(at + "." + std::string(field) + ": Unsupported value: \"" + std::string(v) +
                         "\": supported values: \"Honor\", \"Ignore\"");
        return false;
      }
      *honor = v == "Honor";
      return true;
    };
    if (!policy("nodeAffinityPolicy", true, &out.honor_node_affinity)) continue;
    if (!policy("nodeTaintsPolicy", false, &out.honor_node_taints)) continue;
    if (!LabelKeys(c, "matchLabelKeys", at, errors)) continue;
    auto selector = MergedSelector(json::Member(c, "labelSelector"), json::Member(c, "matchLabelKeys"), nullptr,
                                   view.labels);
    if (!selector) {
      errors.push_back(at + ".labelSelector: " + selector.error().message);
      continue;
    }
    out.selector = std::move(*selector);
    view.topology_spread.push_back(std::move(out));
  }
}

// ObjectAt: the member `name` as an object; nullptr when absent or null, and an error naming it
// when it is another type.
const Value* ObjectAt(const Value& object, std::string_view name, const std::string& path,
                      std::vector<std::string>& errors) {
  const Value* v = Present(object, name);
  if (v != nullptr && !v->IsObject()) {
    errors.push_back(Invalid(path, *v, "must be an object"));
    return nullptr;
  }
  return v;
}

void ReadPreferredNodeAffinity(const Value& node_affinity, const std::string& path, placement::PodSpecView& view,
                               std::vector<std::string>& errors) {
  const Value* list = ArrayAt(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", path, errors);
  if (list == nullptr) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& p = (*list)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!p.IsObject()) {
      errors.push_back(Invalid(at, p, "must be an object"));
      continue;
    }
    auto weight = Weight(p, at + ".weight", errors);
    // A missing preference is Go's zero NodeSelectorTerm (matches no node); any other non-object
    // is malformed.
    const Value* pref = Present(p, "preference");
    std::optional<placement::NodeSelectorTerm> term;
    if (pref == nullptr) {
      term.emplace();
    } else {
      term = ReadNodeSelectorTerm(*pref, at + ".preference", errors);
    }
    if (!weight || !term) continue;
    view.preferred_node_affinity.push_back({*weight, std::move(*term)});
  }
}

}  // namespace

void ReadPodConstraints(const Value& spec, std::string_view path, placement::PodSpecView& view,
                        std::vector<std::string>& errors) {
  const std::string base(path);
  const std::string a = base + ".affinity";
  if (const Value* affinity = ObjectAt(spec, "affinity", a, errors)) {
    auto pod_affinity = std::make_shared<placement::PodAffinity>();
    for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
      const std::string g = a + "." + kind;
      const Value* group = ObjectAt(*affinity, kind, g, errors);
      if (group == nullptr) continue;
      const bool anti = std::string_view(kind) == "podAntiAffinity";
      const std::string required = g + ".requiredDuringSchedulingIgnoredDuringExecution";
      const std::string preferred = g + ".preferredDuringSchedulingIgnoredDuringExecution";
      ReadTerms(ArrayAt(*group, "requiredDuringSchedulingIgnoredDuringExecution", required, errors), false, required,
                view, anti ? pod_affinity->required_anti_affinity : pod_affinity->required_affinity, errors);
      ReadTerms(ArrayAt(*group, "preferredDuringSchedulingIgnoredDuringExecution", preferred, errors), true,
                preferred, view, anti ? pod_affinity->preferred_anti_affinity : pod_affinity->preferred_affinity,
                errors);
    }
    if (!pod_affinity->empty()) view.pod_affinity = std::move(pod_affinity);
    const std::string n = a + ".nodeAffinity";
    if (const Value* node_affinity = ObjectAt(*affinity, "nodeAffinity", n, errors)) {
      ReadPreferredNodeAffinity(*node_affinity, n + ".preferredDuringSchedulingIgnoredDuringExecution", view, errors);
    }
  }
  const std::string spread = base + ".topologySpreadConstraints";
  ReadSpread(ArrayAt(spec, "topologySpreadConstraints", spread, errors), spread, view, errors);
}

}  // namespace berth::controllers
