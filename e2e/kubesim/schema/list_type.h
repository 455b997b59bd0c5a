// e2e/kubesim/schema/list_type.h
//
// The uniqueness checks of x-kubernetes-list-type `set` and `map`, which kube-apiserver runs after
// the OpenAPI validation of a custom resource (apiextensions' structural listtype validation).
// Each item after the first with an already-seen value (set) or key (map) is reported once, with
// the apiserver's wording:
//   spec.units[1]: Duplicate value: map[string]interface {}{"name":"spot"}
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/schema/cause.h"

namespace berth::kubesim::schema {

// ValidateListSetsAndMaps walks `object` along `schema` (properties, additionalProperties, items)
// and returns a FieldValueDuplicate cause per repeated set element or list-map key.
std::vector<Cause> ValidateListSetsAndMaps(const rapidjson::Value& schema,
                                           const rapidjson::Value& object);

}  // namespace berth::kubesim::schema
