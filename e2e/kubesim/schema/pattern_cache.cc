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
  if (!re->ok()) return std::unexpected(re->error());
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
