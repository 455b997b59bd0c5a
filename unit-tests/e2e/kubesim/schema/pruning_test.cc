#include "e2e/kubesim/schema/pruning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::LoadJson;
using testing::ParseJson;

TEST(PruneTest, AValidReservationLosesNothing) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  const std::string before = json::Serialize(obj);
  EXPECT_THAT(Prune(schema, obj), IsEmpty());
  EXPECT_EQ(json::Serialize(obj), before);
}

TEST(PruneTest, RemovesAndReportsUnknownSpecFieldButKeepsPreservedTemplate) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  auto& spec = *json::FindMutable(obj, {"spec"});
  json::SetString(spec, "foo", "bar", obj.GetAllocator());
  json::SetString(*json::FindMutable(obj, {"spec", "template", "spec"}), "madeUp", "kept",
                  obj.GetAllocator());
  EXPECT_THAT(Prune(schema, obj), ElementsAre("spec.foo"));
  EXPECT_EQ(json::Find(obj, {"spec", "foo"}), nullptr);
  EXPECT_EQ(json::GetString(obj, {"spec", "template", "spec", "madeUp"}), "kept");
  EXPECT_EQ(json::GetString(obj, {"spec", "template", "spec", "schedulerName"}), "koord-scheduler");
}

TEST(PruneTest, RootMetaFieldsAreNeverPrunedButOtherRootFieldsAre) {
  auto schema = ParseJson(R"({"type":"object","properties":{"spec":{"type":"object"}}})");
  auto obj = ParseJson(R"({"apiVersion":"v1","kind":"K","metadata":{"name":"a"},"extra":1,"spec":{"x":1}})");
  EXPECT_THAT(Prune(schema, obj), ElementsAre("extra", "spec.x"));
  EXPECT_EQ(json::Serialize(obj), R"({"apiVersion":"v1","kind":"K","metadata":{"name":"a"},"spec":{}})");
}

TEST(PruneTest, ReportsArrayPathsWithIndexesInSortedOrder) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  auto extra = ParseJson(R"([{"object":{"name":"a","bogus":1}},{"zzz":true,"labelSelector":{"matchLabels":{"app":"x"}}}])");
  json::SetMember(*json::FindMutable(obj, {"spec"}), "owners",
                  rapidjson::Value(extra, obj.GetAllocator()), obj.GetAllocator());
  EXPECT_THAT(Prune(schema, obj), ElementsAre("spec.owners[0].object.bogus", "spec.owners[1].zzz"));
  EXPECT_EQ(json::Serialize(*json::Find(obj, {"spec", "owners"})),
            R"([{"object":{"name":"a"}},{"labelSelector":{"matchLabels":{"app":"x"}}}])");
}

TEST(PruneTest, EmbeddedResourceKeepsTypeMetaAndMetadata) {
  auto schema = ParseJson(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "obj":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"data":{"type":"string"}}}}}}})");
  auto obj = ParseJson(R"({"spec":{"obj":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":"d","junk":1}}})");
  EXPECT_THAT(Prune(schema, obj), ElementsAre("spec.obj.junk"));
  EXPECT_EQ(json::Serialize(obj),
            R"({"spec":{"obj":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":"d"}}})");
}

TEST(PruneTest, MetaFieldNamesBelowTheRootArePrunedLikeAnyOtherField) {
  auto schema = ParseJson(R"({"type":"object","properties":{"spec":{"type":"object"}}})");
  auto obj = ParseJson(R"({"spec":{"metadata":{},"kind":"x"}})");
  EXPECT_THAT(Prune(schema, obj), ElementsAre("spec.kind", "spec.metadata"));
}

TEST(PruneTest, PreserveUnknownFieldsStillPrunesDeclaredChildren) {
  auto schema = ParseJson(R"({"type":"object","properties":{"spec":{"type":"object",
      "x-kubernetes-preserve-unknown-fields":true,
      "properties":{"known":{"type":"object","properties":{"a":{"type":"string"}}}}}}})");
  auto obj = ParseJson(R"({"spec":{"free":{"deep":1},"known":{"a":"x","b":"y"}}})");
  EXPECT_THAT(Prune(schema, obj), ElementsAre("spec.known.b"));
  EXPECT_EQ(json::Serialize(obj), R"({"spec":{"free":{"deep":1},"known":{"a":"x"}}})");
}

TEST(PruneTest, AdditionalPropertiesKeepUndeclaredKeysAndPruneTheirValues) {
  auto schema = ParseJson(R"({"type":"object","properties":{"m":{"type":"object",
      "additionalProperties":{"type":"object","properties":{"v":{"type":"integer"}}}}}})");
  auto obj = ParseJson(R"({"m":{"k1":{"v":1,"w":2},"k2":{}}})");
  EXPECT_THAT(Prune(schema, obj), ElementsAre("m.k1.w"));
  EXPECT_EQ(json::Serialize(obj), R"({"m":{"k1":{"v":1},"k2":{}}})");
}

TEST(PruneTest, IntOrStringAndOtherScalarsAreNeverPruned) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = ParseJson(R"({"status":{"allocatable":{"cpu":2,"memory":"1Gi"},"phase":"Available"}})");
  EXPECT_THAT(Prune(schema, obj), IsEmpty());
  EXPECT_EQ(json::Serialize(obj), R"({"status":{"allocatable":{"cpu":2,"memory":"1Gi"},"phase":"Available"}})");
}

TEST(PruneTest, StrictDecodingMessageUsesTheApiserverWording) {
  EXPECT_EQ(UnknownFieldMessage("spec.foo"), R"(unknown field "spec.foo")");
  EXPECT_EQ(StrictDecodingMessage({"spec.a", "spec.owners[0].b"}),
            R"(strict decoding error: unknown field "spec.a", unknown field "spec.owners[0].b")");
}

TEST(PruneTest, MalformedSchemasNeverCrash) {
  const char* schemas[] = {R"(5)", R"({"properties":7})", R"({"properties":{"spec":"x"}})",
                           R"({"x-kubernetes-preserve-unknown-fields":true,"items":3})",
                           R"({"properties":{"spec":{"additionalProperties":"no"}}})"};
  for (const char* text : schemas) {
    auto schema = ParseJson(text);
    auto obj = ParseJson(R"({"kind":"K","spec":{"a":[{"b":1}],"c":2}})");
    Prune(schema, obj);
    EXPECT_EQ(json::GetString(obj, {"kind"}), "K") << text;
  }
}

}  // namespace
}  // namespace berth::kubesim::schema
