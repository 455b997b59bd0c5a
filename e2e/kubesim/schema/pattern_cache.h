// e2e/kubesim/schema/pattern_cache.h
//
// Process-wide cache of compiled `pattern` regexes for CRD schema validation. Compiling a
// std::regex costs far more than matching with it (a quantity pattern took ~0.3 ms to compile,
// once per validated field per request), and CRD schemas repeat the same few patterns, so every
// request shares one compiled copy. std::regex is safe to match from many threads at once.
// Bounded: past kMaxCachedPatterns distinct patterns the cache starts over, so a stream of
// ever-new CRDs cannot grow it without limit.
#pragma once

#include <cstddef>
#include <expected>
#include <memory>
#include <regex>
#include <string>
#include <string_view>

namespace berth::kubesim::schema {

inline constexpr size_t kMaxCachedPatterns = 1024;

// CompiledPattern returns the ECMAScript regex for `pattern`, compiling it on first use.
// Errors: the std::regex_error text when the pattern does not compile (not cached).
std::expected<std::shared_ptr<const std::regex>, std::string> CompiledPattern(std::string_view pattern);

// CachedPatternCount is the number of patterns currently cached (for tests).
size_t CachedPatternCount();

}  // namespace berth::kubesim::schema
