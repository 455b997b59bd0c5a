// e2e/kubesim/schema/pattern_cache.cc — see pattern_cache.h.
#include "e2e/kubesim/schema/pattern_cache.h"

#include <map>
#include <mutex>

namespace berth::kubesim::schema {
namespace {

struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const re2::RE2>, std::less<>> patterns;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: validation may run during exit
  return *cache;
}

// GoRegexpError words RE2's parse error as Go's regexp.Compile does ("error parsing regexp: <code>:
// `<fragment>`"): RE2 and Go's regexp/syntax share their error classes.
std::string GoRegexpError(const re2::RE2& re) {
  const char* code = "regexp/syntax: internal error";
  switch (re.error_code()) {
    case re2::RE2::ErrorBadEscape: code = "invalid escape sequence"; break;
    case re2::RE2::ErrorBadCharClass: code = "invalid character class"; break;
    case re2::RE2::ErrorBadCharRange: code = "invalid character class range"; break;
    case re2::RE2::ErrorMissingBracket: code = "missing closing ]"; break;
    case re2::RE2::ErrorMissingParen: code = "missing closing )"; break;
    case re2::RE2::ErrorUnexpectedParen: code = "unexpected )"; break;
    case re2::RE2::ErrorTrailingBackslash: code = "trailing backslash at end of expression"; break;
    case re2::RE2::ErrorRepeatArgument: code = "missing argument to repetition operator"; break;
    case re2::RE2::ErrorRepeatSize: code = "invalid repeat count"; break;
    case re2::RE2::ErrorRepeatOp: code = "invalid nested repetition operator"; break;
    case re2::RE2::ErrorBadPerlOp: code = "invalid or unsupported Perl syntax"; break;
    case re2::RE2::ErrorBadUTF8: code = "invalid UTF-8"; break;
    case re2::RE2::ErrorBadNamedCapture: code = "invalid named capture"; break;
    case re2::RE2::ErrorPatternTooLarge: code = "expression too large"; break;
    default: break;
  }
  return std::string("error parsing regexp: ") + code + ": `" + re.error_arg() + "`";
}

}  // namespace

std::expected<std::shared_ptr<const re2::RE2>, std::string> CompiledPattern(std::string_view pattern) {
  Cache& cache = TheCache();
  {
    std::lock_guard lock(cache.mu);
    if (auto it = cache.patterns.find(pattern); it != cache.patterns.end()) return it->second;
  }
  // Compile outside the lock; two threads racing on a new pattern both compile, one copy wins.
  re2::RE2::Options options;
  options.set_log_errors(false);  // the error goes back in the Status, not to stderr
  auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return std::unexpected(GoRegexpError(*re));
  std::lock_guard lock(cache.mu);
  if (cache.patterns.size() >= kMaxCachedPatterns) cache.patterns.clear();
  auto [it, inserted] = cache.patterns.emplace(std::string(pattern), re);
  return it->second;
}

bool PatternMatches(const re2::RE2& re, std::string_view text) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

size_t CachedPatternCount() {
  Cache& cache = TheCache();
  std::lock_guard lock(cache.mu);
  return cache.patterns.size();
}

}  // namespace berth::kubesim::schema
