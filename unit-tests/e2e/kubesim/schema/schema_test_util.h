// Test helpers for the kubesim schema tests: load testdata/ files, parse inline JSON, format causes.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/cause.h"

namespace berth::kubesim::schema::testing {

// TestdataPath resolves a file under this folder's testdata/, next to this header.
inline std::string TestdataPath(const std::string& name) {
  return std::string(BERTH_SOURCE_DIR) + "/unit-tests/e2e/kubesim/schema/testdata/" + name;
}

inline rapidjson::Document LoadJson(const std::string& name) {
  std::ifstream in(TestdataPath(name));
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::Parse(buffer.str());
  EXPECT_TRUE(doc.has_value()) << name << ": " << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : rapidjson::Document();
}

inline rapidjson::Document ParseJson(const std::string& text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return doc ? std::move(*doc) : rapidjson::Document();
}

// The causes as field.Error.Error() prints them: "<field>: <message>".
inline std::vector<std::string> Formatted(const std::vector<Cause>& causes) {
  std::vector<std::string> out;
  for (const auto& c : causes) out.push_back(FormatCause(c));
  return out;
}

}  // namespace berth::kubesim::schema::testing
