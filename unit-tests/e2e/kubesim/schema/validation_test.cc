#include "e2e/kubesim/schema/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/defaulting.h"
#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Formatted;
using testing::LoadJson;
using testing::ParseJson;

// ReservationWithSpec returns the valid Reservation with spec.<field> replaced by `value_json`
// (or removed when value_json is empty).
rapidjson::Document ReservationWith(const std::string& field, const std::string& value_json) {
  auto obj = LoadJson("reservation_valid.json");
  auto& spec = *json::FindMutable(obj, {"spec"});
  if (value_json.empty()) {
    json::RemoveMember(spec, field);
  } else {
    auto value = ParseJson(value_json);
    json::SetMember(spec, field, rapidjson::Value(value, obj.GetAllocator()), obj.GetAllocator());
  }
  return obj;
}

TEST(ValidateTest, AcceptsAValidDefaultedReservation) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = LoadJson("reservation_valid.json");
  ApplyDefaults(schema, obj, obj.GetAllocator());
  EXPECT_THAT(Validate(schema, obj), IsEmpty());
}

TEST(ValidateTest, EmptyOwnersReportsMinItemsWithTheApiserverMessage) {
  auto schema = LoadJson("reservation_schema.json");
  auto causes = Validate(schema, ReservationWith("owners", "[]"));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0], (Cause{"FieldValueInvalid", "spec.owners",
                              "Invalid value: 0: spec.owners in body should have at least 1 items"}));
  EXPECT_EQ(FormatCause(causes[0]),
            "spec.owners: Invalid value: 0: spec.owners in body should have at least 1 items");
}

TEST(ValidateTest, MissingTemplateIsARequiredValue) {
  auto schema = LoadJson("reservation_schema.json");
  auto causes = Validate(schema, ReservationWith("template", ""));
  EXPECT_THAT(causes, ElementsAre(Cause{"FieldValueRequired", "spec.template", "Required value"}));
}

TEST(ValidateTest, WrongTypeIsATypeInvalidCauseNamingTheActualType) {
  auto schema = LoadJson("reservation_schema.json");
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("ttl", "5"))),
              ElementsAre(R"(spec.ttl: Invalid value: "integer": spec.ttl in body must be of type string: "integer")"));
  EXPECT_THAT(Validate(schema, ReservationWith("allocateOnce", R"("yes")")),
              ElementsAre(Cause{"FieldValueTypeInvalid", "spec.allocateOnce",
                                R"(Invalid value: "string": spec.allocateOnce in body must be of type boolean: "string")"}));
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("owners", R"({"a":1})"))),
              ElementsAre(R"(spec.owners: Invalid value: "object": spec.owners in body must be of type array: "object")"));
}

TEST(ValidateTest, EnumViolationListsSupportedValues) {
  auto schema = LoadJson("reservation_schema.json");
  EXPECT_THAT(Validate(schema, ReservationWith("allocatePolicy", R"("X")")),
              ElementsAre(Cause{"FieldValueNotSupported", "spec.allocatePolicy",
                                R"(Unsupported value: "X": supported values: "Aligned", "Restricted")"}));
}

TEST(ValidateTest, TypeErrorDoesNotHideTheEnumError) {
  auto schema = LoadJson("reservation_schema.json");
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("allocatePolicy", "7"))),
              ElementsAre(R"(spec.allocatePolicy: Invalid value: "integer": spec.allocatePolicy in body must be of type string: "integer")",
                          R"(spec.allocatePolicy: Unsupported value: 7: supported values: "Aligned", "Restricted")"));
}

TEST(ValidateTest, EmptyOwnerItemFailsMinProperties) {
  auto schema = LoadJson("reservation_schema.json");
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("owners", "[{}]"))),
              ElementsAre("spec.owners[0]: Invalid value: 0: spec.owners[0] in body should have at least 1 properties"));
}

TEST(ValidateTest, NestedRequiredFieldsUseDottedPathsAfterPropertyErrors) {
  auto schema = LoadJson("reservation_schema.json");
  auto causes = Validate(schema, ReservationWith("owners", R"([{"controller":{"kind":5,"name":"rs"}}])"));
  EXPECT_THAT(Formatted(causes),
              ElementsAre(R"(spec.owners[0].controller.kind: Invalid value: "integer": spec.owners[0].controller.kind in body must be of type string: "integer")",
                          "spec.owners[0].controller.apiVersion: Required value",
                          "spec.owners[0].controller.uid: Required value"));
}

