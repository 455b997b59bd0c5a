// e2e/kubesim/schema/validation.h
//
// OpenAPI v3 schema validation of a custom resource, reproducing what kube-apiserver
// (apiextensions-apiserver + kube-openapi's validator, v1.32 wording) reports on create/update:
// the same checks, in the same order per node, with the same field paths and messages.
//
// Supported keywords: type (object, array, string, integer, number, boolean), nullable,
// x-kubernetes-int-or-string, required, enum, properties, additionalProperties (schema or false),
// items, minItems/maxItems, minimum/maximum (+exclusiveMinimum/exclusiveMaximum), multipleOf,
// minLength/maxLength (counted in runes), pattern (RE2, the syntax and semantics of Go's regexp,
// which the apiserver uses), minProperties/maxProperties, and
// format date-time / date. Not supported: allOf/anyOf/oneOf/not, uniqueItems, CEL rules
// (x-kubernetes-validations), list-type/map-type checks, ratcheting of unchanged fields.
//
// Notable apiserver behaviours kept on purpose:
//   - 1.0 is accepted where an integer is required (a float that is integral); 1.5 is not.
//   - Type errors do not stop the other checks on that node (e.g. enum still reports).
//   - Required errors of an object come after the errors found inside its properties.
//   - minItems reports `Invalid value: <count>`, maxItems/maxProperties report `Too many`,
//     maxLength reports `Too long: may not be longer than N`.
// Example:
//   auto causes = Validate(schema, object);
//   // [{FieldValueInvalid, "spec.owners",
//   //   "Invalid value: 0: spec.owners in body should have at least 1 items"}]
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/schema/cause.h"

namespace berth::kubesim::schema {

// Validate checks `object` against `schema` (an openAPIV3Schema). Returns one Cause per failure,
// empty when valid. Never fails on a malformed schema: keywords of the wrong JSON type are
// ignored, and an uncompilable pattern reports a failure naming the pattern.
std::vector<Cause> Validate(const rapidjson::Value& schema, const rapidjson::Value& object);

}  // namespace berth::kubesim::schema
