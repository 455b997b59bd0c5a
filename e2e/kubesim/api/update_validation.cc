// e2e/kubesim/api/update_validation.cc
#include "e2e/kubesim/api/update_validation.h"

#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;
using Document = rapidjson::Document;

// The list of ValidatePodUpdate (k8s.io/kubernetes pkg/apis/core/validation), verbatim.
constexpr std::string_view kPodUpdatable =
    "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

const Value kNull;

const Value& MemberOr(const Value& obj, std::string_view key) {
  const Value* v = obj.IsObject() ? json::Member(obj, key) : nullptr;
  return v ? *v : kNull;
}

// CopyImages sets the image of each container in `munged[list]` from `old[list]` (same index).
void CopyImages(Value& munged, const Value& old, std::string_view list, Document::AllocatorType& a) {
  Value* m = json::FindMutable(munged, {list});
  const Value* o = json::Member(old, list);
  if (!m || !o || !m->IsArray() || !o->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < m->Size() && i < o->Size(); ++i) {
    if (!(*m)[i].IsObject()) continue;
    if (const Value* image = (*o)[i].IsObject() ? json::Member((*o)[i], "image") : nullptr) {
      json::SetMember((*m)[i], "image", Value(*image, a), a);
    } else {
      json::RemoveMember((*m)[i], "image");
    }
  }
}

void CopyOrRemove(Value& munged, const Value& old, std::string_view key, Document::AllocatorType& a) {
  if (const Value* v = json::Member(old, key)) {
    json::SetMember(munged, key, Value(*v, a), a);
  } else {
    json::RemoveMember(munged, key);
  }
}

size_t ListSize(const Value& spec, std::string_view key) {
  const Value& v = MemberOr(spec, key);
  return v.IsArray() ? v.Size() : 0;
}

// SpecDiff renders the top-level spec fields that differ, in the spirit of the cmp.Diff the
// apiserver appends (its exact Go rendering is not reproduced).
std::string SpecDiff(const Value& old_spec, const Value& new_spec) {
  std::string out = "  core.PodSpec{\n";
  auto line = [&](const char* sign, std::string_view key, const Value& v) {
    out += std::string(sign) + " \t" + std::string(key) + ": " + (v.IsNull() ? "nil" : json::Serialize(v)) + ",\n";
  };
  if (old_spec.IsObject()) {
    for (const auto& m : old_spec.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const Value& nv = MemberOr(new_spec, key);
      if (nv != m.value) {
        line("-", key, m.value);
        line("+", key, nv);
      }
    }
  }
  if (new_spec.IsObject()) {
    for (const auto& m : new_spec.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (!json::Member(old_spec, key)) {
        line("-", key, kNull);
        line("+", key, m.value);
      }
    }
  }
  return out + "  }\n";
}

bool SameToleration(const Value& a, const Value& b) {
  // tolerationSeconds of an existing toleration may change; everything else must stay.
  if (!a.IsObject() || !b.IsObject()) return a == b;
  for (std::string_view key : {"key", "operator", "value", "effect"}) {
    if (MemberOr(a, key) != MemberOr(b, key)) return false;
  }
  return true;
}

bool HasGate(const Value& gates, const Value& name) {
  if (!gates.IsArray()) return false;
  for (const auto& g : gates.GetArray()) {
    if (MemberOr(g, "name") == name) return true;
  }
  return false;
}

// validateOnlyDeletedSchedulingGates: scheduling gates may be removed, never added.
void ValidateOnlyDeletedSchedulingGates(const Value& new_spec, const Value& old_spec, std::vector<StatusCause>& causes) {
  const Value& new_gates = MemberOr(new_spec, "schedulingGates");
  if (!new_gates.IsArray()) return;
  for (rapidjson::SizeType i = 0; i < new_gates.Size(); ++i) {
    const Value& name = MemberOr(new_gates[i], "name");
    if (HasGate(MemberOr(old_spec, "schedulingGates"), name)) continue;
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: only deletion is allowed, but found new scheduling gate '" +
                          std::string(name.IsString() ? name.GetString() : "") + "'",
                      "spec.schedulingGates[" + std::to_string(i) + "].name"});
  }
}

// validateNodeSelectorMutation, for a pod that is still gated: keys may be added to
// spec.nodeSelector, none changed or removed.
bool NodeSelectorOnlyExtended(const Value& new_selector, const Value& old_selector) {
  if (!old_selector.IsObject()) return true;
  for (const auto& m : old_selector.GetObject()) {
    const Value* now = new_selector.IsObject() ? json::Member(new_selector, m.name.GetString()) : nullptr;
    if (!now || *now != m.value) return false;
  }
  return true;
}

