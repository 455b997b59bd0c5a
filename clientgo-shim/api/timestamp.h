// clientgo-shim/api/timestamp.h
//
// RFC 3339 timestamps as Kubernetes writes them: metav1.Time (seconds, UTC,
// "2006-01-02T15:04:05Z") and metav1.MicroTime ("2006-01-02T15:04:05.000000Z"), and parsing with
// Go's time.Parse(time.RFC3339, ...) rules, keeping nanoseconds.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

// ParseTimestamp reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" as Go's RFC3339 parser does:
// year 0000-9999, fields range-checked (day against the month), up to 9 fraction digits kept
// (more are truncated), upper-case 'T' and 'Z' only. TimePoint holds int64 nanoseconds, so
// instants outside roughly 1678..2261 are rejected.
// Errors: kInvalidArgument `parsing time "<text>" as "2006-01-02T15:04:05Z07:00": <reason>`.
Result<TimePoint> ParseTimestamp(std::string_view text);

// ParseMicroTimestamp is ParseTimestamp for metav1.MicroTime, whose layout demands exactly six
// fraction digits ("2006-01-02T15:04:05.000000Z07:00").
Result<TimePoint> ParseMicroTimestamp(std::string_view text);

// FormatTimestamp is metav1.Time's wire form: UTC, whole seconds (truncated), e.g.
// "2024-05-01T12:00:00Z".
std::string FormatTimestamp(TimePoint t);

// FormatMicroTimestamp is metav1.MicroTime's wire form: UTC, microseconds (truncated), e.g.
// "2024-05-01T12:00:00.123456Z".
std::string FormatMicroTimestamp(TimePoint t);

}  // namespace berth::shim
