// unit-tests/clientgo-shim/base/json_test_parse.h
//
// Parse for tests that build their input documents from literals: a literal that does not parse
// fails the calling test (naming it) instead of reaching the code under test as an empty document.
#pragma once

#include <string_view>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::json::testing {

inline rapidjson::Document Parse(std::string_view text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  return doc ? std::move(*doc) : rapidjson::Document();
}

}  // namespace berth::json::testing
