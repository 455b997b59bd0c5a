// e2e/kubesim/patch/merge_patch.h
//
// JSON merge patch (RFC 7386), the patch kube-apiserver applies for
// Content-Type: application/merge-patch+json and the only object patch custom resources accept.
// Pure: no I/O, works on RapidJSON values in place.
#pragma once

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::patch {

using Allocator = rapidjson::Document::AllocatorType;

// ApplyMergePatch merges `patch` into `target`: object members merge recursively, a null member
// deletes, and any non-object value (arrays included) replaces. `alloc` must own `target`.
// Errors: kInvalidArgument "Invalid JSON Patch" when `patch` is not an object (as the apiserver's
// json-patch library answers); `target` is then unchanged.
berth::Status ApplyMergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                              Allocator& alloc);

}  // namespace berth::kubesim::patch
