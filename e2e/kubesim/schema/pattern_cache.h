// e2e/kubesim/schema/pattern_cache.h
//
// Process-wide cache of compiled `pattern` regexes for CRD schema validation. Patterns are RE2
// (Debian's libre2): the syntax and semantics of Go's regexp, which kube-apiserver uses, so
// `(?i)`, `\pL` and friends work and no pattern can take exponential time. Compiling costs far
// more than matching, and CRD schemas repeat the same few patterns, so every request shares one
// compiled copy. A const RE2 is safe to match from many threads at once.
// Bounded: past kMaxCachedPatterns distinct patterns the cache starts over, so a stream of
// ever-new CRDs cannot grow it without limit.
#pragma once

#include <cstddef>
#include <expected>
#include <memory>
#include <string>
#include <string_view>

#include <re2/re2.h>

namespace berth::kubesim::schema {

inline constexpr size_t kMaxCachedPatterns = 1024;

// CompiledPattern returns the RE2 regex for `pattern`, compiling it on first use.
// Errors: the parse error in Go's words (`error parsing regexp: missing closing ]: `[``) when the
// pattern does not compile (not cached).
std::expected<std::shared_ptr<const re2::RE2>, std::string> CompiledPattern(std::string_view pattern);

// PatternMatches: whether `re` matches anywhere in `text`, as Go's regexp.MatchString.
bool PatternMatches(const re2::RE2& re, std::string_view text);

// CachedPatternCount is the number of patterns currently cached (for tests).
size_t CachedPatternCount();

}  // namespace berth::kubesim::schema
