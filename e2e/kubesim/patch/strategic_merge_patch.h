// e2e/kubesim/patch/strategic_merge_patch.h
//
// Strategic merge patch, as kube-apiserver applies it to built-in kinds
// (Content-Type: application/strategic-merge-patch+json, what `kubectl apply`, `kubectl edit` and
// `kubectl patch` send by default). Differences from a JSON merge patch:
//   - lists tagged "merge" in the PatchSchema merge element by element on their merge key (lists
//     of scalars as an ordered set union); other lists are replaced;
//   - directives, none of which is ever stored:
//       "$patch": "replace" | "delete" | "merge"   in a map or in a merge-list element
//       "$retainKeys": [...]                       keep only these keys of the stored map
//       "$setElementOrder/<list>": [...]           order of the merged list
//       "$deleteFromPrimitiveList/<list>": [...]   remove scalars from a merged list
//   - null deletes a key; a null for a key that is not stored is dropped.
// Relative to upstream, `$patch: merge` is accepted as a no-op (upstream rejects it in maps and
// lists), and directives inside values new to the object are processed rather than copied.
#pragma once

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/patch/patch_schema.h"

namespace berth::kubesim::patch {

using Allocator = rapidjson::Document::AllocatorType;

// ApplyStrategicMergePatch merges `patch` into the object `target` using `schema` for list
// strategies (BuiltinPatchSchema(apiVersion, kind) for served kinds). Atomic: on error `target` is
// unchanged. Errors: kInvalidArgument when `patch` or `target` is not an object, a directive is
// malformed or unknown, a merge-list element lacks its merge key, list element types differ, or
// the patch list contradicts its $setElementOrder list.
berth::Status ApplyStrategicMergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                                       Allocator& alloc, const PatchSchema& schema);

}  // namespace berth::kubesim::patch
