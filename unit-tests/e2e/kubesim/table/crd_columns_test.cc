#include "e2e/kubesim/table/crd_columns.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/kubesim/table/table_builder.h"
#include "test_util.h"

namespace berth::kubesim::table {
namespace {

using testing::At;
using testing::Cells;
using testing::CellText;
using testing::ParseJson;
using Strings = std::vector<std::string>;

const TimePoint kNow = At("2024-05-01T12:00:00Z");

// The Reservation CRD's columns, as controller-gen writes them.
constexpr std::string_view kReservationColumns = R"([
  {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "description": "The phase of reservation"},
  {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
  {"name": "Node", "type": "string", "jsonPath": ".status.nodeName"},
  {"name": "TTL", "type": "string", "jsonPath": ".spec.ttl"},
  {"name": "Expires", "type": "string", "jsonPath": ".spec.expires"}
])";

constexpr std::string_view kAvailableReservation = R"({
  "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
  "metadata": {"name": "reserve-gpu", "creationTimestamp": "2024-05-01T11:15:00Z", "resourceVersion": "77"},
  "spec": {"ttl": "24h", "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}},
           "owners": [{"object": {"name": "train-0"}}]},
  "status": {"phase": "Available", "nodeName": "node-a"}
})";

rapidjson::Document ReservationTable(std::string_view object) {
  rapidjson::Document columns = ParseJson(kReservationColumns);
  rapidjson::Document obj = ParseJson(object);
  TableRequest req;
  req.group = "scheduling.koordinator.sh";
  req.resource = "reservations";
  req.custom_resource = true;
  req.printer_columns = &columns;
  return BuildTable(req, {&obj}, kNow);
}

TEST(CrdColumns, ReservationPrintsNamePhaseAgeNodeTtlExpires) {
  auto t = ReservationTable(kAvailableReservation);
  Strings header;
  for (const auto& c : t["columnDefinitions"].GetArray()) {
    header.push_back(c["name"].GetString());
    EXPECT_EQ(c["priority"].GetInt64(), 0);  // same header with and without -o wide
  }
  EXPECT_EQ(header, (Strings{"Name", "Phase", "Age", "Node", "TTL", "Expires"}));
  const auto& name = t["columnDefinitions"][0];
  EXPECT_STREQ(name["type"].GetString(), "string");
  EXPECT_STREQ(name["format"].GetString(), "name");
  EXPECT_STREQ(t["columnDefinitions"][1]["description"].GetString(), "The phase of reservation");
  EXPECT_STREQ(t["columnDefinitions"][2]["type"].GetString(), "date");
  EXPECT_STREQ(t["columnDefinitions"][3]["description"].GetString(),
               "Custom resource definition column (in JSONPath format): .status.nodeName");
  // Age is humanized on the server; the missing expires is a null cell kubectl leaves blank.
  EXPECT_EQ(Cells(t), (Strings{"reserve-gpu", "Available", "45m", "node-a", "24h", "null"}));
}

TEST(CrdColumns, NewReservationWithoutStatusHasNullCells) {
  auto t = ReservationTable(R"({"metadata": {"name": "r"}, "spec": {"ttl": "0", "expires": "2024-05-02T00:00:00Z"}})");
  EXPECT_EQ(Cells(t), (Strings{"r", "null", "null", "null", "0", "2024-05-02T00:00:00Z"}));
  EXPECT_TRUE(t["rows"][0]["cells"][1].IsNull());
}

TEST(CrdColumns, CrdWithoutColumnsGetsAnAgeColumn) {
  for (std::string_view declared : {"null", "[]"}) {
    rapidjson::Document cols = ParseJson(declared);
    CrdColumns c = CrdColumns::FromPrinterColumns(&cols);
    ASSERT_EQ(c.columns().size(), 1u);
    EXPECT_EQ(c.columns()[0].name, "Age");
    EXPECT_EQ(c.columns()[0].type, "date");
    EXPECT_EQ(c.columns()[0].json_path, ".metadata.creationTimestamp");
  }
  EXPECT_EQ(CrdColumns::FromPrinterColumns(nullptr).columns().size(), 1u);
}

CustomColumn Column(std::string type) {
  CustomColumn c;
  c.type = std::move(type);
  return c;
}

TEST(CellForColumn, ConvertsValuesByColumnType) {
  rapidjson::Document doc = ParseJson(R"({"i": 3, "f": 2.75, "b": true, "s": "x", "o": {"b": 1, "a": [1]},
    "d": "2024-05-01T11:59:00Z", "bad": "tomorrow", "zero": "0001-01-01T00:00:00Z", "empty": "", "n": null})");
  auto& a = doc.GetAllocator();
  auto cell = [&](std::string type, const char* field) {
    return CellText(CellForColumn(Column(type), &doc[field], kNow, a));
  };
  EXPECT_EQ(cell("integer", "i"), "3");
  EXPECT_EQ(cell("integer", "f"), "2");  // int64(float64) truncates
  EXPECT_EQ(cell("integer", "s"), "null");
  EXPECT_EQ(cell("number", "i"), "3.0");
  EXPECT_EQ(cell("number", "f"), "2.75");
  EXPECT_EQ(cell("boolean", "b"), "true");
  EXPECT_EQ(cell("boolean", "i"), "null");
  EXPECT_EQ(cell("string", "i"), "3");
  EXPECT_EQ(cell("string", "b"), "true");
  EXPECT_EQ(cell("string", "o"), R"({"a":[1],"b":1})");
  EXPECT_EQ(cell("string", "n"), "<no value>");
  EXPECT_EQ(cell("date", "d"), "60s");
  EXPECT_EQ(cell("date", "bad"), "<invalid>");
  EXPECT_EQ(cell("date", "zero"), "<unknown>");
  EXPECT_EQ(cell("date", "empty"), "<unknown>");
  EXPECT_EQ(cell("date", "i"), "null");
  EXPECT_EQ(cell("integer", "n"), "null");
  EXPECT_EQ(cell("mystery", "s"), "null");
  EXPECT_TRUE(CellForColumn(Column("string"), nullptr, kNow, a).IsNull());
}

