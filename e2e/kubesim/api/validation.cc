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
#include "e2e/kubesim/schema/defaulting.h"
#include "e2e/kubesim/schema/pruning.h"
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
    }
  } else {
    unknown = openapi::UnknownFields(type.group, type.version, type.kind, object);
    ApplyBuiltinDefaults(type, object);
    for (auto& c : ValidateBuiltin(type, object)) causes.push_back(std::move(c));
  }
  if (!unknown.empty()) {
    if (opts.field_validation == "Strict") {
      return BadRequest(openapi::StrictDecodingError(type.kind, type.version, unknown));
    }
    if (opts.field_validation == "Warn") {
      auto w = WithWarnings(unknown);
      warnings.insert(warnings.end(), w.begin(), w.end());
    }
  }
  if (!causes.empty()) return Invalid(type.group, type.kind, name, causes);
  return std::nullopt;
}

}  // namespace berth::kubesim
