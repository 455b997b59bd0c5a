// e2e/kubesim/table/time_format.h
//
// Time helpers for Table output: RFC3339 parsing and the apiserver's "Created At" formatting
// (both clientgo-shim/api/timestamp.h's UnixTime functions: the shim's TimePoint cannot hold
// Go's zero time, year 1, which an object without creationTimestamp prints), and apimachinery's
// duration.HumanDuration, which every printer's AGE column uses.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::table {

// TimePoint is "now" as the caller's clock reports it. Passed in, never read, so output is
// reproducible in tests.
using TimePoint = std::chrono::system_clock::time_point;

// Timestamp is an instant with a range wide enough for Go's zero time (year 1), which a
// nanosecond system_clock cannot hold.
struct Timestamp {
  int64_t seconds = 0;  // since 1970-01-01T00:00:00Z
  int32_t nanos = 0;    // [0, 1e9)

  // IsZero mirrors metav1.Time.IsZero: Go's zero time, 0001-01-01T00:00:00Z.
  bool IsZero() const;
  static Timestamp FromTimePoint(TimePoint t);
  friend bool operator==(const Timestamp&, const Timestamp&) = default;
};

// ParseRfc3339 reads a time.RFC3339 string as Go's time.Parse does: "2006-01-02T15:04:05Z" or
// with a "+07:00" offset, optional fractional seconds (shim::ParseUnixTime). Errors:
// kInvalidArgument.
Result<Timestamp> ParseRfc3339(std::string_view text);

// FormatRfc3339Utc prints t in UTC without fractional seconds ("2024-05-01T10:00:00Z"), as
// Time.UTC().Format(time.RFC3339) does.
std::string FormatRfc3339Utc(const Timestamp& t);

// NanosBetween returns to - from in nanoseconds, saturated to the int64 range like Go's Sub.
int64_t NanosBetween(const Timestamp& from, const Timestamp& to);

// HumanDuration is apimachinery duration.HumanDuration: ~2-3 significant figures
// ("119s", "5m30s", "45m", "3h45m", "2d3h", "400d", "2y30d"); "<invalid>" below -1s.
std::string HumanDuration(int64_t nanos);

// ShortHumanDuration is duration.ShortHumanDuration ("59s", "59m", "23h", "364d", "2y").
std::string ShortHumanDuration(int64_t nanos);

// TimestampSince is the printers' translateTimestampSince for a JSON timestamp field:
// "<unknown>" when absent, null, unparsable or zero, else HumanDuration(now - t).
std::string TimestampSince(const rapidjson::Value* timestamp, TimePoint now);

// ParseTimestampField reads an optional RFC3339 string field; nullopt when absent or malformed.
std::optional<Timestamp> ParseTimestampField(const rapidjson::Value* timestamp);

}  // namespace berth::kubesim::table
