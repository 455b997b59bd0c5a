// clientgo-shim/api/timestamp.h
//
// RFC 3339 timestamps as Kubernetes writes them: metav1.Time (seconds, UTC,
// "2006-01-02T15:04:05Z") and metav1.MicroTime ("2006-01-02T15:04:05.000000Z"), and parsing with
// Go's time.Parse(time.RFC3339, ...) rules, keeping nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

// ParseTimestamp reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" as Go's RFC3339 parser does:
// year 0000-9999, fields range-checked (day against the month), up to 9 fraction digits kept
// (more are truncated; '.' or ',' before them, as Go accepts), upper-case 'T' and 'Z' only. TimePoint holds int64 nanoseconds, so
// instants outside roughly 1678..2261 are rejected.
// Errors: kInvalidArgument `parsing time "<text>" as "2006-01-02T15:04:05Z07:00": <reason>`.
Result<TimePoint> ParseTimestamp(std::string_view text);

// ParseMicroTimestamp is ParseTimestamp for metav1.MicroTime, whose layout demands exactly six
// fraction digits ("2006-01-02T15:04:05.000000Z07:00").
Result<TimePoint> ParseMicroTimestamp(std::string_view text);

// UnixTime is an instant as seconds since 1970-01-01T00:00:00Z plus nanoseconds. Unlike TimePoint
// it holds every year RFC 3339 can spell (0000-9999), Go's zero time 0001-01-01T00:00:00Z
// included, which kubectl-visible output (Table "Created At") must print.
struct UnixTime {
  int64_t seconds = 0;
  int32_t nanos = 0;  // [0, 1e9)
  friend bool operator==(const UnixTime&, const UnixTime&) = default;
};

// ParseUnixTime is ParseTimestamp without TimePoint's range limit (same rules and errors).
Result<UnixTime> ParseUnixTime(std::string_view text);

// FormatUnixTime is FormatTimestamp for a UnixTime: UTC, whole seconds, "0001-01-01T00:00:00Z".
std::string FormatUnixTime(const UnixTime& t);

// FormatTimestamp is metav1.Time's wire form: UTC, whole seconds (truncated), e.g.
// "2024-05-01T12:00:00Z".
std::string FormatTimestamp(TimePoint t);

// FormatMicroTimestamp is metav1.MicroTime's wire form: UTC, microseconds (truncated), e.g.
// "2024-05-01T12:00:00.123456Z".
std::string FormatMicroTimestamp(TimePoint t);

}  // namespace berth::shim
