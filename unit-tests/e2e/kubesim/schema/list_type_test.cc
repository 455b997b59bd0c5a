// x-kubernetes-list-type set/map uniqueness: the second occurrence of a value or key is reported
// with kube-apiserver's `Duplicate value: …` wording; later repeats are not.
#include "e2e/kubesim/schema/list_type.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using testing::ParseJson;

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "spec": {"type": "object", "properties": {
      "units": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"},
                  "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}},
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"], "items": {"type": "object"}},
      "plain": {"type": "array", "items": {"type": "string"}},
      "byName": {"type": "object", "additionalProperties": {"type": "array",
                 "x-kubernetes-list-type": "set", "items": {"type": "integer"}}}
    }}
  }
})";

std::vector<std::string> Messages(const char* object) {
  auto schema = ParseJson(kSchema);
  auto data = ParseJson(object);
  std::vector<std::string> out;
  for (const auto& c : ValidateListSetsAndMaps(schema, data)) {
    EXPECT_EQ(c.type, "FieldValueDuplicate");
    out.push_back(FormatCause(c));
  }
  return out;
}

TEST(ListTypeTest, UniqueItemsPass) {
  EXPECT_TRUE(Messages(R"({"spec": {"units": [{"name": "a"}, {"name": "b"}], "plain": ["x", "x"]}})").empty());
}

TEST(ListTypeTest, DuplicateMapKeyIsReportedOnceWithTheKeyObject) {
  EXPECT_EQ(Messages(R"({"spec": {"units": [{"name": "a", "tags": []}, {"name": "b"}, {"name": "a"},
                                           {"name": "a", "tags": ["z"]}]}})"),
            (std::vector<std::string>{
                R"(spec.units[2]: Duplicate value: map[string]interface {}{"name":"a"})"}));
}

TEST(ListTypeTest, MultiKeyMapPrintsEveryKey) {
  EXPECT_EQ(Messages(R"({"spec": {"ports": [{"port": 80, "protocol": "TCP", "x": 1},
                                           {"port": 80, "protocol": "UDP"},
                                           {"protocol": "TCP", "port": 80}]}})"),
            (std::vector<std::string>{
                R"(spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"})"}));
}

TEST(ListTypeTest, SetsInsideItemsAndAdditionalProperties) {
  EXPECT_EQ(Messages(R"({"spec": {"units": [{"name": "a", "tags": ["x", "y", "x"]}],
                                  "byName": {"k": [1, 2, 2]}}})"),
            (std::vector<std::string>{R"(spec.units[0].tags[2]: Duplicate value: "x")",
                                      R"(spec.byName[k][2]: Duplicate value: 2)"}));
}

TEST(ListTypeTest, NonObjectInListMapIsInvalid) {
  auto schema = ParseJson(kSchema);
  auto data = ParseJson(R"({"spec": {"units": [{"name": "a"}, "b"]}})");
  auto causes = ValidateListSetsAndMaps(schema, data);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(FormatCause(causes[0]),
            R"(spec.units[1]: Invalid value: "b": must be an object for an array of list-type map)");
}

}  // namespace
}  // namespace berth::kubesim::schema
