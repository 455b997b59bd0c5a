#include "e2e/kubesim/schema/crd_validation.h"

#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/go_format.h"
#include "e2e/kubesim/schema/pattern_cache.h"
#include "e2e/kubesim/schema/schema_node.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;

std::string_view Str(const Value& root, std::initializer_list<std::string_view> path) {
  return json::GetString(root, path);
}

bool Flag(const Value* v, std::string_view key) {
  const Value* f = v == nullptr ? nullptr : json::Member(*v, key);
  return f != nullptr && f->IsBool() && f->GetBool();
}

// VersionsDump renders spec.versions like Go's %#v of the internal version slice, which the
// apiserver prints in the storage-version error. Pointer fields print as nil or a placeholder
// address (Go prints a real heap address there).
std::string VersionsDump(const Value* versions) {
  const std::string type = "[]apiextensions.CustomResourceDefinitionVersion";
  if (versions == nullptr || !versions->IsArray() || versions->Empty()) return type + "(nil)";
  std::string out = type + "{";
  bool first = true;
  for (const auto& v : versions->GetArray()) {
    if (!first) out += ", ";
    first = false;
    const Value* schema = json::Member(v, "schema");
    const bool has_schema = schema != nullptr && schema->IsObject();
    const Value* subresources = json::Member(v, "subresources");
    const bool has_sub = subresources != nullptr && subresources->IsObject();
    out += "apiextensions.CustomResourceDefinitionVersion{Name:" + GoQuote(Str(v, {"name"})) +
           ", Served:" + (Flag(&v, "served") ? "true" : "false") +
           ", Storage:" + (Flag(&v, "storage") ? "true" : "false") +
           ", Deprecated:" + (Flag(&v, "deprecated") ? "true" : "false") +
           ", DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(" +
           (has_schema ? "0xc000000000" : "nil") +
           "), Subresources:(*apiextensions.CustomResourceSubresources)(" +
           (has_sub ? "0xc000000000" : "nil") +
           "), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
           "SelectableFields:[]apiextensions.SelectableField(nil)}";
  }
  return out + "}";
}

bool SameJson(const Value* a, const Value* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// CheckPatterns refuses every `pattern` that is not a Go regexp, as the apiserver does when the CRD
// is written (an object could never match it), walking the schema's sub-schemas by their field paths.
void CheckPatterns(const Value& schema, const std::string& path, std::vector<Cause>& causes, int depth) {
  if (!schema.IsObject() || depth > kMaxSchemaDepth) return;
  if (const Value* p = json::Member(schema, "pattern"); p != nullptr && p->IsString() && p->GetStringLength() > 0) {
    const std::string_view pattern(p->GetString(), p->GetStringLength());
    if (auto re = CompiledPattern(pattern); !re) {
      causes.push_back(MakeCause(kCauseInvalid, path + ".pattern", GoQuote(pattern),
                                 "must be a valid regular expression, but isn't: " + re.error()));
    }
  }
  for (const char* map_key : {"properties", "patternProperties", "definitions"}) {
    const Value* m = json::Member(schema, map_key);
    if (m == nullptr || !m->IsObject()) continue;
    for (const auto& member : m->GetObject()) {
      CheckPatterns(member.value, path + "." + map_key + "[" + member.name.GetString() + "]", causes, depth + 1);
    }
  }
  for (const char* list_key : {"allOf", "anyOf", "oneOf"}) {
    const Value* l = json::Member(schema, list_key);
    if (l == nullptr || !l->IsArray()) continue;
    for (rapidjson::SizeType i = 0; i < l->Size(); ++i) {
      CheckPatterns((*l)[i], path + "." + list_key + "[" + std::to_string(i) + "]", causes, depth + 1);
    }
  }
  for (const char* one_key : {"items", "additionalProperties", "not"}) {
    if (const Value* sub = json::Member(schema, one_key); sub != nullptr) {
      CheckPatterns(*sub, path + "." + one_key, causes, depth + 1);
    }
  }
}

void CheckRootSchema(const Value* schema, const std::string& path, std::vector<Cause>& causes) {
  if (schema == nullptr || !schema->IsObject()) {
    causes.push_back(MakeCause(kCauseRequired, path, "", "schemas are required"));
    return;
  }
  const Value* type = json::Member(*schema, "type");
  const std::string_view t =
      type != nullptr && type->IsString() ? std::string_view(type->GetString(), type->GetStringLength())
                                          : std::string_view();
  if (t.empty()) {
    causes.push_back(MakeCause(kCauseRequired, path + ".type", "", "must not be empty at the root"));
  } else if (t != "object") {
    causes.push_back(MakeCause(kCauseInvalid, path + ".type", GoQuote(t), "must be object at the root"));
  }
  CheckPatterns(*schema, path, causes, 0);
}

}  // namespace

