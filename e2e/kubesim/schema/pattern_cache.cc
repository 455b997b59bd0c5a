// e2e/kubesim/schema/pattern_cache.cc — see pattern_cache.h.
#include "e2e/kubesim/schema/pattern_cache.h"

#include <map>
#include <mutex>

namespace berth::kubesim::schema {
namespace {

struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const std::regex>, std::less<>> patterns;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: validation may run during exit
  return *cache;
}

}  // namespace

std::expected<std::shared_ptr<const std::regex>, std::string> CompiledPattern(std::string_view pattern) {
  Cache& cache = TheCache();
  {
    std::lock_guard lock(cache.mu);
    if (auto it = cache.patterns.find(pattern); it != cache.patterns.end()) return it->second;
  }
  // Compile outside the lock; two threads racing on a new pattern both compile, one copy wins.
  std::shared_ptr<const std::regex> re;
  try {
    re = std::make_shared<const std::regex>(std::string(pattern), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return std::unexpected(std::string(e.what()));
  }
  std::lock_guard lock(cache.mu);
  if (cache.patterns.size() >= kMaxCachedPatterns) cache.patterns.clear();
  auto [it, inserted] = cache.patterns.emplace(std::string(pattern), re);
  return it->second;
}

size_t CachedPatternCount() {
  Cache& cache = TheCache();
  std::lock_guard lock(cache.mu);
  return cache.patterns.size();
}

}  // namespace berth::kubesim::schema
