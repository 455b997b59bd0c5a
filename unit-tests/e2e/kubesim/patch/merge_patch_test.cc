// unit-tests/e2e/kubesim/patch/merge_patch_test.cc
#include "e2e/kubesim/patch/merge_patch.h"

#include <string>

#include <gtest/gtest.h>

#include "unit-tests/e2e/kubesim/patch/patch_test_util.h"

namespace berth::kubesim::patch {
namespace {

using testing::JsonEq;
using testing::ParseOrDie;

struct Rfc7386Case {
  const char* target;
  const char* patch;
  const char* result;
};

// RFC 7386 Appendix A, minus the cases whose patch is not an object (tested below: the apiserver
// rejects those for objects).
TEST(ApplyMergePatch, ProducesTheResultsOfRfc7386AppendixA) {
  const Rfc7386Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const auto& c : cases) {
    rapidjson::Document target = ParseOrDie(c.target);
    rapidjson::Document patch = ParseOrDie(c.patch);
    ASSERT_TRUE(ApplyMergePatch(target, patch, target.GetAllocator()).has_value());
    EXPECT_TRUE(JsonEq(target, c.result)) << "target " << c.target << " patch " << c.patch;
  }
}

TEST(ApplyMergePatch, AppliesTheRfc7386Section3Example) {
  rapidjson::Document target = ParseOrDie(R"({
    "title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
    "tags": ["example", "sample"], "content": "This will be unchanged"})");
  rapidjson::Document patch = ParseOrDie(R"({
    "title": "Hello!", "phoneNumber": "+01-123-456-7890",
    "author": {"familyName": null}, "tags": ["example"]})");
  ASSERT_TRUE(ApplyMergePatch(target, patch, target.GetAllocator()).has_value());
  EXPECT_TRUE(JsonEq(target, R"({
    "title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
    "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"})"));
}

TEST(ApplyMergePatch, KeepsNullsInsideArraysBecauseArraysReplaceVerbatim) {
  rapidjson::Document target = ParseOrDie(R"({"a":[1]})");
  rapidjson::Document patch = ParseOrDie(R"({"a":[null,{"b":null}]})");
  ASSERT_TRUE(ApplyMergePatch(target, patch, target.GetAllocator()).has_value());
  EXPECT_TRUE(JsonEq(target, R"({"a":[null,{"b":null}]})"));
}

TEST(ApplyMergePatch, MergesLabelsOfAKubernetesObjectWithoutTouchingOtherFields) {
  rapidjson::Document target = ParseOrDie(
      R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"}},"spec":{"containers":[{"name":"c"}]}})");
  rapidjson::Document patch = ParseOrDie(R"({"metadata":{"labels":{"a":null,"c":"3"}}})");
  ASSERT_TRUE(ApplyMergePatch(target, patch, target.GetAllocator()).has_value());
  EXPECT_TRUE(JsonEq(
      target,
      R"({"metadata":{"name":"p","labels":{"b":"2","c":"3"}},"spec":{"containers":[{"name":"c"}]}})"));
}

TEST(ApplyMergePatch, RejectsANonObjectPatchAndLeavesTheTargetUnchanged) {
  for (const char* bad : {R"(["c"])", R"("bar")", "null", "42", "true"}) {
    rapidjson::Document target = ParseOrDie(R"({"a":"foo"})");
    rapidjson::Document patch = ParseOrDie(bad);
    auto st = ApplyMergePatch(target, patch, target.GetAllocator());
    ASSERT_FALSE(st.has_value()) << bad;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(st.error().message, "Invalid JSON Patch");
    EXPECT_TRUE(JsonEq(target, R"({"a":"foo"})"));
  }
}

}  // namespace
}  // namespace berth::kubesim::patch
