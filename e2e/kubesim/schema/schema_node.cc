#include "e2e/kubesim/schema/schema_node.h"

#include <array>
#include <cmath>

namespace berth::kubesim::schema {

const rapidjson::Value* SchemaMember(const rapidjson::Value* schema, std::string_view key) {
  if (schema == nullptr || !schema->IsObject()) return nullptr;
  auto it = schema->FindMember(
      rapidjson::Value(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  return it == schema->MemberEnd() ? nullptr : &it->value;
}

bool SchemaFlag(const rapidjson::Value* schema, std::string_view key) {
  const rapidjson::Value* v = SchemaMember(schema, key);
  return v != nullptr && v->IsBool() && v->GetBool();
}

std::optional<int64_t> SchemaInt(const rapidjson::Value* schema, std::string_view key) {
  const rapidjson::Value* v = SchemaMember(schema, key);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(d);
}

std::optional<double> SchemaNumber(const rapidjson::Value* schema, std::string_view key) {
  const rapidjson::Value* v = SchemaMember(schema, key);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

std::optional<std::string_view> SchemaString(const rapidjson::Value* schema,
                                             std::string_view key) {
  const rapidjson::Value* v = SchemaMember(schema, key);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return std::string_view(v->GetString(), v->GetStringLength());
}

const rapidjson::Value* PropertySchema(const rapidjson::Value* schema, std::string_view name) {
  const rapidjson::Value* props = SchemaMember(schema, "properties");
  const rapidjson::Value* prop = SchemaMember(props, name);
  return prop != nullptr && prop->IsObject() ? prop : nullptr;
}

const rapidjson::Value* ItemsSchema(const rapidjson::Value* schema) {
  const rapidjson::Value* items = SchemaMember(schema, "items");
  return items != nullptr && items->IsObject() ? items : nullptr;
}

AdditionalProperties GetAdditionalProperties(const rapidjson::Value* schema) {
  AdditionalProperties out;
  const rapidjson::Value* v = SchemaMember(schema, "additionalProperties");
  if (v == nullptr) return out;
  if (v->IsBool()) {
    out.present = true;
    out.allows = v->GetBool();
  } else if (v->IsObject()) {
    out.present = true;
    out.schema = v;
  }
  return out;
}

std::vector<std::string> SchemaTypes(const rapidjson::Value* schema) {
  if (SchemaFlag(schema, "x-kubernetes-int-or-string")) return {"integer", "string"};
  std::optional<std::string_view> type = SchemaString(schema, "type");
  if (!type || type->empty()) return {};
  return {std::string(*type)};
}

const rapidjson::Value* DefaultValue(const rapidjson::Value* schema) {
  const rapidjson::Value* v = SchemaMember(schema, "default");
  return v != nullptr && !v->IsNull() ? v : nullptr;
}

bool IsSupportedFormat(std::string_view format) {
  // apiextensions-apiserver's supportedFormats, compared with dashes removed.
  static constexpr std::array<std::string_view, 24> kSupported = {
      "bsonobjectid", "uri",   "email",  "hostname",   "ipv4",     "ipv6",
      "cidr",         "mac",   "uuid",   "uuid3",      "uuid4",    "uuid5",
      "isbn",         "isbn10", "isbn13", "creditcard", "ssn",      "hexcolor",
      "rgbcolor",     "byte",  "password", "date",      "duration", "datetime"};
  std::string normalized;
  for (char c : format) {
    if (c != '-') normalized += c;
  }
  for (std::string_view s : kSupported) {
    if (s == normalized) return true;
  }
  return false;
}

}  // namespace berth::kubesim::schema