void ValidatePodUpdate(const Value& new_obj, const Value& old_obj, std::vector<StatusCause>& causes) {
  const Value& new_spec = MemberOr(new_obj, "spec");
  const Value& old_spec = MemberOr(old_obj, "spec");
  ValidateOnlyDeletedSchedulingGates(new_spec, old_spec, causes);
  if (!causes.empty()) return;
  for (std::string_view list : {"containers", "initContainers"}) {
    if (ListSize(new_spec, list) != ListSize(old_spec, list)) {
      causes.push_back({"FieldValueForbidden", "Forbidden: pod updates may not add or remove containers",
                        "spec." + std::string(list)});
      return;
    }
  }
  // Only additions to existing tolerations (ValidateOnlyAddedTolerations).
  const Value& new_tols = MemberOr(new_spec, "tolerations");
  const Value& old_tols = MemberOr(old_spec, "tolerations");
  if (old_tols.IsArray()) {
    for (const auto& old_tol : old_tols.GetArray()) {
      bool found = false;
      if (new_tols.IsArray()) {
        for (const auto& t : new_tols.GetArray()) found = found || SameToleration(old_tol, t);
      }
      if (!found) {
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: existing toleration can not be modified except its tolerationSeconds",
                          "spec.tolerations"});
        return;
      }
    }
  }
  Document munged;
  munged.CopyFrom(new_spec.IsObject() ? new_spec : Value(rapidjson::kObjectType).Move(), munged.GetAllocator());
  if (!munged.IsObject()) munged.SetObject();
  auto& a = munged.GetAllocator();
  CopyImages(munged, old_spec, "containers", a);
  CopyImages(munged, old_spec, "initContainers", a);
  CopyOrRemove(munged, old_spec, "activeDeadlineSeconds", a);
  CopyOrRemove(munged, old_spec, "schedulingGates", a);
  CopyOrRemove(munged, old_spec, "tolerations", a);
  // A pod that is still gated may have its nodeSelector extended (mutable scheduling directives,
  // GA in 1.30). Narrowing its required node affinity is allowed upstream too; kubesim refuses it.
  if (const Value& gates = MemberOr(old_spec, "schedulingGates"); gates.IsArray() && !gates.Empty()) {
    const Value& new_selector = MemberOr(new_spec, "nodeSelector");
    if (!NodeSelectorOnlyExtended(new_selector, MemberOr(old_spec, "nodeSelector"))) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: " + (new_selector.IsNull() ? std::string("null") : json::Serialize(new_selector)) +
                            ": only additions to spec.nodeSelector are allowed (no mutations or deletions)",
                        "spec.nodeSelector"});
      return;
    }
    CopyOrRemove(munged, old_spec, "nodeSelector", a);
  }
  const Value& old_grace = MemberOr(old_spec, "terminationGracePeriodSeconds");
  const Value& new_grace = MemberOr(munged, "terminationGracePeriodSeconds");
  if (old_grace.IsInt64() && old_grace.GetInt64() < 0 && new_grace.IsInt64() && new_grace.GetInt64() == 1) {
    CopyOrRemove(munged, old_spec, "terminationGracePeriodSeconds", a);
  }
  if (munged != old_spec) {
    causes.push_back({"FieldValueForbidden", "Forbidden: " + std::string(kPodUpdatable) + "\n" + SpecDiff(old_spec, munged),
                      "spec"});
  }
}

// GoLabelSelector renders a selector the way the apiserver's %#v does for the common
// matchLabels-only case.
std::string GoLabelSelector(const Value& selector) {
  std::string out = "v1.LabelSelector{MatchLabels:";
  const Value& labels = MemberOr(selector, "matchLabels");
  if (labels.IsObject() && labels.MemberCount() > 0) {
    out += "map[string]string{";
    bool first = true;
    for (const auto& m : labels.GetObject()) {
      if (!first) out += ", ";
      first = false;
      out += json::Serialize(m.name) + ":" + (m.value.IsString() ? json::Serialize(m.value) : "\"\"");
    }
    out += "}";
  } else {
    out += "map[string]string(nil)";
  }
  const Value& exprs = MemberOr(selector, "matchExpressions");
  out += ", MatchExpressions:";
  out += exprs.IsArray() && !exprs.Empty() ? json::Serialize(exprs) : "[]v1.LabelSelectorRequirement(nil)";
  return out + "}";
}

}  // namespace

std::vector<StatusCause> ValidateBuiltinUpdate(const ResourceType& type, const Value& new_object,
                                               const Value& old_object) {
  std::vector<StatusCause> causes;
  if (type.is_crd) return causes;
  if (type.group.empty() && type.plural == "pods") {
    ValidatePodUpdate(new_object, old_object, causes);
  } else if (type.group == "apps" &&
             (type.plural == "deployments" || type.plural == "replicasets" || type.plural == "statefulsets")) {
    const Value& new_sel = MemberOr(MemberOr(new_object, "spec"), "selector");
    const Value& old_sel = MemberOr(MemberOr(old_object, "spec"), "selector");
    if (new_sel != old_sel) {
      causes.push_back({"FieldValueInvalid", "Invalid value: " + GoLabelSelector(new_sel) + ": field is immutable",
                        "spec.selector"});
    }
  } else if (type.group.empty() && type.plural == "nodes") {
    const Value& old_cidr = MemberOr(MemberOr(old_object, "spec"), "podCIDR");
    const Value& new_cidr = MemberOr(MemberOr(new_object, "spec"), "podCIDR");
    if (old_cidr.IsString() && old_cidr.GetStringLength() > 0 && new_cidr != old_cidr) {
      causes.push_back({"FieldValueForbidden", "Forbidden: node updates may not change podCIDR except from \"\" to valid",
                        "spec.podCIDRs"});
    }
  }
  return causes;
}

}  // namespace berth::kubesim
