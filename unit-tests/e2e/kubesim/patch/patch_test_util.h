// unit-tests/e2e/kubesim/patch/patch_test_util.h
//
// Helpers for the patch tests: parse literals and compare JSON structurally (object member order
// ignored, array order significant), printing both sides on mismatch.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::patch::testing {

inline rapidjson::Document ParseOrDie(std::string_view text) {
  auto doc = berth::json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << "bad test JSON: " << text;
  if (!doc) return rapidjson::Document();
  return std::move(*doc);
}

inline ::testing::AssertionResult JsonEq(const rapidjson::Value& actual,
                                         std::string_view expected_text) {
  rapidjson::Document expected = ParseOrDie(expected_text);
  if (actual == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n  actual:   " << berth::json::Serialize(actual)
                                       << "\n  expected: " << berth::json::Serialize(expected);
}

}  // namespace berth::kubesim::patch::testing
