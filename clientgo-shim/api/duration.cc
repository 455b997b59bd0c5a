#include "clientgo-shim/api/duration.h"

#include <array>
#include <cstdint>

namespace berth::shim {
namespace {

// GoQuote renders s like Go's time package does in errors: double quotes, `"` and `\` escaped,
// bytes outside printable ASCII as \xNN.
std::string GoQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < 0x20) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::unexpected<Error> Invalid(std::string_view orig) {
  return MakeError(ErrorCode::kInvalidArgument, "time: invalid duration " + GoQuote(orig));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

uint64_t UnitNanos(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1000;  // us, µs (U+00B5), μs (U+03BC)
  if (u == "ms") return 1'000'000;
  if (u == "s") return 1'000'000'000;
  if (u == "m") return 60'000'000'000;
  if (u == "h") return 3'600'000'000'000;
  return 0;
}

}  // namespace

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  const std::string_view orig = text;
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return Invalid(orig);
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  uint64_t d = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return Invalid(orig);
    // Integer part; overflow is an invalid duration.
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (v > kLimit / 10) return Invalid(orig);
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kLimit) return Invalid(orig);
    }
    const bool pre = i != 0;
    s.remove_prefix(i);
    // Fraction: digits past the precision of uint64 are consumed but ignored, as Go does.
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t j = 0;
      bool overflow = false;
      for (; j < s.size() && IsDigit(s[j]); ++j) {
        if (overflow) continue;
        if (f > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        uint64_t y = f * 10 + static_cast<uint64_t>(s[j] - '0');
        if (y > kLimit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j != 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return Invalid(orig);  // no digits, e.g. ".s"
    size_t k = 0;
    while (k < s.size() && s[k] != '.' && !IsDigit(s[k])) ++k;
    if (k == 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "time: missing unit in duration " + GoQuote(orig));
    }
    std::string_view u = s.substr(0, k);
    s.remove_prefix(k);
    const uint64_t unit = UnitNanos(u);
    if (unit == 0) {
      return MakeError(ErrorCode::kInvalidArgument, "time: unknown unit " + GoQuote(u) +
                                                        " in duration " + GoQuote(orig));
    }
    if (v > kLimit / unit) return Invalid(orig);
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kLimit) return Invalid(orig);
    }
    d += v;
    if (d > kLimit) return Invalid(orig);
  }
  if (neg) return std::chrono::nanoseconds(static_cast<int64_t>(0 - d));
  if (d > kLimit - 1) return Invalid(orig);
  return std::chrono::nanoseconds(static_cast<int64_t>(d));
}

namespace {

// FmtFrac writes v's last `prec` digits as a fraction into buf ending at w, omitting trailing
// zeros (and the dot when all are zero). Returns the new start and v / 10^prec.
size_t FmtFrac(char* buf, size_t w, uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    int digit = static_cast<int>(v % 10);
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return w;
}

size_t FmtInt(char* buf, size_t w, uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return w;
}

}  // namespace

std::string FormatDuration(std::chrono::nanoseconds d) {
  std::array<char, 32> buf;
  size_t w = buf.size();
  const int64_t n = d.count();
  uint64_t u = static_cast<uint64_t>(n);
  const bool neg = n < 0;
  if (neg) u = 0 - u;
  if (u < 1'000'000'000) {
    // Sub-second: use the largest unit that keeps an integer part, like Go.
    int prec = 0;
    buf[--w] = 's';
    if (u == 0) return "0s";
    if (u < 1000) {
      buf[--w] = 'n';
    } else if (u < 1'000'000) {
      prec = 3;
      buf[--w] = '\xB5';  // µ, U+00B5
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    w = FmtFrac(buf.data(), w, u, prec);
    w = FmtInt(buf.data(), w, u);
  } else {
    buf[--w] = 's';
    w = FmtFrac(buf.data(), w, u, 9);
    w = FmtInt(buf.data(), w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = FmtInt(buf.data(), w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        w = FmtInt(buf.data(), w, u);
      }
    }
  }
  if (neg) buf[--w] = '-';
  return std::string(buf.data() + w, buf.size() - w);
}

}  // namespace berth::shim
