// reconcile/placement/reservation_affinity.cc
#include "reconcile/placement/reservation_affinity.h"

#include <algorithm>
#include <charconv>

#include "clientgo-shim/base/go_format.h"
#include "clientgo-shim/base/json.h"
#include "reconcile/common/annotation_json.h"
#include "reconcile/placement/filters.h"

namespace berth::reconcile::placement {
namespace {

using rapidjson::Value;

// GoJsonKind: how encoding/json names a JSON value in an UnmarshalTypeError.
std::string GoJsonKind(const Value& v) {
  if (v.IsString()) return "string";
  if (v.IsBool()) return "bool";
  if (v.IsArray()) return "array";
  if (v.IsObject()) return "object";
  if (v.IsNumber()) return "number";
  return "null";
}

// Decoder walks the document like json.Unmarshal into the Go types, keeping the first type
// error (Go keeps decoding and reports the earliest one).
class Decoder {
 public:
  std::optional<std::string> error;

  // TypeError records Go's UnmarshalTypeError; `literal` adds a number's text ("number 1.5", as
  // Go reports a number that does not fit an integer field).
  void TypeError(const Value& v, const std::string& field, std::string_view go_type, bool literal = false) {
    if (error) return;
    std::string kind = GoJsonKind(v);
    if (literal && v.IsNumber()) kind += " " + json::Serialize(v);
    error = "json: cannot unmarshal " + kind + " into Go struct field ReservationAffinity." + field +
            " of type " + std::string(go_type);
  }

  // Members calls fn(name, value) for every non-null member, matching names like Go (ASCII
  // case-insensitive); `fields` lists the known JSON names.
  template <class Fn>
  void Members(const Value& obj, std::initializer_list<std::string_view> fields, Fn fn) {
    for (const auto& m : obj.GetObject()) {
      if (m.value.IsNull()) continue;
      std::string_view name(m.name.GetString(), m.name.GetStringLength());
      for (std::string_view f : fields) {
        if (EqualFold(name, f)) {
          fn(f, m.value);
          break;
        }
      }
    }
  }

  std::string String(const Value& v, const std::string& field, std::string_view go_type = "string") {
    if (v.IsNull()) return {};
    if (!v.IsString()) {
      TypeError(v, field, go_type);
      return {};
    }
    return std::string(v.GetString(), v.GetStringLength());
  }

  // Strings: a []string; `present` tells absent/null apart from [] (Go's nil vs empty slice).
  std::vector<std::string> Strings(const Value& v, const std::string& field, bool* present) {
    std::vector<std::string> out;
    if (!v.IsArray()) {
      TypeError(v, field, "[]string");
      return out;
    }
    *present = true;
    for (const auto& e : v.GetArray()) {
      if (e.IsNull()) {
        out.emplace_back();
        continue;
      }
      out.push_back(String(e, field, "string"));
    }
    return out;
  }

 private:
  static bool EqualFold(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
      char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
      if (x != y) return false;
    }
    return true;
  }
};

// RawRequirement keeps what validation needs beyond NodeSelectorRequirement.
struct RawRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool values_present = false;
};

struct RawTerm {
  std::vector<RawRequirement> expressions;
  std::vector<RawRequirement> fields;
};

std::vector<RawRequirement> DecodeRequirements(Decoder& d, const Value& v, const std::string& field) {
  std::vector<RawRequirement> out;
  if (!v.IsArray()) {
    d.TypeError(v, field, "[]v1.NodeSelectorRequirement");
    return out;
  }
  for (const auto& e : v.GetArray()) {
    RawRequirement r;
    if (!e.IsNull() && !e.IsObject()) {
      d.TypeError(e, field, "v1.NodeSelectorRequirement");
    } else if (e.IsObject()) {
      d.Members(e, {"key", "operator", "values"}, [&](std::string_view name, const Value& m) {
        std::string path = field + "." + std::string(name);
        if (name == "key") r.key = d.String(m, path);
        if (name == "operator") r.op = d.String(m, path, "v1.NodeSelectorOperator");
        if (name == "values") r.values = d.Strings(m, path, &r.values_present);
      });
    }
    out.push_back(std::move(r));
  }
  return out;
}

