// e2e/kubesim/schema/go_format.h
//
// Renders values the way the Go apiserver prints them inside error messages, so kubesim's
// messages match kubectl-visible text byte for byte: the field.Error "bad value" rendering (int64/float64/bool with %v, strings with %q, null as "null",
// maps and slices with %#v).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/go_format.h"  // GoQuote, FormatFloatG

namespace berth::kubesim::schema {

// GoBadValue renders a JSON value as field.Error.ErrorBody prints its BadValue: integers and
// floats with %v, booleans, strings quoted, null as "\"null\"", objects/arrays in Go's %#v form
// of map[string]interface {} / []interface {}.
std::string GoBadValue(const rapidjson::Value& v);

// GoSharpV renders a JSON value in Go's %#v form as it would appear nested in a map or slice.
std::string GoSharpV(const rapidjson::Value& v);

}  // namespace berth::kubesim::schema
