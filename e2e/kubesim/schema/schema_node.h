// e2e/kubesim/schema/schema_node.h
//
// Tolerant readers for one node of a CRD openAPIV3Schema (JSONSchemaProps as JSON). A keyword of
// the wrong JSON type reads as absent, so a malformed schema ("type": 5, "required": "x")
// degrades to "no constraint" instead of crashing. Shared by defaulting, pruning and validation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::schema {

// Deepest nesting the schema walkers follow; deeper data is left alone (no stack overflow on
// hostile input).
inline constexpr int kMaxSchemaDepth = 128;

// SchemaMember returns schema[key] when schema is an object that has it, else nullptr.
const rapidjson::Value* SchemaMember(const rapidjson::Value* schema, std::string_view key);

// SchemaFlag returns whether schema[key] is the boolean true.
bool SchemaFlag(const rapidjson::Value* schema, std::string_view key);

// SchemaInt returns schema[key] as an integer (an integral JSON number), if it is one.
std::optional<int64_t> SchemaInt(const rapidjson::Value* schema, std::string_view key);

// SchemaNumber returns schema[key] as a double, if it is a JSON number.
std::optional<double> SchemaNumber(const rapidjson::Value* schema, std::string_view key);

// SchemaString returns schema[key] if it is a string.
std::optional<std::string_view> SchemaString(const rapidjson::Value* schema, std::string_view key);

// PropertySchema returns schema.properties[name] when it is an object, else nullptr.
const rapidjson::Value* PropertySchema(const rapidjson::Value* schema, std::string_view name);

// ItemsSchema returns schema.items when it is an object (a single schema), else nullptr.
const rapidjson::Value* ItemsSchema(const rapidjson::Value* schema);

// AdditionalProperties describes schema.additionalProperties: absent, a boolean, or a schema.
struct AdditionalProperties {
  bool present = false;                      // the keyword is there (bool or object)
  bool allows = true;                        // false only for "additionalProperties": false
  const rapidjson::Value* schema = nullptr;  // the schema when it is an object
};
AdditionalProperties GetAdditionalProperties(const rapidjson::Value* schema);

// SchemaTypes returns the effective types: ["integer", "string"] for x-kubernetes-int-or-string,
// else [type] when type is a non-empty string, else [].
std::vector<std::string> SchemaTypes(const rapidjson::Value* schema);

// DefaultValue returns schema.default unless it is absent or null (null means "no default").
const rapidjson::Value* DefaultValue(const rapidjson::Value* schema);

// IsSupportedFormat reports whether the apiserver keeps this format for validation; formats
// outside its list (int32, int64, double, ...) are stripped and never checked.
bool IsSupportedFormat(std::string_view format);

}  // namespace berth::kubesim::schema
