#include "e2e/kubesim/schema/formats.h"

#include <cctype>
#include <regex>
#include <string>

namespace berth::kubesim::schema {
namespace {

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int ToInt(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  const std::string_view y = s.substr(0, 4), m = s.substr(5, 2), d = s.substr(8, 2);
  if (!AllDigits(y) || !AllDigits(m) || !AllDigits(d)) return false;
  const int year = ToInt(y), month = ToInt(m), day = ToInt(d);
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int max_day = kDays[month - 1];
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && leap) max_day = 29;
  return day <= max_day;
}

bool IsDateTime(std::string_view s) {
  if (s.size() < 4) return false;
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // strings.Split(lower, "t"): the date is the first piece, the time the second.
  const size_t t1 = lower.find('t');
  if (t1 == std::string::npos) return false;
  const size_t t2 = lower.find('t', t1 + 1);
  const std::string date = lower.substr(0, t1);
  const std::string time = lower.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
  if (!IsDate(date)) return false;
  static const std::regex kTime(
      R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)");
  std::smatch m;
  if (!std::regex_search(time, m, kTime)) return false;
  return m[1].str() <= "23" && m[2].str() <= "59" && m[3].str() <= "59";
}

bool FormatValidates(std::string_view format, std::string_view value) {
  std::string normalized;
  for (char c : format) {
    if (c != '-') normalized += c;
  }
  if (normalized == "datetime") return IsDateTime(value);
  if (normalized == "date") return IsDate(value);
  return true;
}

}  // namespace berth::kubesim::schema
