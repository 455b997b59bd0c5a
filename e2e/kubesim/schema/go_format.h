// e2e/kubesim/schema/go_format.h
//
// Renders values the way the Go apiserver prints them inside error messages, so kubesim's
// messages match kubectl-visible text byte for byte: strconv.Quote (%q), float64 %v, and the
// field.Error "bad value" rendering (int64/float64/bool with %v, strings with %q, null as "null",
// maps and slices with %#v).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace berth::kubesim::schema {

// GoQuote returns s as Go's strconv.Quote would ("a\"b" → "\"a\\\"b\"").
std::string GoQuote(std::string_view s);

// GoFloat formats v as Go's fmt %v for float64 (1.5 → "1.5", 1e6 → "1e+06", 0.00001 → "1e-05").
std::string GoFloat(double v);

// GoBadValue renders a JSON value as field.Error.ErrorBody prints its BadValue: integers and
// floats with %v, booleans, strings quoted, null as "\"null\"", objects/arrays in Go's %#v form
// of map[string]interface {} / []interface {}.
std::string GoBadValue(const rapidjson::Value& v);

// GoSharpV renders a JSON value in Go's %#v form as it would appear nested in a map or slice.
std::string GoSharpV(const rapidjson::Value& v);

}  // namespace berth::kubesim::schema