TEST(ValidateTest, InvalidMessageJoinsSeveralCausesInBrackets) {
  auto schema = LoadJson("reservation_schema.json");
  auto obj = ReservationWith("owners", "[]");
  json::RemoveMember(*json::FindMutable(obj, {"spec"}), "template");
  auto causes = Validate(schema, obj);
  EXPECT_EQ(FormatInvalidMessage("Reservation.scheduling.koordinator.sh", "r1", causes),
            R"(Reservation.scheduling.koordinator.sh "r1" is invalid: [spec.owners: Invalid value: 0: spec.owners in body should have at least 1 items, spec.template: Required value])");
  causes.pop_back();
  EXPECT_EQ(FormatInvalidMessage("Reservation.scheduling.koordinator.sh", "r1", causes),
            R"(Reservation.scheduling.koordinator.sh "r1" is invalid: spec.owners: Invalid value: 0: spec.owners in body should have at least 1 items)");
}

TEST(ValidateTest, DateTimeFormatIsChecked) {
  auto schema = LoadJson("reservation_schema.json");
  EXPECT_THAT(Validate(schema, ReservationWith("expires", R"("2024-02-29T10:00:00Z")")), IsEmpty());
  EXPECT_THAT(Validate(schema, ReservationWith("expires", R"("2024-02-29T10:00:00.123+08:00")")), IsEmpty());
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("expires", R"("tomorrow")"))),
              ElementsAre(R"(spec.expires: Invalid value: "tomorrow": spec.expires in body must be of type date-time: "tomorrow")"));
  EXPECT_THAT(Validate(schema, ReservationWith("expires", R"("2023-02-29T10:00:00Z")")).size(), 1u);
  EXPECT_THAT(Validate(schema, ReservationWith("expires", R"("2024-01-01T24:00:00Z")")).size(), 1u);
  // A non-string against a formatted field reports the format, as kube-openapi does.
  EXPECT_THAT(Formatted(Validate(schema, ReservationWith("expires", "5"))),
              ElementsAre(R"(spec.expires: Invalid value: "int64": spec.expires in body must be of type date-time: "int64")"));
}

TEST(ValidateTest, IntOrStringAcceptsBothAndRejectsOthers) {
  auto schema = LoadJson("reservation_schema.json");
  auto ok = ParseJson(R"({"status":{"allocatable":{"cpu":2,"memory":"1Gi"}}})");
  EXPECT_THAT(Validate(schema, ok), IsEmpty());
  auto bad = ParseJson(R"({"status":{"allocatable":{"cpu":true,"memory":"lots"}}})");
  EXPECT_THAT(Formatted(Validate(schema, bad)),
              ElementsAre(R"(status.allocatable.cpu: Invalid value: "boolean": status.allocatable.cpu in body must be of type integer,string: "boolean")",
                          R"(status.allocatable.memory: Invalid value: "lots": status.allocatable.memory in body should match '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')"));
}

// Inline schema exercising the remaining keywords.
constexpr const char* kLimits = R"({"type":"object","properties":{
  "i":{"type":"integer","minimum":1,"maximum":10},
  "ex":{"type":"number","minimum":0,"exclusiveMinimum":true,"maximum":1.5,"exclusiveMaximum":true},
  "n":{"type":"number"},
  "s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"},
  "arr":{"type":"array","maxItems":2,"items":{"type":"integer","multipleOf":5}},
  "m":{"type":"object","maxProperties":1},
  "strict":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}},
  "opt":{"type":"string","nullable":true},
  "req":{"type":"string"}}})";

std::vector<std::string> CheckLimits(const std::string& object) {
  auto schema = ParseJson(kLimits);
  return Formatted(Validate(schema, ParseJson(object)));
}

TEST(ValidateTest, IntegerAcceptsIntegralFloatsButNotFractions) {
  EXPECT_THAT(CheckLimits(R"({"i":1.0})"), IsEmpty());
  EXPECT_THAT(CheckLimits(R"({"i":1.5})"),
              ElementsAre(R"(i: Invalid value: "number": i in body must be of type integer: "number")"));
  EXPECT_THAT(CheckLimits(R"({"n":3})"), IsEmpty());
}

TEST(ValidateTest, NumericBoundsUseTheApiserverWording) {
  EXPECT_THAT(CheckLimits(R"({"i":0})"), ElementsAre("i: Invalid value: 0: i in body should be greater than or equal to 1"));
  EXPECT_THAT(CheckLimits(R"({"i":11})"), ElementsAre("i: Invalid value: 11: i in body should be less than or equal to 10"));
  EXPECT_THAT(CheckLimits(R"({"ex":0})"), ElementsAre("ex: Invalid value: 0: ex in body should be greater than 0"));
  EXPECT_THAT(CheckLimits(R"({"ex":1.5})"), ElementsAre("ex: Invalid value: 1.5: ex in body should be less than 1.5"));
  EXPECT_THAT(CheckLimits(R"({"ex":0.5})"), IsEmpty());
}

