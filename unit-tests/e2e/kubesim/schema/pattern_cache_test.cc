#include "e2e/kubesim/schema/pattern_cache.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace berth::kubesim::schema {
namespace {

TEST(PatternCacheTest, TheSamePatternIsCompiledOnceAndShared) {
  auto first = CompiledPattern("^[a-z]+-cache-shared$");
  auto second = CompiledPattern("^[a-z]+-cache-shared$");
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_TRUE(std::regex_search(std::string("abc-cache-shared"), **first));
  EXPECT_FALSE(std::regex_search(std::string("ABC-cache-shared"), **first));
}

TEST(PatternCacheTest, DistinctPatternsGetDistinctRegexes) {
  auto a = CompiledPattern("^a$");
  auto b = CompiledPattern("^b$");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a->get(), b->get());
  EXPECT_TRUE(std::regex_search(std::string("b"), **b));
  EXPECT_FALSE(std::regex_search(std::string("b"), **a));
}

TEST(PatternCacheTest, AnUncompilablePatternReportsTheRegexErrorAndIsNotCached) {
  size_t before = CachedPatternCount();
  auto bad = CompiledPattern("([");
  ASSERT_FALSE(bad.has_value());
  EXPECT_FALSE(bad.error().empty());
  EXPECT_EQ(CachedPatternCount(), before);
  EXPECT_FALSE(CompiledPattern("([").has_value());  // still an error the second time
}

TEST(PatternCacheTest, TheCacheNeverHoldsMoreThanItsBound) {
  for (size_t i = 0; i < kMaxCachedPatterns + 10; ++i) {
    auto re = CompiledPattern("^bound-" + std::to_string(i) + "$");
    ASSERT_TRUE(re.has_value());
    ASSERT_LE(CachedPatternCount(), kMaxCachedPatterns);
  }
  // A regex handed out before the cache started over stays valid for its holder.
  auto kept = CompiledPattern("^kept$");
  ASSERT_TRUE(kept.has_value());
  for (size_t i = 0; i < kMaxCachedPatterns; ++i) ASSERT_TRUE(CompiledPattern("^again-" + std::to_string(i) + "$"));
  EXPECT_TRUE(std::regex_search(std::string("kept"), **kept));
}

TEST(PatternCacheTest, ConcurrentCallersAllGetAWorkingRegex) {
  std::atomic<int> matched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto re = CompiledPattern("^(\\+|-)?[0-9]+(m|Mi|Gi)?$");
        if (re && std::regex_search(std::string("500m"), **re)) ++matched;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(matched.load(), 800);
}

}  // namespace
}  // namespace berth::kubesim::schema
