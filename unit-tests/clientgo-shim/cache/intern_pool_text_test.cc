// SameText and TextHash read strings of up to 16 bytes as two overlapping words instead of calling
// memcmp and XXH3: every length must compare exactly as == does, and one changed byte anywhere
// must change the hash.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "clientgo-shim/cache/intern_pool.h"

namespace berth::shim {
namespace {

std::string RandomText(std::mt19937& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() % 256);  // NULs and high bytes included
  return s;
}

TEST(InternPoolTextTest, SameTextAgreesWithEqualityAtEveryLength) {
  std::mt19937 rng(7);
  for (size_t n = 0; n <= 40; ++n) {
    for (int round = 0; round < 50; ++round) {
      const std::string a = RandomText(rng, n);
      const std::string copy = a;  // other bytes, same text
      EXPECT_TRUE(SameText(a, copy)) << n;
      for (size_t at = 0; at < n; ++at) {
        std::string b = a;
        b[at] = static_cast<char>(b[at] ^ (1 + rng() % 255));
        EXPECT_FALSE(SameText(a, b)) << "length " << n << ", byte " << at;
      }
      EXPECT_FALSE(SameText(a, a + 'x'));
      EXPECT_FALSE(SameText(a + std::string(1, '\0'), a));
    }
  }
  EXPECT_TRUE(SameText(std::string_view(), std::string_view("")));  // a null view is empty
}

TEST(InternPoolTextTest, HashFollowsTheBytesNotTheirAddress) {
  std::mt19937 rng(11);
  for (size_t n = 0; n <= 40; ++n) {
    const std::string a = RandomText(rng, n);
    const std::string padded = "xyz" + a;  // the same bytes at another alignment
    EXPECT_EQ(TextHash{}(a), TextHash{}(std::string_view(padded).substr(3))) << n;
    for (size_t at = 0; at < n; ++at) {
      std::string b = a;
      b[at] = static_cast<char>(b[at] ^ 1);
      EXPECT_NE(TextHash{}(a), TextHash{}(b)) << "length " << n << ", byte " << at;
    }
  }
  // The length is part of the hash: trailing NULs read as zero words must not collide.
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 16; ++n) seen.insert(TextHash{}(std::string(n, '\0')));
  EXPECT_EQ(seen.size(), 17u);
}

TEST(InternPoolTextTest, ShortHashesSpreadOverTheTableTag) {
  // abseil's Swiss table takes 7 bits of the hash as a slot's tag: names that differ in one digit
  // (node-1, node-2, ...) must not share a few tags.
  std::set<uint64_t> tags, all;
  for (int i = 0; i < 5000; ++i) {
    const uint64_t h = TextHash{}("node-" + std::to_string(i));
    tags.insert(h & 0x7f);
    all.insert(h);
  }
  EXPECT_EQ(tags.size(), 128u);
  EXPECT_EQ(all.size(), 5000u);
}

TEST(InternPoolTextTest, PoolInternsShortAndLongTextsOnce) {
  InternPool pool;
  std::vector<uint32_t> ids;
  {
    InternPool::Batch batch(pool);
    for (const std::string s : {"", "a", "ab", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefghijklmnop",
                                "abcdefghijklmnopq", "registry.example.com/app-7:1.4.2"}) {
      const uint32_t first = batch.Intern(s);
      const std::string again = s;  // equal text from another buffer
      EXPECT_EQ(batch.Intern(again, TextHash{}(again)), first) << s;
      EXPECT_EQ(batch.Text(first), s);
      ids.push_back(first);
      ids.push_back(first);
    }
  }
  EXPECT_EQ(pool.Size(), 10u);
  pool.Release(ids);
  EXPECT_EQ(pool.Size(), 0u);
}

}  // namespace
}  // namespace berth::shim
