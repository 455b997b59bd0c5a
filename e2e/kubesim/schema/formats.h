// e2e/kubesim/schema/formats.h
//
// String formats the apiserver checks for CRD fields (kube-openapi strfmt). Only date-time and
// date are implemented; every other supported format is accepted as is.
#pragma once

#include <string_view>

namespace berth::kubesim::schema {

// IsDate reports whether s is a full-date "2006-01-02" naming a real calendar day.
bool IsDate(std::string_view s);

// IsDateTime follows strfmt.IsDateTime: "<full-date>T<hh:mm:ss>[.frac](Z|±hh:mm)", case-insensitive.
bool IsDateTime(std::string_view s);

// FormatValidates reports whether value satisfies the (supported) format; unknown or
// unimplemented formats validate.
bool FormatValidates(std::string_view format, std::string_view value);

}  // namespace berth::kubesim::schema
