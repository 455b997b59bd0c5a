// controllers/scheduler/pod_constraints_codec.cc — see pod_constraints_codec.h.
#include "controllers/scheduler/pod_constraints_codec.h"

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

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
  if (list == nullptr || !list->IsArray()) return;
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
      const Value* w = json::Member(item, "weight");
      if (w == nullptr || !w->IsInt() || w->GetInt() < 1 || w->GetInt() > 100) {
        errors.push_back(at + ".weight: must be in the range 1-100");
        continue;
      }
      term.weight = w->GetInt();
    }
    const std::string term_path = weighted ? at + ".podAffinityTerm" : at;
    term.topology_key = json::GetString(*t, {"topologyKey"});
    if (term.topology_key.empty()) {
      errors.push_back(term_path + ".topologyKey: Required value: can not be empty");
      continue;
    }
    auto selector = MergedSelector(json::Member(*t, "labelSelector"), json::Member(*t, "matchLabelKeys"),
                                   json::Member(*t, "mismatchLabelKeys"), view.labels);
    if (!selector) {
      errors.push_back(term_path + ".labelSelector: " + selector.error().message);
      continue;
    }
    term.selector = std::move(*selector);
    if (const Value* ns = json::Member(*t, "namespaces"); ns && ns->IsArray()) {
      for (const auto& n : ns->GetArray()) {
        if (n.IsString()) term.namespaces.emplace_back(n.GetString());
      }
    }
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

std::vector<placement::NodeSelectorRequirement> ReadRequirements(const Value* list) {
  std::vector<placement::NodeSelectorRequirement> out;
  if (!list || !list->IsArray()) return out;
  for (const auto& r : list->GetArray()) {
    if (!r.IsObject()) continue;
    placement::NodeSelectorRequirement req;
    req.key = json::GetString(r, {"key"});
    req.op = placement::ParseNodeSelectorOperator(json::GetString(r, {"operator"}));
    if (const Value* vs = json::Member(r, "values"); vs && vs->IsArray()) {
      for (const auto& v : vs->GetArray()) {
        if (v.IsString()) req.values.emplace_back(v.GetString());
      }
    }
    out.push_back(std::move(req));
  }
  return out;
}

void ReadSpread(const Value* list, const std::string& path, placement::PodSpecView& view,
                std::vector<std::string>& errors) {
  if (list == nullptr || !list->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& c = (*list)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!c.IsObject()) {
      errors.push_back(at + ": must be an object");
      continue;
    }
    placement::TopologySpreadConstraint out;
    const Value* skew = json::Member(c, "maxSkew");
    if (skew == nullptr || !skew->IsInt() || skew->GetInt() < 1) {
      errors.push_back(at + ".maxSkew: must be greater than zero");
      continue;
    }
    out.max_skew = skew->GetInt();
    out.topology_key = json::GetString(c, {"topologyKey"});
    if (out.topology_key.empty()) {
      errors.push_back(at + ".topologyKey: Required value: can not be empty");
      continue;
    }
    const std::string_view when = json::GetString(c, {"whenUnsatisfiable"});
    if (when != "DoNotSchedule" && when != "ScheduleAnyway") {
      errors.push_back(at + ".whenUnsatisfiable: Unsupported value: \"" + std::string(when) +
                       "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
      continue;
    }
    out.do_not_schedule = when == "DoNotSchedule";
    if (const Value* min = json::Member(c, "minDomains"); min && !min->IsNull()) {
      if (!min->IsInt() || min->GetInt() < 1) {
        errors.push_back(at + ".minDomains: must be greater than zero");
        continue;
      }
      out.min_domains = min->GetInt();
    }
    auto policy = [&](std::string_view field, bool fallback, bool* honor) {
      const std::string_view v = json::GetString(c, {field});
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

}  // namespace

void ReadPodConstraints(const Value& spec, std::string_view path, placement::PodSpecView& view,
                        std::vector<std::string>& errors) {
  const std::string base(path);
  if (const Value* affinity = json::Member(spec, "affinity"); affinity && affinity->IsObject()) {
    auto pod_affinity = std::make_shared<placement::PodAffinity>();
    const std::string a = base + ".affinity";
    for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
      const Value* group = json::Member(*affinity, kind);
      if (group == nullptr || !group->IsObject()) continue;
      const bool anti = std::string_view(kind) == "podAntiAffinity";
      const std::string g = a + "." + kind;
      ReadTerms(json::Member(*group, "requiredDuringSchedulingIgnoredDuringExecution"), false,
                g + ".requiredDuringSchedulingIgnoredDuringExecution", view,
                anti ? pod_affinity->required_anti_affinity : pod_affinity->required_affinity, errors);
      ReadTerms(json::Member(*group, "preferredDuringSchedulingIgnoredDuringExecution"), true,
                g + ".preferredDuringSchedulingIgnoredDuringExecution", view,
                anti ? pod_affinity->preferred_anti_affinity : pod_affinity->preferred_affinity, errors);
    }
    if (!pod_affinity->empty()) view.pod_affinity = std::move(pod_affinity);
    if (const Value* preferred =
            json::Find(*affinity, {"nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"});
        preferred && preferred->IsArray()) {
      for (const auto& p : preferred->GetArray()) {
        if (!p.IsObject()) continue;
        const Value* w = json::Member(p, "weight");
        const Value* pref = json::Member(p, "preference");
        if (w == nullptr || !w->IsInt() || pref == nullptr || !pref->IsObject()) continue;
        view.preferred_node_affinity.push_back(
            {w->GetInt(),
             {ReadRequirements(json::Member(*pref, "matchExpressions")), ReadRequirements(json::Member(*pref, "matchFields"))}});
      }
    }
  }
  ReadSpread(json::Member(spec, "topologySpreadConstraints"), base + ".topologySpreadConstraints", view, errors);
}

}  // namespace berth::controllers
