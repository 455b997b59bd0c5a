// Random objects whose subtrees repeat (so the pool shares them by shape and by bytes) must come
// back from the cache exactly as they went in, and the pool's references must balance: once every
// object is gone, so is every pooled string and subtree.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/cached_object.h"
#include "clientgo-shim/cache/packed_json.h"

namespace berth::shim {
namespace {

// RandomValue: nested objects and arrays drawn from a few shapes, so many repeat across objects;
// strings are short words (interned), sometimes an IP under "podIP" or a long text (inline).
std::string RandomValue(std::mt19937& rng, int depth) {
  const unsigned pick = rng() % (depth > 3 ? 6 : 9);
  switch (pick) {
    case 0: return "null";
    case 1: return rng() % 2 ? "true" : "false";
    case 2: return std::to_string(static_cast<int>(rng() % 200) - 100);
    case 3: return "1.5";
    case 4: return R"(")" + std::string(1 + rng() % 3, static_cast<char>('a' + rng() % 4)) + R"(")";
    case 5: return rng() % 8 ? R"("x")" : R"(")" + std::string(120, 'L') + R"(")";
    case 6: {
      std::string out = "[";
      for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) out += (i ? "," : "") + RandomValue(rng, depth + 1);
      return out + "]";
    }
    default: {
      std::string out = "{";
      for (int n = static_cast<int>(rng() % 4), i = 0; i < n; ++i) {
        const char* keys[] = {"name", "image", "podIP", "env", "k", "v"};
        out += std::string(i ? "," : "") + R"(")" + keys[rng() % 6] + (i ? std::to_string(i) : "") + R"(":)" +
               (rng() % 5 == 0 ? std::string(R"("10.0.0.)") + std::to_string(rng() % 9) + R"(")" : RandomValue(rng, depth + 1));
      }
      return out + "}";
    }
  }
}

TEST(PackedJsonRandomTest, RepeatingSubtreesRoundTripAndReleaseEveryReference) {
  InternPool pool;
  std::mt19937 rng(42);
  // Templates reused across objects: the pool shares a subtree once it has seen it twice.
  std::vector<std::string> templates;
  for (int i = 0; i < 12; ++i) {
    templates.push_back(R"({"containers":[{"name":"c)" + std::to_string(i % 4) + R"(","image":"img","args":["a","b"]}],"x":)" +
                        RandomValue(rng, 1) + R"(,"y":)" + RandomValue(rng, 1) + "}");
  }
  std::vector<ObjectPtr> objects;
  std::vector<std::string> sources;
  for (int i = 0; i < 600; ++i) {
    std::string text = R"({"metadata":{"name":"o)" + std::to_string(i) + R"(","namespace":"ns","uid":"u)" +
                       std::to_string(i) + R"(","resourceVersion":")" + std::to_string(i) + R"(","labels":)" +
                       (rng() % 2 ? std::string(R"({"app":"web"})") : templates[rng() % templates.size()]) +
                       R"(},"spec":)" + templates[rng() % templates.size()] + R"(,"status":)" +
                       (rng() % 3 ? templates[rng() % templates.size()] : RandomValue(rng, 1)) + "}";
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc) << text;
    auto obj = CachedObject::FromJson(*doc, pool);
    ASSERT_TRUE(obj) << text;
    objects.push_back(*obj);
    sources.push_back(std::move(text));
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    auto back = objects[i]->ToJson();
    ASSERT_TRUE(back);
    auto want = json::Parse(sources[i]);
    EXPECT_TRUE(*back == *want) << sources[i] << "\n" << json::Serialize(*back);
  }
  size_t shared = 0;
  for (const auto& obj : objects) shared += obj->PackedSize() < 40 ? 1 : 0;  // spec and status by reference
  EXPECT_GT(shared, 0u) << "some objects share their subtrees";
  EXPECT_GT(pool.Size(), 0u);
  objects.clear();
  EXPECT_EQ(pool.Size(), 0u) << "every reference an object took is released with it";
}

}  // namespace
}  // namespace berth::shim
