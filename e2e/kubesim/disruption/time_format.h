// e2e/kubesim/disruption/time_format.h
//
// The clock type of the disruption API and metav1.Time conversions, delegating to
// clientgo-shim/api/timestamp.h ("2006-01-02T15:04:05Z", UTC, whole seconds).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "clientgo-shim/api/timestamp.h"

namespace berth::kubesim::disruption {

using TimePoint = std::chrono::system_clock::time_point;
static_assert(std::is_same_v<TimePoint, shim::TimePoint>,
              "system_clock must tick in nanoseconds for shim timestamps");

// FormatRfc3339 writes `t` as metav1.Time does (UTC, truncated to seconds).
inline std::string FormatRfc3339(TimePoint t) { return shim::FormatTimestamp(t); }

// ParseRfc3339 reads an RFC3339 time (Go rules); nullopt when malformed.
inline std::optional<TimePoint> ParseRfc3339(std::string_view text) {
  auto t = shim::ParseTimestamp(text);
  if (!t) return std::nullopt;
  return *t;
}

}  // namespace berth::kubesim::disruption
