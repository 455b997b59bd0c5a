// controllers/common/api_time: metav1.Time fields read and written by the codecs.
#include "controllers/common/api_time.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json_test_parse.h"

namespace berth::controllers {
namespace {

using json::testing::Parse;

TEST(ApiTimeTest, ReadsAnRfc3339TimestampAndWritesItBackTheSame) {
  auto doc = Parse(R"({"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}})");
  auto t = ReadTime(doc, {"metadata", "creationTimestamp"});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, reconcile::Time(std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} + std::chrono::hours(3) +
                                std::chrono::minutes(4) + std::chrono::seconds(5)));
  EXPECT_EQ(FormatTime(*t), "2026-01-02T03:04:05Z");
}

TEST(ApiTimeTest, AbsentEmptyOrMalformedIsNoTime) {
  auto doc = Parse(R"({"a":"","b":"yesterday","c":1767322800,"d":"2026-13-01T00:00:00Z","e":null})");
  for (const char* field : {"a", "b", "c", "d", "e", "missing"}) {
    EXPECT_FALSE(ReadTime(doc, {field}).has_value()) << field;
  }
}

TEST(ApiTimeTest, CreationTimeIsReadOrItsProblemNamed) {
  std::vector<std::string> errors;
  auto good = Parse(R"({"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}})");
  EXPECT_EQ(FormatTime(ReadCreationTime(good, errors)), "2026-01-02T03:04:05Z");
  EXPECT_TRUE(errors.empty());

  for (const char* absent : {R"({})", R"({"metadata":{}})", R"({"metadata":{"creationTimestamp":null}})",
                             R"({"metadata":{"creationTimestamp":""}})"}) {
    EXPECT_EQ(ReadCreationTime(Parse(absent), errors), reconcile::Time{}) << absent;
  }
  EXPECT_TRUE(errors.empty());

  EXPECT_EQ(ReadCreationTime(Parse(R"({"metadata":{"creationTimestamp":"yesterday"}})"), errors), reconcile::Time{});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "metadata.creationTimestamp: Invalid value: \"yesterday\": not an RFC 3339 time");
  ReadCreationTime(Parse(R"({"metadata":{"creationTimestamp":1767322800}})"), errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1], "metadata.creationTimestamp: Invalid value: must be an RFC 3339 string");
}

TEST(ApiTimeTest, ConditionsAreWrittenWithTheirOptionalFieldsLeftOutWhenEmpty) {
  const reconcile::Time t(std::chrono::sys_days{std::chrono::year{2026} / 1 / 2});
  std::vector<reconcile::Condition> conditions = {
      {"Ready", "True", "Available", "ready to serve", t, std::nullopt},
      {"Scheduled", "False", "", "", std::nullopt, t},
  };
  rapidjson::Document doc;
  rapidjson::Value out = ConditionsJson(conditions, doc.GetAllocator());
  EXPECT_EQ(json::Serialize(out),
            R"([{"type":"Ready","status":"True","reason":"Available","message":"ready to serve",)"
            R"("lastTransitionTime":"2026-01-02T00:00:00Z"},)"
            R"({"type":"Scheduled","status":"False","lastProbeTime":"2026-01-02T00:00:00Z"}])");
  EXPECT_EQ(json::Serialize(ConditionsJson({}, doc.GetAllocator())), "[]");
}

}  // namespace
}  // namespace berth::controllers