TEST(CrdColumns, ShowsOnlyTheFirstResultAndFilterMatches) {
  rapidjson::Document cols = ParseJson(R"([
    {"name": "Owner", "type": "string", "jsonPath": ".spec.owners[*].object.name"},
    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
    {"name": "Count", "type": "integer", "jsonPath": ".status.count", "priority": 1, "format": "int32"}])");
  rapidjson::Document obj = ParseJson(R"({"metadata": {"name": "x"},
    "spec": {"owners": [{"object": {"name": "a"}}, {"object": {"name": "b"}}]},
    "status": {"count": 4, "conditions": [{"type": "Scheduled", "status": "True"}, {"type": "Ready", "status": "False"}]}})");
  CrdColumns c = CrdColumns::FromPrinterColumns(&cols);
  RowOutput row;
  c.PrintRow(obj, kNow, row, obj.GetAllocator());
  Strings cells;
  for (const auto& v : row.cells.GetArray()) cells.push_back(CellText(v));
  EXPECT_EQ(cells, (Strings{"x", "a", "False", "4"}));
  rapidjson::Value defs(rapidjson::kArrayType);
  c.AppendColumnDefinitions(defs, obj.GetAllocator());
  EXPECT_EQ(defs[3]["priority"].GetInt64(), 1);
  EXPECT_STREQ(defs[3]["format"].GetString(), "int32");
}

TEST(CrdColumns, AMalformedJsonPathYieldsNullCellsInsteadOfFailing) {
  rapidjson::Document cols = ParseJson(R"([
    {"name": "Broken", "type": "string", "jsonPath": ".status[?(@.x=="},
    {"name": "Index", "type": "string", "jsonPath": ".spec.items[9]"},
    42])");
  rapidjson::Document obj = ParseJson(R"({"metadata": {"name": "x"}, "spec": {"items": [1]}})");
  CrdColumns c = CrdColumns::FromPrinterColumns(&cols);
  ASSERT_EQ(c.columns().size(), 2u);  // the non-object entry is skipped
  EXPECT_FALSE(c.columns()[0].path.has_value());
  RowOutput row;
  c.PrintRow(obj, kNow, row, obj.GetAllocator());
  ASSERT_EQ(row.cells.Size(), 3u);
  EXPECT_TRUE(row.cells[1].IsNull());
  EXPECT_TRUE(row.cells[2].IsNull());  // out of bounds is an evaluation error
}

TEST(ValidatePrinterColumns, AcceptsTheReservationColumns) {
  rapidjson::Document cols = ParseJson(kReservationColumns);
  EXPECT_TRUE(ValidatePrinterColumns(cols, "spec.versions[0].additionalPrinterColumns").empty());
  rapidjson::Value null_value(rapidjson::kNullType);
  EXPECT_TRUE(ValidatePrinterColumns(null_value, "x").empty());
}

TEST(ValidatePrinterColumns, ReportsEachProblemInApiserverWording) {
  rapidjson::Document cols = ParseJson(R"([
    {"type": "string", "jsonPath": ".a"},
    {"name": "T", "type": "text", "jsonPath": "status.phase"},
    {"name": "F", "type": "integer", "format": "uuid"},
    {"name": "P", "jsonPath": ".status[?(@.x"},
    "junk"])");
  const std::vector<std::string> errors = ValidatePrinterColumns(cols, "spec.versions[0].additionalPrinterColumns");
  const std::string p = "spec.versions[0].additionalPrinterColumns";
  ASSERT_EQ(errors.size(), 8u);
  EXPECT_EQ(errors[0], p + "[0].name: Required value");
  EXPECT_EQ(errors[1], p + "[1].type: Unsupported value: \"text\": supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\"");
  EXPECT_EQ(errors[2], p + "[1].jsonPath: Invalid value: \"status.phase\": must be a simple json path starting with .");
  EXPECT_EQ(errors[3], p + "[2].format: Unsupported value: \"uuid\": supported values: \"byte\", \"date\", \"date-time\", \"double\", \"float\", \"int32\", \"int64\", \"password\"");
  EXPECT_EQ(errors[4], p + "[2].jsonPath: Required value");
  EXPECT_EQ(errors[5], p + "[3].type: Required value: must be one of boolean,date,integer,number,string");
  EXPECT_NE(errors[6].find(p + "[3].jsonPath: Invalid value: \".status[?(@.x\": invalid JSONPath"), std::string::npos)
      << errors[6];
  EXPECT_EQ(errors[7], p + "[4]: Invalid value: \"junk\": must be an object");
}

}  // namespace
}  // namespace berth::kubesim::table
