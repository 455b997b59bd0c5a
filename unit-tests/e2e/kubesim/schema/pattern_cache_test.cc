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
  EXPECT_TRUE(PatternMatches(**first, "abc-cache-shared"));
  EXPECT_FALSE(PatternMatches(**first, "ABC-cache-shared"));
}

TEST(PatternCacheTest, DistinctPatternsGetDistinctRegexes) {
  auto a = CompiledPattern("^a$");
  auto b = CompiledPattern("^b$");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a->get(), b->get());
  EXPECT_TRUE(PatternMatches(**b, "b"));
  EXPECT_FALSE(PatternMatches(**a, "b"));
}

TEST(PatternCacheTest, AnUncompilablePatternReportsTheRegexErrorAndIsNotCached) {
  size_t before = CachedPatternCount();
  auto bad = CompiledPattern("([");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error(), "error parsing regexp: missing closing ]: `[`");
  EXPECT_EQ(CachedPatternCount(), before);
  EXPECT_FALSE(CompiledPattern("([").has_value());  // still an error the second time
}

// Go's regexp syntax, which kube-apiserver validates `pattern` with: flags, Unicode classes, \z,
// named groups in Go's (?P<name>) form; and Go's leftmost-first search (a match anywhere).
TEST(PatternCacheTest, GoRegexpSyntaxAndSemantics) {
  struct Case {
    const char* pattern;
    const char* text;
    bool match;
  };
  for (const Case& c : std::vector<Case>{{"(?i)^[a-z]+$", "ABC", true},
                                         {"(?i)^[a-z]+$", "AB1", false},
                                         {"^\\pL+$", "ÄÖü", true},
                                         {"^\\p{Greek}+$", "αβγ", true},
                                         {"^\\p{Greek}+$", "abc", false},
                                         {"^a\\z", "a", true},
                                         {"^(?P<unit>m|Mi)$", "Mi", true},
                                         {"[0-9]", "abc1def", true},
                                         {"^(?s:.)$", "\n", true},
                                         {"^.$", "\n", false},
                                         {"^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", false}}) {
    auto re = CompiledPattern(c.pattern);
    ASSERT_TRUE(re.has_value()) << c.pattern << ": " << re.error();
    EXPECT_EQ(PatternMatches(**re, c.text), c.match) << c.pattern << " on " << c.text;
  }
  // Perl/ECMAScript constructs Go's regexp refuses are refused here too.
  for (const char* perl_only : {"^(?=a)a$", "^(a)\\1$", "a{,3}(?<!b)"}) {
    EXPECT_FALSE(CompiledPattern(perl_only).has_value()) << perl_only;
  }
  EXPECT_EQ(CompiledPattern("^(?=a)a$").error(), "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
  EXPECT_EQ(CompiledPattern("a**").error(), "error parsing regexp: invalid nested repetition operator: `**`");
  EXPECT_EQ(CompiledPattern("x{2,1}").error(), "error parsing regexp: invalid repeat count: `{2,1}`");
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
  EXPECT_TRUE(PatternMatches(**kept, "kept"));
}

TEST(PatternCacheTest, ConcurrentCallersAllGetAWorkingRegex) {
  std::atomic<int> matched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto re = CompiledPattern("^(\\+|-)?[0-9]+(m|Mi|Gi)?$");
        if (re && PatternMatches(**re, "500m")) ++matched;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(matched.load(), 800);
}

}  // namespace
}  // namespace berth::kubesim::schema
