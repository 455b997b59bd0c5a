// e2e/kubesim/openapi/unknown_fields.h
//
// Strict field validation (fieldValidation=Strict): find the fields of a request object that its
// schema does not declare, named as the apiserver names them ("spec.containers[0].imagee"), and
// word the resulting error like the apiserver's strict decoder.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::openapi {

// UnknownFields returns the paths of `object`'s fields that the embedded schema of built-in
// group/version/kind does not declare, in document order. Follows $ref/allOf, arrays and maps
// (additionalProperties); skips subtrees marked x-kubernetes-preserve-unknown-fields and objects
// whose schema declares no properties. Returns {} for a kind with no embedded schema.
std::vector<std::string> UnknownFields(std::string_view group, std::string_view version, std::string_view kind,
                                       const rapidjson::Value& object);

// UnknownFieldsInCustomResource does the same for a custom resource validated by its CRD's
// openAPIV3Schema, with structural-schema rules: an object schema without properties,
// additionalProperties or x-kubernetes-preserve-unknown-fields declares no field, and
// `metadata` is checked against ObjectMeta. A null or non-object schema accepts everything.
std::vector<std::string> UnknownFieldsInCustomResource(const rapidjson::Value* schema,
                                                       const rapidjson::Value& object);

// StrictDecodingError words the apiserver's rejection of unknown fields:
//   Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.x", unknown field "y"
std::string StrictDecodingError(std::string_view kind, std::string_view version,
                                const std::vector<std::string>& unknown_fields);

}  // namespace berth::kubesim::openapi
