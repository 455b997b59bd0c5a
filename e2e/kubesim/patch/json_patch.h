// e2e/kubesim/patch/json_patch.h
//
// JSON patch (RFC 6902), applied for Content-Type: application/json-patch+json. Error messages
// follow the json-patch library kube-apiserver uses (evanphx/json-patch v4), because clients
// and scripts match on them, e.g.
//   add operation does not apply: doc is missing path: "/spec/foo": missing value
//   testing value /metadata/name failed: test failed
// Like that library, negative array indices count from the end.
#pragma once

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::patch {

using Allocator = rapidjson::Document::AllocatorType;

// ApplyJsonPatch applies the operation list `ops` (add, remove, replace, move, copy, test) to
// `target`, atomically: on any error `target` is left exactly as it was.
// Errors: kInvalidArgument when `ops` is not an array of objects, an op is unknown or lacks a
// field, a pointer does not resolve, an index is out of range, or a `test` fails.
berth::Status ApplyJsonPatch(rapidjson::Value& target, const rapidjson::Value& ops,
                             Allocator& alloc);

}  // namespace berth::kubesim::patch
