// e2e/kubesim/protobuf/openapi_v2_encoder.h
//
// Encodes a swagger 2.0 document (JSON, as openapi/v2_document.h builds it) as gnostic's
// `openapi.v2.Document` protobuf: what the apiserver serves for `Accept:
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and what kubectl's client-side
// validation of `kind: List` files reads. Mapping follows gnostic's JSON model: objects of named
// entries become repeated Named* messages, "x-" keys become vendor_extension NamedAny entries
// whose Any carries the value as YAML (JSON text, a YAML subset), and oneOf wrappers
// (ParametersItem, SchemaItem, AdditionalPropertiesItem, TypeItem, ItemsItem) are chosen from
// the JSON shape.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::protobuf {

// The media type kubectl asks /openapi/v2 for.
inline constexpr char kOpenApiV2ProtobufType[] = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

// EncodeOpenApiV2Document returns the protobuf bytes of `document`.
// Errors: kInvalidArgument when `document` is not a JSON object. Members of unexpected JSON
// types are skipped, as gnostic's reader would refuse them rather than guess.
Result<std::string> EncodeOpenApiV2Document(const rapidjson::Value& document);

}  // namespace berth::kubesim::protobuf
