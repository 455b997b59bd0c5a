// e2e/kubesim/table/go_format.h
//
// Go's text renderings of decoded JSON values, as the apiserver produces them when a CRD column
// prints a value: fmt.Print for scalars (%v of float64 is %g-shortest: "1.5", "1e+06") and
// encoding/json for objects and arrays (keys sorted, HTML characters escaped). Values follow
// apimachinery's unstructured decoding: an integer literal is int64, any other number float64.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/go_format.h"  // FormatFloatG: fmt.Print of a float64

namespace berth::kubesim::table {

// FormatGoJsonFloat prints a float64 as encoding/json does ("1e+21", "0.000001", "1e-7").
std::string FormatGoJsonFloat(double value);

// GoJsonMarshal serializes a value as encoding/json.Marshal would serialize its unstructured
// form: compact, object keys sorted, '<' '>' '&' escaped as \u003c \u003e \u0026.
std::string GoJsonMarshal(const rapidjson::Value& value);

// GoPrintValue is client-go JSONPath's PrintResults for one value: strings raw, numbers and
// booleans via fmt, null as "null", objects and arrays as GoJsonMarshal.
std::string GoPrintValue(const rapidjson::Value& value);

// IsGoInt reports whether the unstructured decoder would produce an int64 for this number.
bool IsGoInt(const rapidjson::Value& value);

}  // namespace berth::kubesim::table
