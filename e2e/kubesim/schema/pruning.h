// e2e/kubesim/schema/pruning.h
//
// Structural-schema pruning for custom resources: drop every field the schema does not specify,
// as apiextensions-apiserver does when decoding a request and when reading from storage, and
// report the dropped paths for fieldValidation=Warn/Strict.
//
// Rules (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning):
//   - At the root, apiVersion, kind and metadata are never pruned (the root is treated as an
//     embedded resource); the same three are kept inside `x-kubernetes-embedded-resource: true`.
//   - `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields at that node, while the
//     declared properties below it are still pruned by their own schemas.
//   - Values of undeclared keys are kept when `additionalProperties` is set (and pruned by its
//     schema); an object whose schema has neither properties nor additionalProperties loses all
//     its fields.
//   - Scalars (including x-kubernetes-int-or-string values) are never pruned.
// Paths are in the apiserver's form: "spec.foo", "spec.owners[0].bar", sorted.
// Not done here: ObjectMeta coercion of metadata fields (metadata.foo) and duplicate-field checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace berth::kubesim::schema {

// Prune removes fields of `object` that `schema` does not specify. Returns the removed fields'
// paths ("spec.foo"), sorted; empty when nothing was pruned.
std::vector<std::string> Prune(const rapidjson::Value& schema, rapidjson::Value& object);

// UnknownFieldMessage returns the apiserver's text for one pruned path, used as a Warning header
// under fieldValidation=Warn: `unknown field "spec.foo"`.
std::string UnknownFieldMessage(std::string_view path);

// StrictDecodingMessage returns the strict-decoding error text for fieldValidation=Strict:
// `strict decoding error: unknown field "spec.a", unknown field "spec.b"`. The apiserver answers
// 400 BadRequest with the message
// `<Kind> in version "<version>" cannot be handled as a <Kind>: <this text>`.
std::string StrictDecodingMessage(const std::vector<std::string>& paths);

}  // namespace berth::kubesim::schema