// GoSliceLiteral is fmt's %#v of a []string: []string(nil), []string{}, []string{"a", "b"}.
std::string GoSliceLiteral(const std::vector<std::string>& values, bool present) {
  if (!present) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  return out + "}";
}

bool IsInt64(std::string_view s) {
  int64_t v = 0;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

// ValidateExpression is nodeaffinity's nodeSelectorRequirementsAsSelector + labels.NewRequirement
// (without the label key/value syntax checks).
void ValidateExpression(const RawRequirement& r, const std::string& path, std::vector<std::string>& errs) {
  NodeSelectorOperator op = ParseNodeSelectorOperator(r.op);
  if (op == NodeSelectorOperator::kUnknown) {
    errs.push_back(path + ".operator: Unsupported value: " + GoQuote(r.op));
    return;
  }
  const std::string values_path = path + ".values";
  const std::string literal = GoSliceLiteral(r.values, r.values_present);
  switch (op) {
    case NodeSelectorOperator::kIn:
    case NodeSelectorOperator::kNotIn:
      if (r.values.empty()) {
        errs.push_back(values_path + ": Invalid value: " + literal +
                       ": for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case NodeSelectorOperator::kExists:
    case NodeSelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errs.push_back(values_path + ": Invalid value: " + literal +
                       ": values set must be empty for exists and does not exist");
      }
      break;
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt:
      if (r.values.size() != 1) {
        errs.push_back(values_path + ": Invalid value: " + literal +
                       ": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (!IsInt64(r.values[i])) {
          errs.push_back(values_path + "[" + std::to_string(i) + "]: Invalid value: " + GoQuote(r.values[i]) +
                         ": for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
      break;
    case NodeSelectorOperator::kUnknown:
      break;
  }
}

// ValidateField is nodeaffinity's nodeSelectorRequirementsAsFieldSelector.
void ValidateField(const RawRequirement& r, const std::string& path, std::vector<std::string>& errs) {
  if (r.values.size() != 1) {
    errs.push_back(path + ".values: Invalid value: " + GoSliceLiteral(r.values, r.values_present) +
                   ": must have one element");
    return;
  }
  if (r.op != "In" && r.op != "NotIn") {
    errs.push_back(path + ".operator: Unsupported value: " + GoQuote(r.op) +
                   ": supported values: \"In\", \"NotIn\"");
  }
}

NodeSelectorRequirement ToRequirement(const RawRequirement& r) {
  return {r.key, ParseNodeSelectorOperator(r.op), r.values};
}

}  // namespace

Result<ReservationAffinity> ParseReservationAffinity(std::string_view text) {
  ReservationAffinity out;
  if (text.empty()) return out;  // koordinator: an empty value is an empty (but present) affinity
  auto doc = ParseAnnotationJson(text);  // an annotation: nesting is unbounded
  if (!doc) return MakeError(ErrorCode::kInvalidArgument, doc.error().message);
  if (doc->IsNull()) return out;
  if (!doc->IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "json: cannot unmarshal " + GoJsonKind(*doc) +
                                                      " into Go value of type extension.ReservationAffinity");
  }
  Decoder d;
  std::optional<std::vector<RawTerm>> raw_terms;
  d.Members(*doc, {"name", "requiredDuringSchedulingIgnoredDuringExecution", "reservationSelector", "tolerations"},
            [&](std::string_view name, const Value& v) {
              if (name == "name") out.name = d.String(v, "name");
              if (name == "reservationSelector") {
                if (!v.IsObject()) return d.TypeError(v, "reservationSelector", "map[string]string");
                for (const auto& m : v.GetObject()) {
                  out.reservation_selector[m.name.GetString()] = d.String(m.value, "reservationSelector");
                }
              }
              if (name == "requiredDuringSchedulingIgnoredDuringExecution") {
                const std::string base = "requiredDuringSchedulingIgnoredDuringExecution";
                if (!v.IsObject()) return d.TypeError(v, base, "extension.ReservationAffinitySelector");
                raw_terms.emplace();
                d.Members(v, {"reservationSelectorTerms"}, [&](std::string_view, const Value& terms) {
                  const std::string path = base + ".reservationSelectorTerms";
                  if (!terms.IsArray()) return d.TypeError(terms, path, "[]v1.NodeSelectorTerm");
                  for (const auto& t : terms.GetArray()) {
                    RawTerm term;
                    if (!t.IsNull() && !t.IsObject()) {
                      d.TypeError(t, path, "v1.NodeSelectorTerm");
                    } else if (t.IsObject()) {
                      d.Members(t, {"matchExpressions", "matchFields"}, [&](std::string_view n, const Value& list) {
                        auto reqs = DecodeRequirements(d, list, path + "." + std::string(n));
                        (n == "matchExpressions" ? term.expressions : term.fields) = std::move(reqs);
                      });
                    }
                    raw_terms->push_back(std::move(term));
                  }
                });
              }
              if (name == "tolerations") {
                if (!v.IsArray()) return d.TypeError(v, "tolerations", "[]v1.Toleration");
                for (const auto& t : v.GetArray()) {
                  Toleration tol;
                  if (!t.IsNull() && !t.IsObject()) {
                    d.TypeError(t, "tolerations", "v1.Toleration");
                  } else if (t.IsObject()) {
                    d.Members(t, {"key", "operator", "value", "effect", "tolerationSeconds"},
                              [&](std::string_view n, const Value& f) {
                                std::string path = "tolerations." + std::string(n);
                                if (n == "key") tol.key = d.String(f, path);
                                if (n == "operator") tol.op = d.String(f, path, "v1.TolerationOperator");
                                if (n == "value") tol.value = d.String(f, path);
                                if (n == "effect") tol.effect = d.String(f, path, "v1.TaintEffect");
                                if (n == "tolerationSeconds" && !f.IsInt64()) d.TypeError(f, path, "int64", true);
                              });
                  }
                  out.tolerations.push_back(std::move(tol));
                }
              }
            });
  if (d.error) return MakeError(ErrorCode::kInvalidArgument, *d.error);
  if (raw_terms) {
    // nodeaffinity.NewNodeSelector: parse errors of every non-empty term, aggregated.
    std::vector<std::string> errs;
    out.required_terms.emplace();
    for (size_t i = 0; i < raw_terms->size(); ++i) {
      const RawTerm& t = (*raw_terms)[i];
      NodeSelectorTerm term;
      const std::string path = "nodeSelectorTerms[" + std::to_string(i) + "]";
      for (size_t j = 0; j < t.expressions.size(); ++j) {
        ValidateExpression(t.expressions[j], path + ".matchExpressions[" + std::to_string(j) + "]", errs);
        term.match_expressions.push_back(ToRequirement(t.expressions[j]));
      }
      for (size_t j = 0; j < t.fields.size(); ++j) {
        ValidateField(t.fields[j], path + ".matchFields[" + std::to_string(j) + "]", errs);
        term.match_fields.push_back(ToRequirement(t.fields[j]));
      }
      out.required_terms->push_back(std::move(term));
    }
    if (errs.size() == 1) return MakeError(ErrorCode::kInvalidArgument, errs[0]);
    if (!errs.empty()) {
      std::string joined = "[";
      for (size_t i = 0; i < errs.size(); ++i) joined += (i > 0 ? ", " : "") + errs[i];
      return MakeError(ErrorCode::kInvalidArgument, joined + "]");
    }
  }
  return out;
}

bool MatchesReservationAffinity(const ReservationAffinity& affinity, const ReservationView& reservation,
                                const LabelMap& node_labels) {
  if (!affinity.name.empty()) return affinity.name == reservation.name;
  // The Reservation's labels over its node's (koordinator's fake node for matching).
  LabelMap labels = node_labels;
  for (const auto& [k, v] : reservation.labels) labels.insert_or_assign(k, v);
  for (const auto& [k, v] : affinity.reservation_selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  if (affinity.required_terms &&
      !MatchesNodeSelectorTerms(*affinity.required_terms, reservation.name, labels)) {
    return false;
  }
  return true;
}

int64_t ReservationOrder(const LabelMap& labels) {
  auto it = labels.find(kLabelReservationOrder);
  if (it == labels.end() || !IsInt64(it->second)) return 0;
  std::string_view s = it->second;
  if (s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool ToleratesPausedReservation(const ReservationAffinity* affinity) {
  if (!affinity) return false;
  static const Taint kPaused{std::string(kTaintUnschedulable), "", std::string(kEffectNoSchedule)};
  return std::any_of(affinity->tolerations.begin(), affinity->tolerations.end(),
                     [](const Toleration& t) { return ToleratesTaint(t, kPaused); });
}

AffinityOutcome ClassifyForAffinity(const ReservationAffinity* affinity,
                                    const std::vector<Toleration>& fallback_tolerations,
                                    const ReservationView& reservation, const LabelMap& node_labels,
                                    std::string* taint_key) {
  if (affinity && !affinity->name.empty()) {
    return affinity->name == reservation.name ? AffinityOutcome::kNameMatched : AffinityOutcome::kNameUnmatched;
  }
  // koordinator (PR #2796): a paused reservation (spec.unschedulable) is treated as carrying the
  // taint node.kubernetes.io/unschedulable:NoSchedule, which only the reservation-affinity
  // tolerations may tolerate (never the pod's own: a DaemonSet-style toleration of cordoned
  // nodes must not open paused reservations).
  if (reservation.unschedulable && !ToleratesPausedReservation(affinity)) return AffinityOutcome::kUnschedulable;
  const auto& tolerations = affinity ? affinity->tolerations : fallback_tolerations;
  if (const Taint* taint = FirstUntoleratedTaint(tolerations, reservation.taints)) {
    if (taint_key) *taint_key = "{" + taint->key + ": " + taint->value + "}";
    return AffinityOutcome::kTaint;
  }
  if (affinity && !MatchesReservationAffinity(*affinity, reservation, node_labels)) {
    return AffinityOutcome::kAffinityUnmatched;
  }
  return AffinityOutcome::kMatched;
}

void AffinityDiagnosis::Add(AffinityOutcome outcome, const std::string& taint_key) {
  ++owner_matched;
  switch (outcome) {
    case AffinityOutcome::kNameMatched: ++name_matched; break;
    case AffinityOutcome::kNameUnmatched: ++name_unmatched; break;
    case AffinityOutcome::kUnschedulable: ++unschedulable; break;
    case AffinityOutcome::kTaint: ++taints[taint_key]; break;
    case AffinityOutcome::kAffinityUnmatched: ++affinity_unmatched; break;
    case AffinityOutcome::kMatched: break;
  }
}

std::vector<std::string> PostFilterReasons(const AffinityDiagnosis& d) {
  std::vector<std::string> out;
  auto add = [&](int count, std::string_view text) {
    if (count > 0) out.push_back(std::to_string(count) + " Reservation(s) " + std::string(text));
  };
  add(d.name_matched, "exactly matches the requested reservation name");
  add(d.name_unmatched, "didn't match the requested reservation name");
  add(d.affinity_unmatched, "didn't match affinity rules");
  add(d.unschedulable, "is unschedulable");
  for (const auto& [key, count] : d.taints) add(count, "had untolerated taint " + key);
  out.push_back(std::to_string(d.owner_matched) + " Reservation(s) matched owner total");
  return out;
}

}  // namespace berth::reconcile::placement
