// Property tests of Quantity::Parse against the grammar of apimachinery's resource.Quantity:
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | +<number> | -<number>
//   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>   (an integer)
// Random valid strings must parse to the exact value (an independent decimal-string oracle),
// and print a canonical form that parses back to the same value and prints the same again.
// Random and mutated strings are accepted exactly when they match the grammar (with upstream's
// leniencies: an empty number and a bare "." read as zero).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <regex>
#include <string>

#include "clientgo-shim/api/quantity.h"

namespace berth::shim {
namespace {

using Int128 = __int128;
using UInt128 = unsigned __int128;

std::string ToString(Int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  UInt128 u = negative ? static_cast<UInt128>(0) - static_cast<UInt128>(v) : static_cast<UInt128>(v);
  std::string out;
  while (u != 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + out : out;
}

struct Generated {
  std::string text;
  bool positive = true;
  std::string int_digits;
  std::string frac_digits;
  int base = 10;
  int64_t exponent = 0;  // power of `base`
};

class QuantityGrammar : public ::testing::Test {
 protected:
  std::mt19937_64 rng_{20261126};

  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string Digits(size_t max_len) {
    size_t len = 1 + Below(max_len);
    std::string out;
    for (size_t i = 0; i < len; ++i) out.push_back(static_cast<char>('0' + Below(10)));
    return out;
  }

  Generated Valid() {
    Generated g;
    switch (Below(3)) {
      case 1: g.text += "+"; break;
      case 2: g.text += "-"; g.positive = false; break;
      default: break;
    }
    // Mostly short numbers, sometimes long ones (beyond int64 and the 128-bit nano range).
    const size_t max_len = Below(4) == 0 ? 45 : 8;
    switch (Below(4)) {
      case 0: g.int_digits = Digits(max_len); break;
      case 1: g.int_digits = Digits(max_len); g.frac_digits = Digits(max_len); break;
      case 2: g.int_digits = Digits(max_len); break;  // "<digits>."
      default: g.frac_digits = Digits(max_len); break;
    }
    g.text += g.int_digits;
    if (!g.frac_digits.empty() || Below(4) == 0) g.text += ".";
    g.text += g.frac_digits;
    static const std::pair<const char*, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                          {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
    static const std::pair<const char*, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},
                                                           {"k", 3},  {"M", 6},  {"G", 9},  {"T", 12},
                                                           {"P", 15}, {"E", 18}};
    switch (Below(3)) {
      case 0: {
        const auto& [suffix, exp] = kBinary[Below(std::size(kBinary))];
        g.text += suffix;
        g.base = 2;
        g.exponent = exp;
        break;
      }
      case 1: {
        const auto& [suffix, exp] = kDecimal[Below(std::size(kDecimal))];
        g.text += suffix;
        g.exponent = exp;
        break;
      }
      default: {
        g.text += Below(2) == 0 ? "e" : "E";
        int64_t magnitude = static_cast<int64_t>(Below(Below(5) == 0 ? 400 : 40));
        bool negative = Below(2) == 0;
        if (negative) {
          g.text += "-";
        } else if (Below(3) == 0) {
          g.text += "+";
        }
        g.text += std::to_string(magnitude);
        g.exponent = negative ? -magnitude : magnitude;
        break;
      }
    }
    return g;
  }
};

// ExpectedNanos: ceil(|value| × 10^9) as a decimal string for a decimal quantity, by shifting
// digits; rounding up is a carry into the kept digits.
std::string ExpectedDecimalNanos(const Generated& g) {
  std::string digits = g.int_digits + g.frac_digits;
  int64_t shift = g.exponent + 9 - static_cast<int64_t>(g.frac_digits.size());
  if (shift >= 0) {
    digits.append(static_cast<size_t>(shift), '0');
  } else {
    size_t drop = static_cast<size_t>(-shift);
    bool sticky = false;
    if (drop >= digits.size()) {
      sticky = digits.find_first_not_of('0') != std::string::npos;
      digits = "0";
    } else {
      sticky = digits.find_first_not_of('0', digits.size() - drop) != std::string::npos;
      digits.resize(digits.size() - drop);
    }
    if (sticky) {
      size_t i = digits.size();
      while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
      if (i == 0) {
        digits.insert(digits.begin(), '1');
      } else {
        ++digits[i - 1];
      }
    }
  }
  size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// ExpectedBinaryNanos: ceil(|value| × 10^9) capped at (2^63-1) × 10^9, when 128 bits suffice
// for the oracle (nullopt otherwise).
std::optional<Int128> ExpectedBinaryNanos(const Generated& g) {
  std::string digits = g.int_digits + g.frac_digits;
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  digits = digits.substr(first);
  if (digits.size() > 30) return std::nullopt;
  UInt128 n = 0;
  for (char c : digits) n = n * 10 + static_cast<unsigned>(c - '0');
  UInt128 scaled;
  if (__builtin_mul_overflow(n, static_cast<UInt128>(1) << g.exponent, &scaled)) return std::nullopt;
  int64_t frac = static_cast<int64_t>(g.frac_digits.size());
  for (int64_t i = frac; i < 9; ++i) {
    if (__builtin_mul_overflow(scaled, static_cast<UInt128>(10), &scaled)) return std::nullopt;
  }
  if (frac > 9) {
    UInt128 divisor = 1;
    for (int64_t i = 9; i < frac; ++i) {
      if (__builtin_mul_overflow(divisor, static_cast<UInt128>(10), &divisor)) return std::nullopt;
    }
    scaled = scaled / divisor + (scaled % divisor != 0 ? 1 : 0);
  }
  const UInt128 cap = static_cast<UInt128>(INT64_MAX) * 1'000'000'000;
  return static_cast<Int128>(scaled > cap ? cap : scaled);
}

TEST_F(QuantityGrammar, EveryGeneratedQuantityParsesToItsExactValue) {
  const std::string kInt128Max = ToString(static_cast<Int128>(~static_cast<UInt128>(0) >> 1));
  int beyond = 0;
  for (int i = 0; i < 20000; ++i) {
    Generated g = Valid();
    auto q = Quantity::Parse(g.text);
    ASSERT_TRUE(q.has_value()) << g.text << ": " << q.error().message;
    const Int128 nanos = q->Nanos();
    if (g.base == 10) {
      std::string want = ExpectedDecimalNanos(g);
      const bool fits = want.size() < kInt128Max.size() ||
                        (want.size() == kInt128Max.size() && want < kInt128Max);
      if (!fits) {
        ++beyond;
        EXPECT_TRUE(q->IsBeyondNanoRange()) << g.text;
        EXPECT_EQ(q->MilliValue(), g.positive ? INT64_MAX : INT64_MIN) << g.text;
        continue;
      }
      if (!g.positive && want != "0") want = "-" + want;
      EXPECT_EQ(ToString(nanos), want) << g.text;
    } else if (auto want = ExpectedBinaryNanos(g)) {
      EXPECT_EQ(ToString(nanos), ToString(g.positive ? *want : -*want)) << g.text;
    }
  }
  EXPECT_GT(beyond, 100);  // the generator reaches the range beyond 128-bit nanos
}

TEST_F(QuantityGrammar, CanonicalFormsRoundTrip) {
  for (int i = 0; i < 20000; ++i) {
    Generated g = Valid();
    auto q = Quantity::Parse(g.text);
    ASSERT_TRUE(q.has_value()) << g.text;
    const std::string canonical = q->String();
    auto again = Quantity::Parse(canonical);
    ASSERT_TRUE(again.has_value()) << g.text << " printed as " << canonical;
    EXPECT_EQ(*again, *q) << g.text << " printed as " << canonical;
    EXPECT_EQ(again->String(), canonical) << g.text;
    EXPECT_EQ(again->MilliValue(), q->MilliValue()) << g.text;
  }
}

// InGrammar: the grammar above as a regular expression, with upstream's leniencies.
bool InGrammar(const std::string& s) {
  static const std::regex kGrammar(
      R"(^[+-]?[0-9]*\.?[0-9]*(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$)");
  return !s.empty() && std::regex_match(s, kGrammar);
}

TEST_F(QuantityGrammar, StringsAreAcceptedExactlyWhenTheyMatchTheGrammar) {
  const std::string alphabet = "0123456789+-.eEinumkKMGTPx ";
  int accepted = 0;
  int rejected = 0;
  auto check = [&](const std::string& s) {
    const bool want = InGrammar(s);
    auto q = Quantity::Parse(s);
    EXPECT_EQ(q.has_value(), want) << "\"" << s << "\"";
    if (!q) EXPECT_EQ(q.error().code, ErrorCode::kInvalidArgument);
    (want ? accepted : rejected)++;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    size_t len = Below(10);
    for (size_t k = 0; k < len; ++k) s.push_back(alphabet[Below(alphabet.size())]);
    check(s);
  }
  // Mutations of valid strings: near misses.
  for (int i = 0; i < 20000; ++i) {
    std::string s = Valid().text;
    if (s.size() > 12) s.resize(12);  // keeps exponents inside int64, as the regex assumes
    size_t pos = Below(s.size() + 1);
    char c = alphabet[Below(alphabet.size())];
    switch (Below(3)) {
      case 0: s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), c); break;
      case 1: if (pos < s.size()) s.erase(pos, 1); break;
      default: if (pos < s.size()) s[pos] = c; break;
    }
    check(s);
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
}

TEST(QuantityGrammarTest, RejectsExponentsBeyondInt64LikeGoParseInt) {
  EXPECT_TRUE(Quantity::Parse("1e9223372036854775807").has_value());
  EXPECT_TRUE(Quantity::Parse("1e-9223372036854775808").has_value());
  EXPECT_FALSE(Quantity::Parse("1e9223372036854775808").has_value());
  EXPECT_FALSE(Quantity::Parse("1e-9223372036854775809").has_value());
}

TEST(QuantityGrammarTest, MalformedInputNeverCrashes) {
  for (const char* bad : {"--", "..", "1..", "e+", "Ki1", "1Kii", "1e1e1", "1.e.1",
                          "+-", "1EE", "1Eie", "1 e3", "\t1", "1\n", "１", "1,5", "1_000", "0x10", "inf",
                          "NaN", "1e+-3"}) {
    auto q = Quantity::Parse(bad);
    EXPECT_FALSE(q.has_value()) << bad;
  }
}

}  // namespace
}  // namespace berth::shim
