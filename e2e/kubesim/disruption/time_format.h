// e2e/kubesim/disruption/time_format.h
//
// RFC3339 timestamps as metav1.Time writes them ("2006-01-02T15:04:05Z", UTC, whole seconds).
// Private to the disruption folder until clientgo-shim/api/timestamp.h is available; kept tiny
// and free of libc time-zone state so it is safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace berth::kubesim::disruption {

using TimePoint = std::chrono::system_clock::time_point;

// FormatRfc3339 writes `t` in UTC truncated to whole seconds, e.g. "2024-05-01T10:00:00Z".
std::string FormatRfc3339(TimePoint t);

// ParseRfc3339 reads "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)" (lower-case t/z accepted too).
// Returns nullopt for anything else (malformed input never throws).
std::optional<TimePoint> ParseRfc3339(std::string_view text);

}  // namespace berth::kubesim::disruption
