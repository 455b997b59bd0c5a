// ApiServer::ValidateAndDefault: what runs between decoding and storing an object. Custom
// resources get their CRD's structural schema (defaults, pruning, validation); built-ins get
// strict unknown-field checks against the embedded OpenAPI schemas plus the defaults and
// validation rules of their types that clients can observe.
#include <regex>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/builtin_defaults.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/openapi/unknown_fields.h"
#include "e2e/kubesim/schema/crd_validation.h"
#include "e2e/kubesim/schema/defaulting.h"
#include "e2e/kubesim/schema/pruning.h"
#include "e2e/kubesim/schema/list_type.h"
#include "e2e/kubesim/schema/validation.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

const std::regex& Rfc1123Subdomain() {
  static const std::regex re(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  return re;
}

std::vector<StatusCause> ValidateName(std::string_view name) {
  if (name.empty()) return {};
  if (name.size() > 253) {
    return {{"FieldValueInvalid", "Invalid value: \"" + std::string(name) + "\": must be no more than 253 characters",
             "metadata.name"}};
  }
  if (!std::regex_match(name.begin(), name.end(), Rfc1123Subdomain())) {
    return {{"FieldValueInvalid",
             "Invalid value: \"" + std::string(name) +
                 "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
             "metadata.name"}};
  }
  return {};
}

// RemoveFieldPath deletes the field named like the strict decoder names it
// ("spec.containers[0].imagee") from `object`; Warn and Ignore drop what Strict would reject.
void RemoveFieldPath(Value& object, std::string_view path) {
  Value* at = &object;
  while (!path.empty() && at) {
    size_t end = path.find_first_of(".[");
    std::string_view key = path.substr(0, end);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
    if (!key.empty()) {
      if (!at->IsObject()) return;
      if (path.empty()) {
        at->RemoveMember(Value(rapidjson::StringRef(key.data(), key.size())));
        return;
      }
      auto it = at->FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
      if (it == at->MemberEnd()) return;
      at = &it->value;
    }
    while (!path.empty() && path.front() == '[') {
      size_t close = path.find(']');
      if (close == std::string_view::npos || !at->IsArray()) return;
      size_t index = 0;
      for (char c : path.substr(1, close - 1)) {
        if (c < '0' || c > '9') return;
        index = index * 10 + static_cast<size_t>(c - '0');
      }
      if (index >= at->Size()) return;
      at = &(*at)[static_cast<rapidjson::SizeType>(index)];
      path.remove_prefix(close + 1);
    }
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
  }
}

// Label and annotation rules of ObjectMeta (apimachinery's ValidateLabels/ValidateAnnotations).
// Lengths are checked before any regex: libstdc++'s std::regex recurses per character.
constexpr std::string_view kQualifiedNameFmt =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// MatchesLabelChars: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] (or empty when allow_empty).
bool MatchesLabelChars(std::string_view s, bool allow_empty) {
  if (s.empty()) return allow_empty;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

void ValidateQualifiedName(std::string_view key, const std::string& field, std::vector<StatusCause>& causes) {
  std::string_view name = key, prefix;
  bool has_prefix = false;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    has_prefix = true;
  }
  auto add = [&](const std::string& detail) {
    causes.push_back({"FieldValueInvalid", "Invalid value: " + Quoted(key) + ": " + detail, field});
  };
  if (has_prefix) {
    if (prefix.empty()) {
      add("prefix part must be non-empty");
    } else if (prefix.size() > 253) {
      add("prefix part must be no more than 253 characters");
    } else if (!std::regex_match(prefix.begin(), prefix.end(), Rfc1123Subdomain())) {
      add("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
          "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
          "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
  }
  if (name.empty()) {
    add("name part must be non-empty");
  } else if (name.size() > 63) {
    add("name part must be no more than 63 characters");
  }
  if (!name.empty() && !MatchesLabelChars(name, false)) add("name part " + std::string(kQualifiedNameFmt));
}

std::vector<StatusCause> ValidateLabelsAndAnnotations(const Value& object) {
  std::vector<StatusCause> causes;
  if (const Value* labels = json::Find(object, {"metadata", "labels"}); labels && labels->IsObject()) {
    for (const auto& m : labels->GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      ValidateQualifiedName(key, "metadata.labels", causes);
      if (!m.value.IsString()) continue;
      std::string_view value(m.value.GetString(), m.value.GetStringLength());
      if (value.size() > 63) {
        causes.push_back({"FieldValueInvalid", "Invalid value: " + Quoted(value) + ": must be no more than 63 characters",
                          "metadata.labels"});
      }
      if (!MatchesLabelChars(value, true)) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + Quoted(value) +
                              ": a valid label must be an empty string or consist of alphanumeric characters, '-', "
                              "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
                              "or 'my_value',  or '12345', regex used for validation is "
                              "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                          "metadata.labels"});
      }
    }
  }
  if (const Value* ann = json::Find(object, {"metadata", "annotations"}); ann && ann->IsObject()) {
    size_t total = 0;
    for (const auto& m : ann->GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      ValidateQualifiedName(key, "metadata.annotations", causes);
      total += key.size() + (m.value.IsString() ? m.value.GetStringLength() : 0);
    }
    if (total > 256 * 1024) {
      causes.push_back({"FieldValueTooLong", "Too long: must have at most 262144 bytes", "metadata.annotations"});
    }
  }
  return causes;
}

std::vector<std::string> WithWarnings(const std::vector<std::string>& unknown) {
  std::vector<std::string> out;
  for (const auto& f : unknown) out.push_back("unknown field \"" + f + "\"");
  return out;
}

}  // namespace

std::optional<HttpResponse> ApiServer::ValidateAndDefault(const ResourceType& type, Document& object,
                                                          const WriteOptions& opts,
                                                          std::vector<std::string>& warnings) {
  auto& a = object.GetAllocator();
  std::string name(json::GetString(object, {"metadata", "name"}));
  if (!object.IsObject()) return BadRequest("the object must be a JSON object");
  const Value* meta = json::Member(object, "metadata");
  if (meta && !meta->IsObject()) {
    return BadRequest(type.kind + " in version \"" + type.version + "\" cannot be handled as a " + type.kind +
                      ": json: cannot unmarshal into Go struct field " + type.kind + ".metadata of type v1.ObjectMeta");
  }
  std::vector<StatusCause> causes = ValidateName(name);
  for (auto& c : ValidateLabelsAndAnnotations(object)) causes.push_back(std::move(c));

  std::vector<std::string> unknown;
  if (type.is_crd) {
    const Value* schema = type.schema ? type.schema.get() : nullptr;
    if (schema) {
      // The apiserver decodes (strict check), prunes, defaults, then validates.
      unknown = openapi::UnknownFieldsInCustomResource(schema, object);
      schema::Prune(*schema, object);
      schema::ApplyDefaults(*schema, object, a);
      for (const auto& c : schema::Validate(*schema, object)) {
        std::string message = c.message;
        causes.push_back({c.type, message, c.field});
      }
      // Then list-type set/map uniqueness, as apiextensions does after the OpenAPI checks.
      for (const auto& c : schema::ValidateListSetsAndMaps(*schema, object)) {
        causes.push_back({c.type, c.message, c.field});
      }
    }
  } else {
    unknown = openapi::UnknownFields(type.group, type.version, type.kind, object);
    ApplyBuiltinDefaults(type, object);
    for (auto& c : ValidateBuiltin(type, object)) causes.push_back(std::move(c));
    if (type.group == "apiextensions.k8s.io" && type.plural == "customresourcedefinitions") {
      for (const auto& c : schema::ValidateCrdSchema(object)) causes.push_back({c.type, c.message, c.field});
    }
  }
  if (!unknown.empty()) {
    if (opts.field_validation == "Strict") {
      return BadRequest(openapi::StrictDecodingError(type.kind, type.version, unknown));
    }
    if (opts.field_validation == "Warn") {
      auto w = WithWarnings(unknown);
      warnings.insert(warnings.end(), w.begin(), w.end());
    }
    // The decoder drops fields it does not know; only Strict turns them into an error.
    for (const auto& field : unknown) RemoveFieldPath(object, field);
  }
  if (!causes.empty()) return Invalid(type.group, type.kind, name, causes);
  return std::nullopt;
}

}  // namespace berth::kubesim
