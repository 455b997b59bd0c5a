// SlotTable: the Store's key → slot map without stored keys. Checked against std::map under
// random inserts and erases, with colliding hash positions (small tables, clustered probes).
#include "clientgo-shim/cache/slot_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace berth::shim {
namespace {

TEST(SlotTableTest, FindsInsertedKeysAndForgetsErasedOnes) {
  std::vector<std::string> keys = {"ns/a", "ns/b", "other/a"};
  auto key_of = [&](uint32_t slot) { return std::string_view(keys[slot]); };
  SlotTable t;
  EXPECT_FALSE(t.Find("ns/a", key_of).has_value());
  EXPECT_FALSE(t.Erase("ns/a", 0));
  for (uint32_t i = 0; i < keys.size(); ++i) t.Insert(keys[i], i);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.Find("ns/a", key_of), 0u);
  EXPECT_EQ(t.Find("ns/b", key_of), 1u);
  EXPECT_EQ(t.Find("other/a", key_of), 2u);
  EXPECT_FALSE(t.Find("ns/c", key_of).has_value());
  EXPECT_FALSE(t.Erase("ns/b", 0));  // not filed under that key
  EXPECT_TRUE(t.Erase("ns/b", 1));
  EXPECT_FALSE(t.Find("ns/b", key_of).has_value());
  EXPECT_EQ(t.Find("other/a", key_of), 2u);
  EXPECT_EQ(t.size(), 2u);
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.Find("ns/a", key_of).has_value());
}

TEST(SlotTableTest, StaysAtMostSeventyPercentFull) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back("k" + std::to_string(i));
  SlotTable t;
  t.Reserve(keys.size());
  const size_t reserved = t.FootprintBytes();
  for (uint32_t i = 0; i < keys.size(); ++i) t.Insert(keys[i], i);
  EXPECT_EQ(t.FootprintBytes(), reserved);  // Reserve made room for all of them
  EXPECT_LE(keys.size() * 10, t.FootprintBytes() / 8 * 7);
  EXPECT_EQ(t.FootprintBytes(), 2048u * 8);  // the smallest power of two holding 1000 at ≤70%
}

// Random operations against a reference map; the keys' slots are reused as a Store reuses them.
TEST(SlotTableTest, MatchesAReferenceMapUnderRandomOperations) {
  std::mt19937 rng(11);
  std::vector<std::string> slots(400);  // slot → key ("" free)
  std::map<std::string, uint32_t> want;
  auto key_of = [&](uint32_t slot) { return std::string_view(slots[slot]); };
  SlotTable t;
  for (int step = 0; step < 20000; ++step) {
    const std::string key = "ns/pod-" + std::to_string(rng() % 600);
    auto it = want.find(key);
    if (it == want.end()) {
      if (want.size() >= 300) continue;  // keep free slots to find
      uint32_t slot = static_cast<uint32_t>(rng() % slots.size());
      while (!slots[slot].empty()) slot = static_cast<uint32_t>(rng() % slots.size());
      slots[slot] = key;
      want[key] = slot;
      ASSERT_FALSE(t.Find(key, key_of).has_value());
      t.Insert(key, slot);
    } else {
      ASSERT_TRUE(t.Erase(key, it->second)) << key;
      slots[it->second].clear();
      want.erase(it);
    }
    ASSERT_EQ(t.size(), want.size());
    if (step % 500 == 0) {
      for (const auto& [k, slot] : want) ASSERT_EQ(t.Find(k, key_of), slot) << k << " at step " << step;
      for (int i = 0; i < 600; ++i) {
        const std::string k = "ns/pod-" + std::to_string(i);
        ASSERT_EQ(t.Find(k, key_of).has_value(), want.contains(k)) << k;
      }
    }
  }
}

}  // namespace
}  // namespace berth::shim
