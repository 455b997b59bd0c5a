// clientgo-shim/api/duration.h
//
// Go time.Duration text: ParseDuration and Duration.String() with Go's exact rules and error
// wording. Kubernetes objects and flags carry durations this way ("30s", "1h30m", "24h").
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// ParseDuration is Go's time.ParseDuration: a signed sequence of decimal numbers with optional
// fraction and a unit each ("300ms", "-1.5h", "2h45m"); units ns, us, µs, μs, ms, s, m, h.
// "0" needs no unit. Errors: kInvalidArgument with Go's message, e.g.
// `time: invalid duration "x"`, `time: unknown unit "d" in duration "1d"`,
// `time: missing unit in duration "1"`.
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);

// FormatDuration is Go's Duration.String(): "1h0m0s", "1m30s", "1.5s", "300ms", "2µs", "0s".
std::string FormatDuration(std::chrono::nanoseconds d);

}  // namespace berth::shim