std::vector<Cause> ValidateCrdSchema(const rapidjson::Value& crd) {
  std::vector<Cause> causes;
  if (!crd.IsObject()) {
    causes.push_back(MakeCause(kCauseRequired, "spec", "", ""));
    return causes;
  }
  const std::string_view group = Str(crd, {"spec", "group"});
  const std::string_view plural = Str(crd, {"spec", "names", "plural"});
  const std::string_view name = Str(crd, {"metadata", "name"});
  if (!plural.empty() && !group.empty() &&
      name != std::string(plural) + "." + std::string(group)) {
    causes.push_back(MakeCause(kCauseInvalid, "metadata.name", GoQuote(name),
                               "must be spec.names.plural+\".\"+spec.group"));
  }
  if (group.empty()) {
    causes.push_back(MakeCause(kCauseRequired, "spec.group", "", ""));
  } else if (group.find('.') == std::string_view::npos) {
    causes.push_back(MakeCause(kCauseInvalid, "spec.group", GoQuote(group),
                               "should be a domain with at least one dot"));
  }
  if (plural.empty()) causes.push_back(MakeCause(kCauseRequired, "spec.names.plural", "", ""));
  if (Str(crd, {"spec", "names", "kind"}).empty()) {
    causes.push_back(MakeCause(kCauseRequired, "spec.names.kind", "", ""));
  }
  const std::string_view scope = Str(crd, {"spec", "scope"});
  if (scope.empty()) {
    causes.push_back(MakeCause(kCauseRequired, "spec.scope", "", ""));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    causes.push_back(MakeCause(kCauseNotSupported, "spec.scope", GoQuote(scope),
                               "supported values: \"Cluster\", \"Namespaced\""));
  }

  const Value* versions = json::Find(crd, {"spec", "versions"});
  int storage = 0;
  if (versions != nullptr && versions->IsArray()) {
    for (const auto& v : versions->GetArray()) storage += Flag(&v, "storage") ? 1 : 0;
  }
  if (storage != 1) {
    causes.push_back(MakeCause(kCauseInvalid, "spec.versions", VersionsDump(versions),
                               "must have exactly one version marked as storage version"));
  }
  if (versions == nullptr || !versions->IsArray() || versions->Empty()) return causes;

  // Identical schemas are validated once, under spec.validation, as the apiserver does.
  const Value* first_schema = nullptr;
  bool identical = true;
  for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
    const Value* s = json::Find((*versions)[i], {"schema", "openAPIV3Schema"});
    if (i == 0) first_schema = s;
    else if (!SameJson(first_schema, s)) identical = false;
  }
  for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
    const Value& v = (*versions)[i];
    const std::string prefix = "spec.versions[" + std::to_string(i) + "]";
    if (Str(v, {"name"}).empty()) causes.push_back(MakeCause(kCauseRequired, prefix + ".name", "", ""));
  }
  if (identical) {
    CheckRootSchema(first_schema, "spec.validation.openAPIV3Schema", causes);
  } else {
    for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
      CheckRootSchema(json::Find((*versions)[i], {"schema", "openAPIV3Schema"}),
                      "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema", causes);
    }
  }
  return causes;
}

}  // namespace berth::kubesim::schema
