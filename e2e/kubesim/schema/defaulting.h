// e2e/kubesim/schema/defaulting.h
//
// Structural-schema defaulting for custom resources, as apiextensions-apiserver applies it when
// decoding a request body (create/update/patch) and when reading from storage.
//
// Rules (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting):
//   - A property's `default` is copied in when the property is absent, or when it is null and the
//     property is not `nullable: true`.
//   - The same holds for array items (items.default replaces non-nullable null items) and for
//     additionalProperties values.
//   - Defaults apply only inside objects that exist: an absent parent is not created unless it has
//     a default itself. A default that was just copied in is itself defaulted further down.
//   - `default: null` means no default.
// The apiserver prunes unknown fields before defaulting; callers should do the same.
#pragma once

#include <rapidjson/document.h>

namespace berth::kubesim::schema {

// ApplyDefaults fills defaults from `schema` (an openAPIV3Schema) into `object` in place, copying
// default values with `alloc` (the object's document allocator). Never fails: schema keywords of
// the wrong JSON type are ignored.
void ApplyDefaults(const rapidjson::Value& schema, rapidjson::Value& object,
                   rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::kubesim::schema
