#include "clientgo-shim/cache/cached_object.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

Result<ObjectPtr> Make(std::string_view text, InternPool& pool) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value());
  return CachedObject::FromJson(*doc, pool);
}

TEST(CachedObjectTest, IdentityFieldsAreReadableAndTheJsonRoundTrips) {
  InternPool pool;
  auto o = Make(R"({"metadata":{"name":"web-1","namespace":"prod","uid":"u-1",)"
                R"("resourceVersion":"42","labels":{"app":"web"}},"spec":{"nodeName":"n1"}})",
                pool);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ((*o)->Key(), "prod/web-1");
  EXPECT_EQ((*o)->Name(), "web-1");
  EXPECT_EQ((*o)->Namespace(), "prod");
  EXPECT_EQ((*o)->Uid(), "u-1");
  EXPECT_EQ((*o)->ResourceVersion(), "42");
  auto doc = (*o)->ToJson();
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::GetString(*doc, {"metadata", "name"}), "web-1");
  EXPECT_EQ(json::GetString(*doc, {"metadata", "namespace"}), "prod");
  EXPECT_EQ(json::GetString(*doc, {"metadata", "uid"}), "u-1");
  EXPECT_EQ(json::GetString(*doc, {"metadata", "resourceVersion"}), "42");
  EXPECT_EQ(json::GetString(*doc, {"metadata", "labels", "app"}), "web");
  EXPECT_EQ(json::GetString(*doc, {"spec", "nodeName"}), "n1");
  EXPECT_EQ((*o)->FindString({"spec", "nodeName"}), "n1");
  EXPECT_EQ((*o)->FindString({"metadata", "name"}), "web-1");
  EXPECT_EQ((*o)->FindString({"metadata", "resourceVersion"}), "42");
}

TEST(CachedObjectTest, FindFilteredViewDecodesWhatFindFilteredDoes) {
  InternPool pool;
  auto o = Make(R"({"metadata":{"name":"web-1","namespace":"prod","labels":{"app":"web"}},)"
                R"("spec":{"nodeName":"n1","volumes":[{"name":"v"}]},"status":{"phase":"Running"}})",
                pool);
  ASSERT_TRUE(o) << o.error().message;
  const PackedFilter spec{.drop = {"volumes"}};
  const PackedFilter root{.nested = {{"spec", &spec}}};
  rapidjson::Document copied, viewed;
  ASSERT_TRUE((*o)->FindFiltered(root, copied, copied.GetAllocator()));
  ASSERT_TRUE((*o)->FindFilteredView(root, viewed, viewed.GetAllocator()));
  EXPECT_EQ(json::Serialize(viewed), json::Serialize(copied));
  EXPECT_EQ(json::Serialize(viewed), R"({"metadata":{"labels":{"app":"web"}},"spec":{"nodeName":"n1"},)"
                                     R"("status":{"phase":"Running"}})");
}

TEST(CachedObjectTest, ClusterScopedObjectsAreKeyedByNameAlone) {
  InternPool pool;
  auto o = Make(R"({"metadata":{"name":"node-1","resourceVersion":"7"}})", pool);
  ASSERT_TRUE(o);
  EXPECT_EQ((*o)->Key(), "node-1");
  EXPECT_EQ((*o)->Namespace(), "");
  EXPECT_EQ((*o)->FindString({"metadata", "namespace"}), std::nullopt);
  auto doc = (*o)->ToJson();
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::Find(*doc, {"metadata", "namespace"}), nullptr);
}

TEST(CachedObjectTest, ObjectsWithoutNameOrMetadataAreRejected) {
  InternPool pool;
  for (const char* bad : {R"([])", R"("x")", R"({})", R"({"metadata":[]})",
                          R"({"metadata":{"namespace":"a"}})", R"({"metadata":{"name":5}})"}) {
    auto o = Make(bad, pool);
    EXPECT_FALSE(o) << bad;
    if (!o) {
      EXPECT_EQ(o.error().code, ErrorCode::kInvalidArgument);
    }
  }
  std::string huge_rv(300, '1');
  EXPECT_FALSE(Make(R"({"metadata":{"name":"a","resourceVersion":")" + huge_rv + "\"}}", pool));
}

TEST(CachedObjectTest, DestroyingTheLastObjectReleasesItsInternedStrings) {
  InternPool pool;
  {
    auto a = Make(R"({"metadata":{"name":"a","labels":{"k":"v"}}})", pool);
    auto b = Make(R"({"metadata":{"name":"b","labels":{"k":"v"}}})", pool);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(pool.Size(), 4u);  // metadata, labels, k, v
    a->reset();
    EXPECT_EQ(pool.Size(), 4u);  // still used by b
  }
  EXPECT_EQ(pool.Size(), 0u);
}

}  // namespace
}  // namespace berth::shim
