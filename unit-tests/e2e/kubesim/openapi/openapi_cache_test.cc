#include "e2e/kubesim/openapi/openapi_cache.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/v3_document.h"
#include "test_resources.h"

namespace berth::kubesim::openapi {
namespace {

using testing::Builtin;
using testing::KubesimResources;

TEST(OpenApiCacheTest, SameGenerationReturnsTheCachedDocument) {
  OpenApiCache cache;
  auto resources = KubesimResources();
  OpenApiCache::Text first = cache.GroupVersion(1, "api/v1", resources);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(*first, *BuildV3GroupVersion("api/v1", resources));
  // Even if the caller forgot to bump the generation, the cached text is returned.
  OpenApiCache::Text second = cache.GroupVersion(1, "api/v1", {});
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(cache.GroupVersion(1, "apis/batch/v1", resources), nullptr);
}

TEST(OpenApiCacheTest, NewGenerationRebuildsRootAndDocuments) {
  OpenApiCache cache;
  auto resources = KubesimResources();
  std::string root1 = *cache.Root(1, resources);
  EXPECT_EQ(root1, json::Serialize(BuildV3Root(resources)));
  EXPECT_EQ(cache.GroupVersion(1, "apis/example.com/v1", resources), nullptr);

  resources.push_back(Builtin("example.com", "Widget", "widgets", true));
  EXPECT_EQ(*cache.Root(1, resources), root1);  // stale by contract until the generation moves
  std::string root2 = *cache.Root(2, resources);
  EXPECT_NE(root2, root1);
  EXPECT_NE(root2.find("apis/example.com/v1"), std::string::npos);
  EXPECT_NE(cache.GroupVersion(2, "apis/example.com/v1", resources), nullptr);
}

TEST(OpenApiCacheTest, V2IsCachedPerGeneration) {
  OpenApiCache cache;
  auto resources = KubesimResources();
  OpenApiCache::Text a = cache.V2(3, resources);
  EXPECT_EQ(a.get(), cache.V2(3, resources).get());
  EXPECT_NE(a.get(), cache.V2(4, resources).get());
}

}  // namespace
}  // namespace berth::kubesim::openapi
