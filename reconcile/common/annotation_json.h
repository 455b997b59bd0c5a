// reconcile/common/annotation_json.h
//
// Parsing JSON that arrives inside annotation values (reservation-affinity, reservation-allocated,
// berth.dev/pre-allocated-pods, the Restricted options). The API server never parses these
// strings, so their nesting is bounded only by the 256 KiB annotation limit: a value of 100,000
// '[' overflows the stack of a recursive parser and would take berth-manager down. This parser
// is iterative (its stack lives on the heap) and otherwise behaves like berth::json::Parse.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::reconcile {

// ParseAnnotationJson parses `text` without recursion.
// Errors: kInvalidArgument "invalid JSON at offset N: <reason>" (json::Parse's wording).
Result<rapidjson::Document> ParseAnnotationJson(std::string_view text);

}  // namespace berth::reconcile
