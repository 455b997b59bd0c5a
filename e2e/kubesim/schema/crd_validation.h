// e2e/kubesim/schema/crd_validation.h
//
// Basic acceptance checks for a CustomResourceDefinition manifest (apiextensions.k8s.io/v1)
// before kubesim serves it, with the apiserver's field paths and wording. Deliberately modest:
// names, group, scope, versions/storage, and that each version's schema exists with type object
// at the root. Not checked: structural-schema rules below the root, CEL, conversion webhooks,
// printer columns, status.storedVersions.
// The 422 message is FormatInvalidMessage("CustomResourceDefinition.apiextensions.k8s.io",
// metadata.name, causes).
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/schema/cause.h"

namespace berth::kubesim::schema {

// ValidateCrdSchema returns the reasons `crd` would be rejected, empty when acceptable. Schema
// errors are reported under "spec.validation.openAPIV3Schema" when every version carries the same
// schema (the apiserver's internal form folds identical schemas there), else under
// "spec.versions[i].schema.openAPIV3Schema". Never fails on malformed input.
std::vector<Cause> ValidateCrdSchema(const rapidjson::Value& crd);

}  // namespace berth::kubesim::schema
