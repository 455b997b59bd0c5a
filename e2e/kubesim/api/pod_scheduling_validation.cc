// e2e/kubesim/api/pod_scheduling_validation.cc — see pod_scheduling_validation.h.
#include "e2e/kubesim/api/pod_scheduling_validation.h"

#include <string_view>

#include "clientgo-shim/base/go_format.h"
#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;

// BadValue: the value as field.Invalid prints it (%#v: strings quoted, numbers bare).
std::string BadValue(const Value* v) {
  if (v == nullptr || v->IsNull()) return "0";
  return v->IsString() ? GoQuote(std::string_view(v->GetString(), v->GetStringLength())) : json::Serialize(*v);
}

std::string Index(const std::string& path, rapidjson::SizeType i) { return path + "[" + std::to_string(i) + "]"; }

void Invalid(std::vector<StatusCause>& causes, const std::string& field, const std::string& bad,
             std::string_view detail) {
  causes.push_back({"FieldValueInvalid", "Invalid value: " + bad + ": " + std::string(detail), field});
}

// Items: the array at `name`, or nullptr (absent, null, or not an array: the decoder's business).
const Value* Items(const Value& object, std::string_view name) {
  const Value* v = json::Member(object, name);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

size_t CountValues(const Value& req) {
  const Value* values = Items(req, "values");
  return values == nullptr ? 0 : values->Size();
}

// ValidateNodeSelectorRequirement / ValidateNodeFieldSelectorRequirement.
void ValidateRequirement(const Value& req, const std::string& path, bool field, std::vector<StatusCause>& causes) {
  if (!req.IsObject()) return;
  const std::string_view op = json::GetString(req, {"operator"});
  const size_t values = CountValues(req);
  if (field) {
    if (op == "In" || op == "NotIn") {
      if (values != 1) {
        causes.push_back({"FieldValueRequired",
                          "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field "
                          "selector",
                          path + ".values"});
      }
    } else {
      Invalid(causes, path + ".operator", GoQuote(op), "not a valid selector operator");
    }
    if (std::string_view key = json::GetString(req, {"key"}); key != "metadata.name") {
      Invalid(causes, path + ".key", GoQuote(key), "not a valid field selector key");
    }
    return;
  }
  if (op == "In" || op == "NotIn") {
    if (values == 0) {
      causes.push_back({"FieldValueRequired", "Required value: must be specified when `operator` is 'In' or 'NotIn'",
                        path + ".values"});
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (values > 0) {
      causes.push_back({"FieldValueForbidden",
                        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                        path + ".values"});
    }
  } else if (op == "Gt" || op == "Lt") {
    if (values != 1) {
      causes.push_back({"FieldValueRequired",
                        "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
                        path + ".values"});
    }
  } else {
    Invalid(causes, path + ".operator", GoQuote(op), "not a valid selector operator");
  }
  if (json::GetString(req, {"key"}).empty()) Invalid(causes, path + ".key", "\"\"", "name part must be non-empty");
}

void ValidateNodeSelectorTerm(const Value& term, const std::string& path, std::vector<StatusCause>& causes) {
  if (!term.IsObject()) return;
  for (auto [name, field] : {std::pair{"matchExpressions", false}, std::pair{"matchFields", true}}) {
    if (const Value* list = Items(term, name)) {
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        ValidateRequirement((*list)[i], Index(path + "." + name, i), field, causes);
      }
    }
  }
}

void ValidateWeight(const Value& item, const std::string& path, std::vector<StatusCause>& causes) {
  const Value* w = json::Member(item, "weight");
  if (w == nullptr || !w->IsInt() || w->GetInt() < 1 || w->GetInt() > 100) {
    Invalid(causes, path + ".weight", BadValue(w), "must be in the range 1-100");
  }
}

void ValidatePodAffinityTerm(const Value& term, const std::string& path, std::vector<StatusCause>& causes) {
  if (!term.IsObject()) return;
  if (json::GetString(term, {"topologyKey"}).empty()) {
    causes.push_back({"FieldValueRequired", "Required value: can not be empty", path + ".topologyKey"});
  }
}

void ValidateAffinity(const Value& affinity, const std::string& path, std::vector<StatusCause>& causes) {
  if (const Value* node = json::Member(affinity, "nodeAffinity"); node && node->IsObject()) {
    const std::string n = path + ".nodeAffinity";
    if (const Value* required = json::Member(*node, "requiredDuringSchedulingIgnoredDuringExecution");
        required && required->IsObject()) {
      const std::string r = n + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
      const Value* terms = Items(*required, "nodeSelectorTerms");
      if (terms == nullptr || terms->Empty()) {
        causes.push_back({"FieldValueRequired", "Required value: must have at least one node selector term", r});
      } else {
        for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) ValidateNodeSelectorTerm((*terms)[i], Index(r, i), causes);
      }
    }
    if (const Value* preferred = Items(*node, "preferredDuringSchedulingIgnoredDuringExecution")) {
      const std::string p = n + ".preferredDuringSchedulingIgnoredDuringExecution";
      for (rapidjson::SizeType i = 0; i < preferred->Size(); ++i) {
        const Value& item = (*preferred)[i];
        if (!item.IsObject()) continue;
        ValidateWeight(item, Index(p, i), causes);
        if (const Value* pref = json::Member(item, "preference")) {
          ValidateNodeSelectorTerm(*pref, Index(p, i) + ".preference", causes);
        }
      }
    }
  }
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const Value* group = json::Member(affinity, kind);
    if (group == nullptr || !group->IsObject()) continue;
    const std::string g = path + "." + kind;
    if (const Value* required = Items(*group, "requiredDuringSchedulingIgnoredDuringExecution")) {
      for (rapidjson::SizeType i = 0; i < required->Size(); ++i) {
        ValidatePodAffinityTerm((*required)[i], Index(g + ".requiredDuringSchedulingIgnoredDuringExecution", i),
                                causes);
      }
    }
    if (const Value* preferred = Items(*group, "preferredDuringSchedulingIgnoredDuringExecution")) {
      const std::string p = g + ".preferredDuringSchedulingIgnoredDuringExecution";
      for (rapidjson::SizeType i = 0; i < preferred->Size(); ++i) {
        const Value& item = (*preferred)[i];
        if (!item.IsObject()) continue;
        ValidateWeight(item, Index(p, i), causes);
        if (const Value* term = json::Member(item, "podAffinityTerm")) {
          ValidatePodAffinityTerm(*term, Index(p, i) + ".podAffinityTerm", causes);
        }
      }
    }
  }
}

