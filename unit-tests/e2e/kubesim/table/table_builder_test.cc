#include "e2e/kubesim/table/table_builder.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/kubesim/table/crd_columns.h"
#include "test_util.h"

namespace berth::kubesim::table {
namespace {

using testing::At;
using testing::ParseJson;

const TimePoint kNow = At("2024-05-01T12:00:00Z");

constexpr std::string_view kPod = R"({"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "41",
               "creationTimestamp": "2024-05-01T11:00:00Z", "labels": {"app": "web"}},
  "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}})";

TEST(BuildTable, WrapsRowsInAMetaV1TableWithListMetadata) {
  rapidjson::Document pod = ParseJson(kPod);
  TableRequest req;
  req.resource = "pods";
  req.list_metadata = {"42", "token-2", 7};
  rapidjson::Document t = BuildTable(req, {&pod, &pod}, kNow);
  EXPECT_EQ(json::Serialize(t["metadata"]), R"({"resourceVersion":"42","continue":"token-2","remainingItemCount":7})");
  EXPECT_STREQ(t["kind"].GetString(), "Table");
  EXPECT_STREQ(t["apiVersion"].GetString(), "meta.k8s.io/v1");
  EXPECT_EQ(t["rows"].Size(), 2u);
  // Key order follows the Go struct, which kubectl does not need but humans reading dumps do.
  auto it = t.MemberBegin();
  for (const char* key : {"kind", "apiVersion", "metadata", "columnDefinitions", "rows"}) {
    ASSERT_NE(it, t.MemberEnd());
    EXPECT_STREQ(it->name.GetString(), key);
    ++it;
  }
  const auto& col = t["columnDefinitions"][0];
  for (const char* key : {"name", "type", "format", "description", "priority"}) {
    EXPECT_TRUE(col.HasMember(key)) << key;  // no omitempty on column fields
  }
}

TEST(BuildTable, EmptyListHasEmptyRowsAndBareMetadata) {
  TableRequest req;
  req.resource = "pods";
  rapidjson::Document t = BuildTable(req, {}, kNow);
  EXPECT_TRUE(t["rows"].IsArray());
  EXPECT_EQ(t["rows"].Size(), 0u);
  EXPECT_EQ(json::Serialize(t["metadata"]), "{}");
  EXPECT_EQ(t["columnDefinitions"].Size(), 9u);
}

TEST(BuildTable, DefaultIncludeObjectIsPartialObjectMetadata) {
  rapidjson::Document pod = ParseJson(kPod);
  TableRequest req;
  req.resource = "pods";
  rapidjson::Document t = BuildTable(req, {&pod}, kNow);
  const auto& obj = t["rows"][0]["object"];
  EXPECT_STREQ(obj["kind"].GetString(), "PartialObjectMetadata");
  EXPECT_STREQ(obj["apiVersion"].GetString(), "meta.k8s.io/v1");
  EXPECT_EQ(json::Serialize(obj["metadata"]), json::Serialize(pod["metadata"]));
  EXPECT_FALSE(obj.HasMember("spec"));

  req.table_api_version = "meta.k8s.io/v1beta1";
  rapidjson::Document beta = BuildTable(req, {&pod}, kNow);
  EXPECT_STREQ(beta["apiVersion"].GetString(), "meta.k8s.io/v1beta1");
  EXPECT_STREQ(beta["rows"][0]["object"]["apiVersion"].GetString(), "meta.k8s.io/v1beta1");
}

TEST(BuildTable, IncludeObjectNoneAndObject) {
  rapidjson::Document pod = ParseJson(kPod);
  TableRequest req;
  req.resource = "pods";
  req.include_object = IncludeObject::kNone;
  rapidjson::Document none = BuildTable(req, {&pod}, kNow);
  ASSERT_TRUE(none["rows"][0].HasMember("object"));
  EXPECT_TRUE(none["rows"][0]["object"].IsNull());

  req.include_object = IncludeObject::kObject;
  rapidjson::Document full = BuildTable(req, {&pod}, kNow);
  EXPECT_EQ(json::Serialize(full["rows"][0]["object"]), json::Serialize(pod));
}

TEST(BuildTable, NoHeadersLeavesColumnDefinitionsNullForLaterWatchEvents) {
  rapidjson::Document pod = ParseJson(kPod);
  TableRequest req;
  req.resource = "pods";
  req.include_column_definitions = false;
  rapidjson::Document t = BuildTable(req, {&pod}, kNow);
  ASSERT_TRUE(t.HasMember("columnDefinitions"));
  EXPECT_TRUE(t["columnDefinitions"].IsNull());
  EXPECT_EQ(t["rows"][0]["cells"].Size(), 9u);  // cells are still complete
}

TEST(BuildTable, UnknownResourcesUseNameAndRawCreatedAt) {
  rapidjson::Document crd = ParseJson(R"({"metadata": {"name": "reservations.scheduling.koordinator.sh",
    "creationTimestamp": "2024-05-01T12:30:00+02:00"}})");
  rapidjson::Document bare = ParseJson(R"({"metadata": {"name": "x"}})");
  TableRequest req;
  req.group = "apiextensions.k8s.io";
  req.resource = "customresourcedefinitions";
  rapidjson::Document t = BuildTable(req, {&crd, &bare}, kNow);
  ASSERT_EQ(t["columnDefinitions"].Size(), 2u);
  EXPECT_STREQ(t["columnDefinitions"][0]["name"].GetString(), "Name");
  EXPECT_STREQ(t["columnDefinitions"][1]["name"].GetString(), "Created At");
  EXPECT_STREQ(t["columnDefinitions"][1]["type"].GetString(), "date");
  EXPECT_STREQ(t["rows"][0]["cells"][1].GetString(), "2024-05-01T10:30:00Z");
  EXPECT_STREQ(t["rows"][1]["cells"][1].GetString(), "0001-01-01T00:00:00Z");
}

TEST(BuildTable, CustomResourcesUsePrecompiledColumnsWhenGiven) {
  rapidjson::Document cols = ParseJson(R"([{"name": "Phase", "type": "string", "jsonPath": ".status.phase"}])");
  const CrdColumns compiled = CrdColumns::FromPrinterColumns(&cols);
  rapidjson::Document obj = ParseJson(R"({"metadata": {"name": "r"}, "status": {"phase": "Pending"}})");
  TableRequest req;
  req.group = "scheduling.koordinator.sh";
  req.resource = "reservations";
  req.custom_resource = true;
  req.crd_columns = &compiled;
  rapidjson::Document t = BuildTable(req, {&obj}, kNow);
  EXPECT_EQ(json::Serialize(t["rows"][0]["cells"]), R"(["r","Pending"])");
  // A custom resource named like a built-in still uses its CRD columns.
  req.resource = "pods";
  EXPECT_EQ(BuildTable(req, {&obj}, kNow)["columnDefinitions"].Size(), 2u);
}

TEST(ParseIncludeObject, AcceptsTheThreePoliciesAndEmpty) {
  EXPECT_EQ(*ParseIncludeObject(""), IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("Metadata"), IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("None"), IncludeObject::kNone);
  EXPECT_EQ(*ParseIncludeObject("Object"), IncludeObject::kObject);
}

TEST(ParseIncludeObject, RejectsOtherValuesWithTheApiserverMessage) {
  auto bad = ParseIncludeObject("object");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(bad.error().message,
            "Unable to convert to Table as requested: includeObject: Invalid value: \"object\": "
            "must be 'Metadata', 'Object', 'None', or empty");
}

}  // namespace
}  // namespace berth::kubesim::table
