// Helpers shared by the table tests: JSON literals and a fixed clock.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

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

}  // namespace berth::kubesim::table::testing
