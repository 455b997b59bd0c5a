#include "e2e/kubesim/schema/crd_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Formatted;
using testing::LoadJson;
using testing::ParseJson;

rapidjson::Document ReservationCrd() {
  auto crd = ParseJson(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "reservations.scheduling.koordinator.sh"},
    "spec": {"group": "scheduling.koordinator.sh", "scope": "Cluster",
             "names": {"kind": "Reservation", "listKind": "ReservationList",
                       "plural": "reservations", "singular": "reservation"},
             "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                           "subresources": {"status": {}}, "schema": {}}]}})");
  auto schema = LoadJson("reservation_schema.json");
  json::SetMember((*json::FindMutable(crd, {"spec", "versions"}))[0]["schema"],
                  "openAPIV3Schema", rapidjson::Value(schema, crd.GetAllocator()),
                  crd.GetAllocator());
  return crd;
}

TEST(ValidateCrdSchemaTest, AcceptsTheReservationCrd) {
  EXPECT_THAT(ValidateCrdSchema(ReservationCrd()), IsEmpty());
}

TEST(ValidateCrdSchemaTest, ReportsMissingNamesGroupAndBadScope) {
  auto crd = ReservationCrd();
  auto& spec = *json::FindMutable(crd, {"spec"});
  json::RemoveMember(spec, "group");
  json::RemoveMember(*json::FindMutable(crd, {"spec", "names"}), "kind");
  json::SetString(spec, "scope", "Global", crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre("spec.group: Required value", "spec.names.kind: Required value",
                          R"(spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced")"));
}

TEST(ValidateCrdSchemaTest, NameMustBePluralDotGroup) {
  auto crd = ReservationCrd();
  json::SetString(*json::FindMutable(crd, {"metadata"}), "name", "reservation.x.io", crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre(R"(metadata.name: Invalid value: "reservation.x.io": must be spec.names.plural+"."+spec.group)"));
}

TEST(ValidateCrdSchemaTest, RequiresExactlyOneStorageVersion) {
  auto crd = ReservationCrd();
  auto& versions = *json::FindMutable(crd, {"spec", "versions"});
  rapidjson::Value second(versions[0], crd.GetAllocator());
  json::SetString(second, "name", "v1beta1", crd.GetAllocator());
  versions.PushBack(second, crd.GetAllocator());
  auto causes = ValidateCrdSchema(crd);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.versions");
  EXPECT_THAT(causes[0].message, ::testing::StartsWith(
      R"(Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1alpha1", Served:true, Storage:true,)"));
  EXPECT_THAT(causes[0].message, ::testing::EndsWith(": must have exactly one version marked as storage version"));

  auto none = ParseJson(R"({"metadata":{"name":"as.b.io"},"spec":{"group":"b.io","scope":"Cluster","names":{"plural":"as","kind":"A"}}})");
  EXPECT_THAT(Formatted(ValidateCrdSchema(none)),
              ElementsAre("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version"));
}

TEST(ValidateCrdSchemaTest, SchemaMustExistAndBeAnObjectAtTheRoot) {
  auto crd = ReservationCrd();
  auto& version = (*json::FindMutable(crd, {"spec", "versions"}))[0];
  json::RemoveMember(version, "schema");
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre("spec.validation.openAPIV3Schema: Required value: schemas are required"));

  auto typed = ParseJson(R"({"openAPIV3Schema":{"type":"string"}})");
  json::SetMember(version, "schema", rapidjson::Value(typed, crd.GetAllocator()), crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre(R"(spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root)"));

  auto untyped = ParseJson(R"({"openAPIV3Schema":{"x-kubernetes-preserve-unknown-fields":true}})");
  json::SetMember(version, "schema", rapidjson::Value(untyped, crd.GetAllocator()), crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre("spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"));
}

TEST(ValidateCrdSchemaTest, PatternsMustBeGoRegexpsAnywhereInTheSchema) {
  auto crd = ReservationCrd();
  auto& version = (*json::FindMutable(crd, {"spec", "versions"}))[0];
  auto schema = ParseJson(R"json({"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{
      "ok":{"type":"string","pattern":"(?i)^[a-z]+$"},
      "look":{"type":"string","pattern":"^(?=a)"},
      "tags":{"type":"array","items":{"type":"string","pattern":"(["}},
      "labels":{"type":"object","additionalProperties":{"type":"string","pattern":"a**"}}}}}}})json");
  json::SetMember(version, "schema", rapidjson::Value(schema, crd.GetAllocator()), crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre(
                  "spec.validation.openAPIV3Schema.properties[spec].properties[look].pattern: Invalid value: "
                  "\"^(?=a)\": must be a valid regular expression, but isn't: error parsing regexp: invalid or "
                  "unsupported Perl syntax: `(?=`",
                  "spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.pattern: Invalid value: "
                  "\"([\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: "
                  "`[`",
                  "spec.validation.openAPIV3Schema.properties[spec].properties[labels].additionalProperties.pattern: "
                  "Invalid value: \"a**\": must be a valid regular expression, but isn't: error parsing regexp: "
                  "invalid nested repetition operator: `**`"));
}

TEST(ValidateCrdSchemaTest, DifferentSchemasPerVersionAreReportedPerVersion) {
  auto crd = ReservationCrd();
  auto& versions = *json::FindMutable(crd, {"spec", "versions"});
  auto second = ParseJson(R"({"name":"v1beta1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"array"}}})");
  versions.PushBack(rapidjson::Value(second, crd.GetAllocator()), crd.GetAllocator());
  EXPECT_THAT(Formatted(ValidateCrdSchema(crd)),
              ElementsAre(R"(spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root)"));
}

TEST(ValidateCrdSchemaTest, MalformedManifestsNeverCrash) {
  const char* inputs[] = {R"(5)", R"([])", R"({"spec":7})", R"({"spec":{"versions":{"a":1}}})",
                          R"({"spec":{"versions":[1,null,{"schema":3}]}})",
                          R"({"spec":{"group":5,"names":[],"scope":true}})"};
  for (const char* text : inputs) {
    auto crd = ParseJson(text);
    EXPECT_FALSE(ValidateCrdSchema(crd).empty()) << text;
  }
}

}  // namespace
}  // namespace berth::kubesim::schema
