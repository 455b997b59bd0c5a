// Helpers shared by the table tests: JSON literals and a fixed clock.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/time_format.h"

namespace berth::kubesim::table::testing {

// ParseJson parses a literal; a malformed literal fails the test.
inline rapidjson::Document ParseJson(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : rapidjson::Document();
}

// At returns the TimePoint for an RFC3339 literal.
inline TimePoint At(std::string_view rfc3339) {
  auto t = ParseRfc3339(rfc3339);
  EXPECT_TRUE(t.has_value());
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(
      std::chrono::seconds(t->seconds) + std::chrono::nanoseconds(t->nanos)));
}

// CellText renders a cell as kubectl would see it: strings raw, numbers, "null" for null.
inline std::string CellText(const rapidjson::Value& cell) {
  if (cell.IsString()) return cell.GetString();
  return json::Serialize(cell);
}

// Cells: the cells of one row of a Table, as CellText renders them.
inline std::vector<std::string> Cells(const rapidjson::Value& table, size_t row = 0) {
  std::vector<std::string> out;
  for (const auto& c : table["rows"][static_cast<rapidjson::SizeType>(row)]["cells"].GetArray()) {
    out.push_back(CellText(c));
  }
  return out;
}

// Header: a Table's column definitions as "NAME:type:priority".
inline std::vector<std::string> Header(const rapidjson::Value& table) {
  std::vector<std::string> out;
  for (const auto& c : table["columnDefinitions"].GetArray()) {
    out.push_back(std::string(c["name"].GetString()) + ":" + c["type"].GetString() + ":" +
                  std::to_string(c["priority"].GetInt64()));
  }
  return out;
}

}  // namespace berth::kubesim::table::testing
