// e2e/kubesim/server/request_target.h
//
// Splits an HTTP request target into a decoded path and query map, following Go's net/url rules
// (the apiserver reads req.URL.Path and req.URL.Query()): '+' means space only in the query, and
// a malformed query pair is dropped rather than failing the request.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim {

// DecodedTarget: the path and query parameters of one request target.
struct DecodedTarget {
  std::string path;
  std::map<std::string, std::string> query;  // a repeated key keeps the last value
};

// PercentDecode decodes %XX escapes, and '+' as space when plus_is_space.
// Returns nullopt on a truncated or non-hex escape.
std::optional<std::string> PercentDecode(std::string_view in, bool plus_is_space);

// DecodeTarget parses "/path?query". Errors: kBadRequest when the target does not start with '/',
// or the path holds a bad escape or a NUL byte.
Result<DecodedTarget> DecodeTarget(std::string_view target);

}  // namespace berth::kubesim