TEST(ValidateTest, StringLimitsReportOnlyTheFirstFailure) {
  EXPECT_THAT(CheckLimits(R"({"s":"abcde"})"), ElementsAre("s: Too long: may not be longer than 4"));
  EXPECT_THAT(CheckLimits(R"({"s":"a"})"), ElementsAre(R"(s: Invalid value: "a": s in body should be at least 2 chars long)"));
  EXPECT_THAT(CheckLimits(R"({"s":"AB"})"), ElementsAre(R"(s: Invalid value: "AB": s in body should match '^[a-z]+$')"));
  EXPECT_THAT(CheckLimits(R"({"s":"äöü"})"), ElementsAre(R"(s: Invalid value: "äöü": s in body should match '^[a-z]+$')"));
}

TEST(ValidateTest, CollectionLimitsReportTooManyAndItemErrors) {
  auto schema = ParseJson(kLimits);
  auto causes = Validate(schema, ParseJson(R"({"arr":[5,7,10]})"));
  EXPECT_THAT(Formatted(causes),
              ElementsAre("arr[1]: Invalid value: 7: arr[1] in body should be a multiple of 5",
                          "arr: Too many: 3: must have at most 2 items"));
  EXPECT_EQ(causes[1].type, "FieldValueTooMany");
  EXPECT_THAT(CheckLimits(R"({"m":{"a":1,"b":2}})"), ElementsAre("m: Too many: 2: must have at most 1 items"));
  EXPECT_THAT(CheckLimits(R"({"strict":{"a":"x","b":"y"}})"),
              ElementsAre(R"(strict: Invalid value: "b": strict.b in body is a forbidden property)"));
}

TEST(ValidateTest, NullIsAcceptedOnlyForNullableFields) {
  EXPECT_THAT(CheckLimits(R"({"opt":null})"), IsEmpty());
  EXPECT_THAT(CheckLimits(R"({"req":null})"),
              ElementsAre(R"(req: Invalid value: "null": req in body must be of type string: "null")"));
}

TEST(ValidateTest, MalformedSchemasNeverCrash) {
  const char* schemas[] = {
      R"({"type":5,"required":"x"})",
      R"({"type":"object","required":[1,"spec"],"properties":{"spec":{"minItems":"a","enum":"x"}}})",
      R"({"properties":{"spec":{"type":"object","minProperties":-1,"maxProperties":1e300}}})",
      R"({"properties":{"spec":{"items":[1],"additionalProperties":5,"properties":{"a":7}}}})",
      R"({"properties":{"spec":{"type":["object"],"nullable":"yes","x-kubernetes-int-or-string":1}}})",
      R"({"properties":{"spec":{"multipleOf":0,"minimum":"1","maximum":null}}})",
      R"([])", R"(null)"};
  for (const char* text : schemas) {
    auto schema = ParseJson(text);
    auto obj = ParseJson(R"({"spec":{"a":[1,2.5,"x",null,{"b":{}}],"n":3}})");
    EXPECT_NO_THROW(Validate(schema, obj)) << text;
  }
  auto required_only = ParseJson(R"({"type":"object","required":[1,"spec","gone"]})");
  EXPECT_THAT(Formatted(Validate(required_only, ParseJson(R"({"spec":{}})"))),
              ElementsAre("gone: Required value"));
}

TEST(ValidateTest, UncompilablePatternIsReportedNotThrown) {
  auto schema = ParseJson(R"({"type":"object","properties":{"s":{"type":"string","pattern":"(["}}})");
  auto causes = Validate(schema, ParseJson(R"({"s":"x"})"));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "s");
  EXPECT_EQ(causes[0].message, "Invalid value: \"x\": s in body should match '([, but pattern is invalid: "
                               "error parsing regexp: missing closing ]: `[`'");
}

TEST(ValidateTest, PatternsAreGoRegexps) {
  // (?i) is Go syntax that ECMAScript lacks: before RE2 every object failed this pattern.
  auto schema = ParseJson(R"({"type":"object","properties":{"s":{"type":"string","pattern":"(?i)^[a-z]+$"}}})");
  EXPECT_THAT(Validate(schema, ParseJson(R"({"s":"MiXed"})")), IsEmpty());
  EXPECT_THAT(Formatted(Validate(schema, ParseJson(R"({"s":"no-dash"})"))),
              ElementsAre("s: Invalid value: \"no-dash\": s in body should match '(?i)^[a-z]+$'"));
}

TEST(ValidateTest, DeeplyNestedSchemasAndDataStopAtTheDepthLimit) {
  std::string schema_text = "{}";
  std::string data = "1";
  for (int i = 0; i < 300; ++i) {
    schema_text = R"({"type":"array","items":)" + schema_text + "}";
    data = "[" + data + "]";
  }
  auto schema = ParseJson(schema_text);
  auto obj = ParseJson(data);
  EXPECT_THAT(Validate(schema, obj), IsEmpty());
}

}  // namespace
}  // namespace berth::kubesim::schema
