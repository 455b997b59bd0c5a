// e2e/kubesim/table/crd_columns.h
//
// Table columns for custom resources, as apiextensions-apiserver's table convertor builds them
// from a CRD version's additionalPrinterColumns: a fixed Name column, then one column per entry
// (a single "Age" date column when the CRD declares none). Cells are computed server-side:
// "date" columns are humanized ("5m30s"), missing values are null cells (kubectl prints them
// blank), and a column whose jsonPath does not parse yields null cells instead of failing.
// ValidatePrinterColumns is the create-time check the API layer reports as a 422.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/table/jsonpath.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {

// CustomColumn is one compiled additionalPrinterColumn.
struct CustomColumn {
  std::string name;
  std::string type;  // string | integer | number | boolean | date
  std::string format;
  std::string description;  // defaulted to "Custom resource definition column (in JSONPath format): <path>"
  int64_t priority = 0;
  std::string json_path;
  std::optional<JsonPath> path;  // nullopt when json_path does not parse: cells are null
};

// CrdColumns is the convertor for one served CRD version.
class CrdColumns {
 public:
  // FromPrinterColumns compiles additionalPrinterColumns (a JSON array; nullptr, null or an empty
  // array means the default Age column). Entries that are not objects are skipped. Never fails.
  static CrdColumns FromPrinterColumns(const rapidjson::Value* printer_columns);

  // columns are the custom columns after the implicit Name column.
  const std::vector<CustomColumn>& columns() const { return columns_; }

  // AppendColumnDefinitions writes Name plus every custom column as TableColumnDefinitions.
  void AppendColumnDefinitions(rapidjson::Value& out, Allocator& alloc) const;

  // PrintRow writes the cells of one custom resource.
  void PrintRow(const rapidjson::Value& object, TimePoint now, RowOutput& row, Allocator& alloc) const;

 private:
  std::vector<CustomColumn> columns_;
};

// CellForColumn computes one cell the way the convertor does (exposed for tests): `found` is the
// first value the column's path selected, or nullptr when it selected nothing.
rapidjson::Value CellForColumn(const CustomColumn& column, const rapidjson::Value* found,
                               TimePoint now, Allocator& alloc);

// ValidatePrinterColumns checks additionalPrinterColumns at CRD create/update time. field_path
// names the array (e.g. "spec.versions[0].additionalPrinterColumns"). Returns one message per
// problem in apimachinery's field.Error form, e.g.
//   spec.versions[0].additionalPrinterColumns[1].jsonPath: Invalid value: "status.phase": must be
//   a simple json path starting with .
// An empty result means the columns are valid.
std::vector<std::string> ValidatePrinterColumns(const rapidjson::Value& printer_columns,
                                                std::string_view field_path);

}  // namespace berth::kubesim::table
