#include "e2e/kubesim/schema/defaulting.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using testing::LoadJson;
using testing::ParseJson;

TEST(ApplyDefaultsTest, FillsAbsentTtlAndAllocateOnceFromTheSchema) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::GetString(obj, {"spec", "ttl"}), "24h");
  const auto* once = json::Find(obj, {"spec", "allocateOnce"});
  ASSERT_NE(once, nullptr);
  EXPECT_TRUE(once->IsBool() && once->GetBool());
}

TEST(ApplyDefaultsTest, NeverOverridesValuesTheClientSet) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  auto& spec = *json::FindMutable(obj, {"spec"});
  json::SetString(spec, "ttl", "1h", obj.GetAllocator());
  json::SetMember(spec, "allocateOnce", rapidjson::Value(false), obj.GetAllocator());
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::GetString(obj, {"spec", "ttl"}), "1h");
  EXPECT_FALSE(json::Find(obj, {"spec", "allocateOnce"})->GetBool());
}

TEST(ApplyDefaultsTest, DoesNotCreateAbsentParentObjects) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  // status.phase and preAllocationPolicy.mode have defaults, but their parents are absent.
  EXPECT_EQ(json::Find(obj, {"status"}), nullptr);
  EXPECT_EQ(json::Find(obj, {"spec", "preAllocationPolicy"}), nullptr);
}

TEST(ApplyDefaultsTest, FillsDefaultsInsideParentsThatExist) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  json::EnsureObject(obj, "status", obj.GetAllocator());
  json::EnsureObject(*json::FindMutable(obj, {"spec"}), "preAllocationPolicy", obj.GetAllocator());
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::GetString(obj, {"status", "phase"}), "Pending");
  EXPECT_EQ(json::GetString(obj, {"spec", "preAllocationPolicy", "mode"}), "Default");
  const auto* multiple = json::Find(obj, {"spec", "preAllocationPolicy", "enableMultiple"});
  ASSERT_NE(multiple, nullptr);
  EXPECT_TRUE(multiple->IsFalse());
}

TEST(ApplyDefaultsTest, ReplacesNullOnlyWhenTheFieldIsNotNullable) {
  auto schema = ParseJson(R"({"type":"object","properties":{
      "a":{"type":"string","default":"x"},
      "b":{"type":"string","nullable":true,"default":"y"}}})");
  auto obj = ParseJson(R"({"a":null,"b":null})");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::Serialize(obj), R"({"a":"x","b":null})");
}

TEST(ApplyDefaultsTest, DefaultsArrayItemsAndAdditionalPropertiesValues) {
  auto schema = ParseJson(R"({"type":"object","properties":{
      "list":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer","default":80}}}},
      "nulls":{"type":"array","items":{"type":"string","default":"d"}},
      "byName":{"type":"object","additionalProperties":{"type":"object","properties":{"on":{"type":"boolean","default":true}}}}}})");
  auto obj = ParseJson(R"({"list":[{},{"port":8080}],"nulls":[null,"x"],"byName":{"a":{},"b":{"on":false}}})");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::Serialize(obj),
            R"({"list":[{"port":80},{"port":8080}],"nulls":["d","x"],"byName":{"a":{"on":true},"b":{"on":false}}})");
}

TEST(ApplyDefaultsTest, DefaultsInsideAFreshlyDefaultedObject) {
  auto schema = ParseJson(R"({"type":"object","properties":{
      "policy":{"type":"object","default":{},"properties":{"mode":{"type":"string","default":"Default"}}}}})");
  auto obj = ParseJson(R"({})");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::Serialize(obj), R"({"policy":{"mode":"Default"}})");
}

TEST(ApplyDefaultsTest, NullDefaultMeansNoDefault) {
  auto schema = ParseJson(R"({"type":"object","properties":{"a":{"type":"string","default":null}}})");
  auto obj = ParseJson(R"({})");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_EQ(json::Serialize(obj), "{}");
}

TEST(ApplyDefaultsTest, MalformedSchemasNeverCrashAndChangeNothing) {
  const char* schemas[] = {
      R"(5)", R"([])", R"({"type":5})", R"({"properties":[1,2]})",
      R"({"properties":{"a":5,"b":[],"c":{"default":null}}})", R"({"items":"x","additionalProperties":7})",
  };
  for (const char* text : schemas) {
    auto schema = ParseJson(text);
    auto obj = ParseJson(R"({"a":1,"list":[null,{}],"m":{"k":null}})");
    ApplyDefaults(schema, obj, obj.GetAllocator());
    EXPECT_EQ(json::Serialize(obj), R"({"a":1,"list":[null,{}],"m":{"k":null}})") << text;
  }
}

}  // namespace
}  // namespace berth::kubesim::schema