void ValidateSpread(const Value& list, const std::string& path, std::vector<StatusCause>& causes) {
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const Value& c = list[i];
    if (!c.IsObject()) continue;
    const std::string at = Index(path, i);
    const Value* skew = json::Member(c, "maxSkew");
    if (skew == nullptr || !skew->IsInt() || skew->GetInt() < 1) {
      Invalid(causes, at + ".maxSkew", BadValue(skew), "must be greater than zero");
    }
    if (json::GetString(c, {"topologyKey"}).empty()) {
      causes.push_back({"FieldValueRequired", "Required value: can not be empty", at + ".topologyKey"});
    }
    const std::string_view when = json::GetString(c, {"whenUnsatisfiable"});
    if (when != "DoNotSchedule" && when != "ScheduleAnyway") {
      causes.push_back({"FieldValueNotSupported",
                        "Unsupported value: " + GoQuote(when) + ": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
                        at + ".whenUnsatisfiable"});
    }
    if (const Value* min = json::Member(c, "minDomains"); min && !min->IsNull() && (!min->IsInt() || min->GetInt() < 1)) {
      Invalid(causes, at + ".minDomains", BadValue(min), "must be greater than zero");
    }
    for (const char* policy : {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      const Value* v = json::Member(c, policy);
      if (v == nullptr || v->IsNull()) continue;
      const std::string_view text = v->IsString() ? std::string_view(v->GetString(), v->GetStringLength()) : "";
      if (text != "Honor" && text != "Ignore") {
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: " + BadValue(v) + ": supported values: \"Honor\", \"Ignore\"",
                          at + "." + policy});
      }
    }
  }
}

}  // namespace

void ValidatePodScheduling(const Value& spec, const std::string& path, std::vector<StatusCause>& causes) {
  if (!spec.IsObject()) return;
  if (const Value* affinity = json::Member(spec, "affinity"); affinity && affinity->IsObject()) {
    ValidateAffinity(*affinity, path + ".affinity", causes);
  }
  if (const Value* spread = Items(spec, "topologySpreadConstraints")) {
    ValidateSpread(*spread, path + ".topologySpreadConstraints", causes);
  }
}

}  // namespace berth::kubesim
