// e2e/kubesim/schema/transition_rules.h
//
// The x-kubernetes-validations (CEL) rules kubesim enforces: the immutability rule
// `self == oldSelf` (or `oldSelf == self`), at any schema node, on update. kubesim has no CEL
// interpreter; every other rule is accepted in the CRD and ignored (not evaluated on create or
// update). The failure is worded as kube-apiserver words it: the node's path, `Invalid value:
// "<schema type>": <message>` (default message `failed rule: <rule>`), honouring the rule's
// `reason` (FieldValueForbidden/Required/Duplicate/Invalid) and a simple `fieldPath` (".a.b").
//
// Like the apiserver, a transition rule runs only where the old value exists and correlates with
// the new one: through properties, additionalProperties keys and list-type=map items (matched by
// their keys); not inside atomic lists. Equality is CEL's: object keys in any order, list-type
// set/map lists in any order, other lists in order, 1 == 1.0.
// Example:
//   auto causes = ValidateTransitionRules(schema, new_object, old_object);
//   // [{FieldValueInvalid, "spec", "Invalid value: \"object\": Value is immutable"}]
#pragma once

#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/schema/cause.h"

namespace berth::kubesim::schema {

// ValidateTransitionRules checks the supported rules of `schema` (an openAPIV3Schema) between
// `old_object` and `new_object`. Returns one Cause per failed rule, in schema walk order.
std::vector<Cause> ValidateTransitionRules(const rapidjson::Value& schema, const rapidjson::Value& new_object,
                                           const rapidjson::Value& old_object);

// IsImmutabilityRule is true for the rule text kubesim evaluates: `self == oldSelf` or
// `oldSelf == self`, with any whitespace.
bool IsImmutabilityRule(std::string_view rule);

// CelEquals compares two values with CEL's equality under `schema` (which may be null).
bool CelEquals(const rapidjson::Value* schema, const rapidjson::Value& a, const rapidjson::Value& b);

}  // namespace berth::kubesim::schema
