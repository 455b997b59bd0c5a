// e2e/kubesim/openapi/builtin_schemas.h
//
// The embedded OpenAPI v3 component schemas of the built-in kinds (io.k8s.api.core.v1.Pod, ...),
// and lookups by group/version/kind. References inside use "#/components/schemas/<name>".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace berth::kubesim::openapi {

// The "#/components/schemas/" prefix of every v3 reference.
inline constexpr std::string_view kV3RefPrefix = "#/components/schemas/";

// BuiltinSchemas returns the parsed schema map (definition name -> schema), parsed once on first
// use. Returns an empty object if the embedded data were ever unparsable (a generator bug).
const rapidjson::Value& BuiltinSchemas();

// BuiltinSchema returns the schema named `name`, or nullptr (a hash lookup; `name` need not be
// NUL-terminated).
const rapidjson::Value* BuiltinSchema(std::string_view name);

// BuiltinDefinitionName returns the definition whose x-kubernetes-group-version-kind lists
// group/version/kind ("io.k8s.api.core.v1.Pod" for "", "v1", "Pod"), or nullopt.
std::optional<std::string> BuiltinDefinitionName(std::string_view group, std::string_view version,
                                                 std::string_view kind);

// RefTarget returns the definition name of a "$ref" string in v3 ("#/components/schemas/X") or v2
// ("#/definitions/X") form, or an empty view when it is neither.
std::string_view RefTarget(std::string_view ref);

}  // namespace berth::kubesim::openapi
