#include "e2e/kubesim/schema/transition_rules.h"

#include <string>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/go_format.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;

const Value* Member(const Value* v, std::string_view key) {
  return v != nullptr && v->IsObject() ? json::Member(*v, key) : nullptr;
}

std::string_view StringMember(const Value* v, std::string_view key) {
  const Value* m = Member(v, key);
  return m != nullptr && m->IsString() ? std::string_view(m->GetString(), m->GetStringLength()) : std::string_view();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The schema of a child: a property, else additionalProperties when it is a schema.
const Value* ChildSchema(const Value* schema, std::string_view key) {
  if (const Value* p = Member(Member(schema, "properties"), key); p != nullptr && p->IsObject()) return p;
  if (const Value* ap = Member(schema, "additionalProperties"); ap != nullptr && ap->IsObject()) return ap;
  return nullptr;
}

std::string_view ListType(const Value* schema) { return StringMember(schema, "x-kubernetes-list-type"); }

std::vector<std::string_view> ListMapKeys(const Value* schema) {
  std::vector<std::string_view> keys;
  const Value* k = Member(schema, "x-kubernetes-list-map-keys");
  if (k == nullptr || !k->IsArray()) return keys;
  for (const auto& key : k->GetArray()) {
    if (key.IsString()) keys.emplace_back(key.GetString(), key.GetStringLength());
  }
  return keys;
}

// SameMapKeys: two list-type=map items describe the same entry (equal values of every map key).
bool SameMapKeys(const std::vector<std::string_view>& keys, const Value& a, const Value& b) {
  if (!a.IsObject() || !b.IsObject()) return false;
  for (auto key : keys) {
    const Value* x = json::Member(a, key);
    const Value* y = json::Member(b, key);
    if ((x == nullptr) != (y == nullptr)) return false;
    if (x != nullptr && !(*x == *y)) return false;
  }
  return true;
}

// Rendered as field.Path renders a map key: spec.parameters[noRetry].
std::string KeyPath(const std::string& path, std::string_view key) { return path + "[" + std::string(key) + "]"; }
std::string PropertyPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

Cause RuleFailure(const Value& schema, const Value& rule, const std::string& path) {
  std::string_view message = Trim(StringMember(&rule, "message"));
  std::string detail = message.empty() ? "failed rule: " + std::string(Trim(StringMember(&rule, "rule")))
                                       : std::string(message);
  std::string field = path;
  if (std::string_view sub = Trim(StringMember(&rule, "fieldPath")); !sub.empty()) {
    field += sub.front() == '.' && field.empty() ? sub.substr(1) : sub;
  }
  const std::string value = GoQuote(StringMember(&schema, "type"));
  std::string_view reason = StringMember(&rule, "reason");
  if (reason == kCauseForbidden || reason == kCauseRequired) return MakeCause(reason, field, "", detail);
  if (reason == "FieldValueDuplicate") return MakeCause(reason, field, value, "");
  return MakeCause(kCauseInvalid, field, value, detail);
}

void Walk(const Value& schema, const Value& now, const Value& old, const std::string& path,
          std::vector<Cause>& causes) {
  if (const Value* rules = Member(&schema, "x-kubernetes-validations"); rules != nullptr && rules->IsArray()) {
    for (const auto& rule : rules->GetArray()) {
      if (!IsImmutabilityRule(StringMember(&rule, "rule"))) continue;
      if (!CelEquals(&schema, now, old)) causes.push_back(RuleFailure(schema, rule, path));
    }
  }
  if (now.IsObject() && old.IsObject()) {
    for (const auto& m : now.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const Value* old_value = json::Member(old, key);
      if (old_value == nullptr) continue;
      if (const Value* p = Member(Member(&schema, "properties"), key); p != nullptr && p->IsObject()) {
        Walk(*p, m.value, *old_value, PropertyPath(path, key), causes);
      } else if (const Value* ap = Member(&schema, "additionalProperties"); ap != nullptr && ap->IsObject()) {
        Walk(*ap, m.value, *old_value, KeyPath(path, key), causes);
      }
    }
  } else if (now.IsArray() && old.IsArray() && ListType(&schema) == "map") {
    const Value* items = Member(&schema, "items");
    if (items == nullptr || !items->IsObject()) return;
    const auto keys = ListMapKeys(&schema);
    for (rapidjson::SizeType i = 0; i < now.Size(); ++i) {
      for (const auto& o : old.GetArray()) {
        if (SameMapKeys(keys, now[i], o)) {
          Walk(*items, now[i], o, path + "[" + std::to_string(i) + "]", causes);
          break;
        }
      }
    }
  }
}

}  // namespace

bool IsImmutabilityRule(std::string_view rule) {
  std::string compact;
  for (char c : rule) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') compact.push_back(c);
  }
  return compact == "self==oldSelf" || compact == "oldSelf==self";
}

bool CelEquals(const Value* schema, const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsDouble() || b.IsDouble()) return a.GetDouble() == b.GetDouble();
    return a == b;
  }
  if (a.IsObject() && b.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (const auto& m : a.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const Value* other = json::Member(b, key);
      if (other == nullptr || !CelEquals(ChildSchema(schema, key), m.value, *other)) return false;
    }
    return true;
  }
  if (a.IsArray() && b.IsArray()) {
    if (a.Size() != b.Size()) return false;
    const Value* items = Member(schema, "items");
    std::string_view list_type = ListType(schema);
    if (list_type != "set" && list_type != "map") {
      for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (!CelEquals(items, a[i], b[i])) return false;
      }
      return true;
    }
    // Sets and maps have unique elements (keys), so matching each element of `a` suffices.
    for (const auto& x : a.GetArray()) {
      bool found = false;
      for (const auto& y : b.GetArray()) {
        if (CelEquals(items, x, y)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }
  return a == b;
}

std::vector<Cause> ValidateTransitionRules(const Value& schema, const Value& new_object, const Value& old_object) {
  std::vector<Cause> causes;
  if (schema.IsObject()) Walk(schema, new_object, old_object, "", causes);
  return causes;
}

}  // namespace berth::kubesim::schema
