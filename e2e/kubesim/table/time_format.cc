#include "e2e/kubesim/table/time_format.h"

#include <limits>

#include "clientgo-shim/api/timestamp.h"

namespace berth::kubesim::table {
namespace {

// Seconds from 1970-01-01 to 0001-01-01 (proleptic Gregorian), Go's zero time.
constexpr int64_t kGoZeroSeconds = -62135596800;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

}  // namespace

bool Timestamp::IsZero() const { return seconds == kGoZeroSeconds && nanos == 0; }

Timestamp Timestamp::FromTimePoint(TimePoint t) {
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  int64_t s = ns / kNanosPerSecond;
  int64_t rem = ns % kNanosPerSecond;
  if (rem < 0) {
    rem += kNanosPerSecond;
    --s;
  }
  return Timestamp{s, static_cast<int32_t>(rem)};
}

Result<Timestamp> ParseRfc3339(std::string_view text) {
  auto t = shim::ParseUnixTime(text);
  if (!t) return std::unexpected(t.error());
  return Timestamp{t->seconds, t->nanos};
}

std::string FormatRfc3339Utc(const Timestamp& t) {
  return shim::FormatUnixTime(shim::UnixTime{t.seconds, t.nanos});
}

int64_t NanosBetween(const Timestamp& from, const Timestamp& to) {
  const __int128 diff = (static_cast<__int128>(to.seconds) - from.seconds) * kNanosPerSecond +
                        (static_cast<__int128>(to.nanos) - from.nanos);
  if (diff > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (diff < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(diff);
}

std::string HumanDuration(int64_t nanos) {
  // Go converts with int(d.Seconds()): truncation toward zero. A deviation of up to 2s into the
  // future is tolerated as clock skew and shown as "0s".
  const int64_t seconds = nanos / kNanosPerSecond;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    if (s == 0) return std::to_string(minutes) + "m";
    return std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const int64_t hours = seconds / 3600;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    if (m == 0) return std::to_string(hours) + "h";
    return std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    if (h == 0) return std::to_string(hours / 24) + "d";
    return std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    if (dy == 0) return std::to_string(hours / 24 / 365) + "y";
    return std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string ShortHumanDuration(int64_t nanos) {
  const int64_t seconds = nanos / kNanosPerSecond;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return std::to_string(seconds) + "s";
  if (seconds / 60 < 60) return std::to_string(seconds / 60) + "m";
  const int64_t hours = seconds / 3600;
  if (hours < 24) return std::to_string(hours) + "h";
  if (hours < 24 * 365) return std::to_string(hours / 24) + "d";
  return std::to_string(hours / 24 / 365) + "y";
}

std::optional<Timestamp> ParseTimestampField(const rapidjson::Value* timestamp) {
  if (timestamp == nullptr || !timestamp->IsString()) return std::nullopt;
  auto parsed = ParseRfc3339(
      std::string_view(timestamp->GetString(), timestamp->GetStringLength()));
  if (!parsed) return std::nullopt;
  return *parsed;
}

std::string TimestampSince(const rapidjson::Value* timestamp, TimePoint now) {
  const std::optional<Timestamp> t = ParseTimestampField(timestamp);
  if (!t || t->IsZero()) return "<unknown>";
  return HumanDuration(NanosBetween(*t, Timestamp::FromTimePoint(now)));
}

}  // namespace berth::kubesim::table
