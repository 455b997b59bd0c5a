#include "clientgo-shim/api/timestamp.h"

#include <cstdint>
#include <cstdio>

namespace berth::shim {
namespace {

constexpr std::string_view kRfc3339Layout = "2006-01-02T15:04:05Z07:00";
constexpr std::string_view kMicroLayout = "2006-01-02T15:04:05.000000Z07:00";

std::unexpected<Error> Bad(std::string_view text, std::string_view layout,
                           std::string_view reason) {
  return MakeError(ErrorCode::kInvalidArgument, "parsing time \"" + std::string(text) +
                                                    "\" as \"" + std::string(layout) +
                                                    "\": " + std::string(reason));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ReadUint parses a fixed-width all-digit field; false on any non-digit.
bool ReadUint(std::string_view s, int& out) {
  out = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysIn(int month, int year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

Result<UnixTime> ParseWithLayout(std::string_view text, bool micro) {
  const std::string_view layout = micro ? kMicroLayout : kRfc3339Layout;
  std::string_view s = text;
  if (s.size() < 19) return Bad(text, layout, "value too short for the layout");
  int year, month, day, hour, minute, second;
  if (!ReadUint(s.substr(0, 4), year) || s[4] != '-' || !ReadUint(s.substr(5, 2), month) ||
      s[7] != '-' || !ReadUint(s.substr(8, 2), day) || s[10] != 'T' ||
      !ReadUint(s.substr(11, 2), hour) || s[13] != ':' || !ReadUint(s.substr(14, 2), minute) ||
      s[16] != ':' || !ReadUint(s.substr(17, 2), second)) {
    return Bad(text, layout, "not of the form YYYY-MM-DDTHH:MM:SS");
  }
  if (month < 1 || month > 12) return Bad(text, layout, "month out of range");
  if (day < 1 || day > DaysIn(month, year)) return Bad(text, layout, "day out of range");
  if (hour > 23) return Bad(text, layout, "hour out of range");
  if (minute > 59) return Bad(text, layout, "minute out of range");
  if (second > 59) return Bad(text, layout, "second out of range");
  s.remove_prefix(19);

  int64_t nanos = 0;
  // Go takes ',' as the decimal mark too, except where the layout spells ".000000".
  if (s.size() >= 2 && (s[0] == '.' || (s[0] == ',' && !micro)) && IsDigit(s[1])) {
    size_t n = 1;
    while (n < s.size() && IsDigit(s[n])) ++n;
    const size_t digits = n - 1;
    if (micro && digits != 6) return Bad(text, layout, "fractional second must have 6 digits");
    for (size_t i = 1; i <= 9; ++i) nanos = nanos * 10 + (i < n ? s[i] - '0' : 0);
    s.remove_prefix(n);
  } else if (micro) {
    return Bad(text, layout, "fractional second must have 6 digits");
  }

  int64_t offset_seconds = 0;
  if (s != "Z") {
    int oh, om;
    if (s.size() != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' ||
        !ReadUint(s.substr(1, 2), oh) || !ReadUint(s.substr(4, 2), om)) {
      return Bad(text, layout, "expected 'Z' or a ±hh:mm time zone offset");
    }
    if (oh > 23 || om > 59) return Bad(text, layout, "time zone offset out of range");
    offset_seconds = (oh * 60 + om) * 60;
    if (s[0] == '-') offset_seconds = -offset_seconds;
  }

  using namespace std::chrono;
  const sys_days date = year_month_day{std::chrono::year{year}, std::chrono::month{unsigned(month)},
                                       std::chrono::day{unsigned(day)}};
  const int64_t secs = int64_t{date.time_since_epoch().count()} * 86400 + hour * 3600 +
                       minute * 60 + second - offset_seconds;
  return UnixTime{secs, static_cast<int32_t>(nanos)};
}

Result<TimePoint> ToTimePoint(std::string_view text, bool micro) {
  auto u = ParseWithLayout(text, micro);
  if (!u) return std::unexpected(u.error());
  // TimePoint counts int64 nanoseconds: about 1677-09-21 to 2262-04-11.
  constexpr int64_t kMaxSeconds = INT64_MAX / 1'000'000'000 - 1;
  if (u->seconds > kMaxSeconds || u->seconds < -kMaxSeconds) {
    return Bad(text, micro ? kMicroLayout : kRfc3339Layout,
               "time outside the representable range (years 1678 to 2261)");
  }
  return TimePoint{std::chrono::nanoseconds{u->seconds * 1'000'000'000 + u->nanos}};
}

std::string Format(TimePoint t, bool micro) {
  using namespace std::chrono;
  const auto day_point = floor<days>(t);
  const year_month_day ymd{day_point};
  const auto since_midnight = t - day_point;
  const int64_t total_us = duration_cast<microseconds>(since_midnight).count();
  const int64_t secs = total_us / 1'000'000;
  char buf[48];
  int n = std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d", int(ymd.year()),
                        unsigned(ymd.month()), unsigned(ymd.day()), int(secs / 3600),
                        int(secs / 60 % 60), int(secs % 60));
  std::string out(buf, static_cast<size_t>(n));
  if (micro) {
    std::snprintf(buf, sizeof(buf), ".%06d", int(total_us % 1'000'000));
    out += buf;
  }
  out += 'Z';
  return out;
}

// FormatSeconds prints a whole-second instant as "YYYY-MM-DDTHH:MM:SSZ".
std::string FormatSeconds(std::chrono::sys_seconds t) {
  using namespace std::chrono;
  const auto day_point = floor<days>(t);
  const year_month_day ymd{day_point};
  const int64_t secs = (t - day_point).count();
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02dZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(secs / 3600), int(secs / 60 % 60),
                int(secs % 60));
  return buf;
}

}  // namespace

Result<TimePoint> ParseTimestamp(std::string_view text) { return ToTimePoint(text, false); }

Result<TimePoint> ParseMicroTimestamp(std::string_view text) { return ToTimePoint(text, true); }

Result<UnixTime> ParseUnixTime(std::string_view text) { return ParseWithLayout(text, false); }

std::string FormatUnixTime(const UnixTime& t) {
  // sys_seconds is int64 seconds, wide enough for year 1; the nanoseconds are truncated away.
  return FormatSeconds(std::chrono::sys_seconds{std::chrono::seconds{t.seconds}});
}

std::string FormatTimestamp(TimePoint t) { return Format(t, false); }

std::string FormatMicroTimestamp(TimePoint t) { return Format(t, true); }

}  // namespace berth::shim
