#include "e2e/kubesim/table/time_format.h"

#include <cstdio>
#include <limits>

namespace berth::kubesim::table {
namespace {

// Seconds from 1970-01-01 to 0001-01-01 (proleptic Gregorian), Go's zero time.
constexpr int64_t kGoZeroSeconds = -62135596800;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

// DaysFromCivil: days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's method).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp + (mp < 10 ? 3 : -9);
  y = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// ReadDigits reads exactly n decimal digits at text[pos]; false if any is not a digit.
bool ReadDigits(std::string_view text, size_t pos, size_t n, int64_t& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

std::unexpected<Error> Invalid(std::string_view text, std::string_view why) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "parsing time \"" + std::string(text) + "\" as RFC3339: " + std::string(why));
}

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
  int64_t year, month, day, hour, minute, second;
  if (!ReadDigits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !ReadDigits(text, 5, 2, month) || text[7] != '-' || !ReadDigits(text, 8, 2, day) ||
      text[10] != 'T' || !ReadDigits(text, 11, 2, hour) || text[13] != ':' ||
      !ReadDigits(text, 14, 2, minute) || text[16] != ':' || !ReadDigits(text, 17, 2, second)) {
    return Invalid(text, "expected the form 2006-01-02T15:04:05Z07:00");
  }
  if (month < 1 || month > 12) return Invalid(text, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month)) return Invalid(text, "day out of range");
  if (hour > 23) return Invalid(text, "hour out of range");
  if (minute > 59) return Invalid(text, "minute out of range");
  if (second > 59) return Invalid(text, "second out of range");

  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
    ++pos;
    size_t digits = 0;
    int64_t scale = kNanosPerSecond;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) {
        scale /= 10;
        nanos += (text[pos] - '0') * scale;
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) return Invalid(text, "missing fractional digits");
  }
  int64_t offset = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int64_t oh, om;
    if (!ReadDigits(text, pos + 1, 2, oh) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !ReadDigits(text, pos + 4, 2, om) || oh > 23 || om > 59) {
      return Invalid(text, "malformed time zone offset");
    }
    offset = (oh * 3600 + om * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return Invalid(text, "missing time zone (Z or ±hh:mm)");
  }
  if (pos != text.size()) return Invalid(text, "extra text after the time zone");

  const int64_t days = DaysFromCivil(year, month, day);
  return Timestamp{days * 86400 + hour * 3600 + minute * 60 + second - offset,
                   static_cast<int32_t>(nanos)};
}

std::string FormatRfc3339Utc(const Timestamp& t) {
  int64_t days = t.seconds / 86400;
  int64_t secs = t.seconds % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  int64_t y, m, d;
  CivilFromDays(days, y, m, d);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  return buf;
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
