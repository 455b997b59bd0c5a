// unit-tests/e2e/kubesim/patch/json_patch_test.cc
#include "e2e/kubesim/patch/json_patch.h"

#include <string>

#include <gtest/gtest.h>

#include "unit-tests/e2e/kubesim/patch/patch_test_util.h"

namespace berth::kubesim::patch {
namespace {

using testing::JsonEq;
using testing::ParseOrDie;

// Apply runs `ops` on `doc` and returns the status; `doc` holds the result.
berth::Status Apply(rapidjson::Document& doc, std::string_view ops) {
  rapidjson::Document parsed = ParseOrDie(ops);
  return ApplyJsonPatch(doc, parsed, doc.GetAllocator());
}

struct Rfc6902Case {
  const char* name;
  const char* doc;
  const char* ops;
  const char* result;
};

// RFC 6902 Appendix A examples that succeed.
TEST(ApplyJsonPatch, ProducesTheResultsOfRfc6902AppendixA) {
  const Rfc6902Case cases[] = {
      {"A.1 add object member", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"baz":"qux","foo":"bar"})"},
      {"A.2 add array element", R"({"foo":["bar","baz"]})",
       R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})"},
      {"A.3 remove object member", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
      {"A.4 remove array element", R"({"foo":["bar","qux","baz"]})",
       R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
      {"A.5 replace value", R"({"baz":"qux","foo":"bar"})",
       R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})"},
      {"A.6 move value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
      {"A.7 move array element", R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})"},
      {"A.8 test success", R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})"},
      {"A.10 add nested member", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
       R"({"foo":"bar","child":{"grandchild":{}}})"},
      {"A.11 ignore unrecognized members", R"({"foo":"bar"})",
       R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
       R"({"foo":"bar","baz":"qux"})"},
      {"A.14 escape ordering", R"({"/":9,"~1":10})",
       R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
      {"A.16 add array value", R"({"foo":["bar"]})",
       R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
       R"({"foo":["bar",["abc","def"]]})"},
  };
  for (const auto& c : cases) {
    rapidjson::Document doc = ParseOrDie(c.doc);
    auto st = Apply(doc, c.ops);
    ASSERT_TRUE(st.has_value()) << c.name << ": " << st.error().message;
    EXPECT_TRUE(JsonEq(doc, c.result)) << c.name;
  }
}

TEST(ApplyJsonPatch, FailsTestOfAStringAgainstANumberAsRfc6902A15) {
  rapidjson::Document doc = ParseOrDie(R"({"/":9,"~1":10})");
  auto st = Apply(doc, R"([{"op":"test","path":"/~01","value":"10"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(st.error().message, "testing value /~01 failed: test failed");
}

TEST(ApplyJsonPatch, ReportsAFailedTestInTheApiserversWording) {
  rapidjson::Document doc = ParseOrDie(R"({"metadata":{"name":"web"}})");
  auto st = Apply(doc, R"([{"op":"test","path":"/metadata/name","value":"db"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "testing value /metadata/name failed: test failed");
}

TEST(ApplyJsonPatch, ReportsAddUnderAMissingParentAsAMissingPath) {
  rapidjson::Document doc = ParseOrDie(R"({"spec":{}})");
  auto st = Apply(doc, R"([{"op":"add","path":"/spec/foo/bar","value":1}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "add operation does not apply: doc is missing path: \"/spec/foo/bar\": missing value");
  // RFC 6902 A.12: adding to a nonexistent target.
  doc = ParseOrDie(R"({"foo":"bar"})");
  st = Apply(doc, R"([{"op":"add","path":"/baz/bat","value":"qux"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "add operation does not apply: doc is missing path: \"/baz/bat\": missing value");
}

TEST(ApplyJsonPatch, ReportsRemoveAndReplaceOfMissingKeysLikeTheApiserver) {
  rapidjson::Document doc = ParseOrDie(R"({"spec":{"a":1}})");
  auto st = Apply(doc, R"([{"op":"remove","path":"/spec/foo"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "error in remove for path: '/spec/foo': unable to remove nonexistent key: foo: "
            "missing value");
  st = Apply(doc, R"([{"op":"remove","path":"/status/foo"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "remove operation does not apply: doc is missing path: \"/status/foo\": missing value");
  st = Apply(doc, R"([{"op":"replace","path":"/spec/foo","value":2}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "replace operation does not apply: doc is missing key: /spec/foo: missing value");
  st = Apply(doc, R"([{"op":"replace","path":"/status/foo","value":2}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "replace operation does not apply: doc is missing path: /status/foo: missing value");
  EXPECT_TRUE(JsonEq(doc, R"({"spec":{"a":1}})"));
}

TEST(ApplyJsonPatch, AppendsWithDashAndAllowsInsertingAtTheEndIndexOnly) {
  rapidjson::Document doc = ParseOrDie(R"({"a":[1,2]})");
  ASSERT_TRUE(Apply(doc, R"([{"op":"add","path":"/a/-","value":3}])").has_value());
  ASSERT_TRUE(Apply(doc, R"([{"op":"add","path":"/a/3","value":4}])").has_value());
  EXPECT_TRUE(JsonEq(doc, R"({"a":[1,2,3,4]})"));
  auto st = Apply(doc, R"([{"op":"add","path":"/a/5","value":9}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index "
            "referenced");
  st = Apply(doc, R"([{"op":"remove","path":"/a/4"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "error in remove for path: '/a/4': Unable to access invalid index: 4: invalid index "
            "referenced");
  st = Apply(doc, R"([{"op":"add","path":"/a/x","value":9}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "error in add for path: '/a/x': value was not a proper array index: 'x': "
            "strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_TRUE(JsonEq(doc, R"({"a":[1,2,3,4]})"));
}

TEST(ApplyJsonPatch, CountsNegativeIndicesFromTheEndAsTheApiserversLibraryDoes) {
  rapidjson::Document doc = ParseOrDie(R"({"a":[1,2,3]})");
  ASSERT_TRUE(Apply(doc, R"([{"op":"remove","path":"/a/-1"}])").has_value());
  EXPECT_TRUE(JsonEq(doc, R"({"a":[1,2]})"));
  EXPECT_FALSE(Apply(doc, R"([{"op":"remove","path":"/a/-3"}])").has_value());
}

TEST(ApplyJsonPatch, UnescapesTildeAndSlashInPointerTokens) {
  rapidjson::Document doc = ParseOrDie(R"({"metadata":{"labels":{}}})");
  ASSERT_TRUE(Apply(doc, R"([{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name",
                              "value":"web"},
                             {"op":"add","path":"/metadata/labels/a~0b","value":"x"}])")
                  .has_value());
  EXPECT_TRUE(JsonEq(doc, R"({"metadata":{"labels":{"app.kubernetes.io/name":"web","a~b":"x"}}})"));
}

TEST(ApplyJsonPatch, CopiesValuesAndReplacesTheWholeDocumentAtTheEmptyPointer) {
  rapidjson::Document doc = ParseOrDie(R"({"a":{"b":[1]}})");
  ASSERT_TRUE(Apply(doc, R"([{"op":"copy","from":"/a","path":"/c"},
                             {"op":"add","path":"/c/b/-","value":2}])")
                  .has_value());
  EXPECT_TRUE(JsonEq(doc, R"({"a":{"b":[1]},"c":{"b":[1,2]}})"));
  ASSERT_TRUE(Apply(doc, R"([{"op":"replace","path":"","value":{"x":1}}])").has_value());
  EXPECT_TRUE(JsonEq(doc, R"({"x":1})"));
  ASSERT_TRUE(Apply(doc, R"([{"op":"test","path":"","value":{"x":1}}])").has_value());
}

TEST(ApplyJsonPatch, ReportsMissingFromPathsForMoveAndCopy) {
  rapidjson::Document doc = ParseOrDie(R"({"a":1})");
  auto st = Apply(doc, R"([{"op":"move","from":"/x/y","path":"/b"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "move operation does not apply: doc is missing from path: /x/y: "
                                "missing value");
  st = Apply(doc, R"([{"op":"copy","from":"/x","path":"/b"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "error in copy for from: '/x': unable to get nonexistent key: x: missing value");
  st = Apply(doc, R"([{"op":"move","path":"/b"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message,
            "move operation failed to decode from: operation, missing from field: missing value");
}

TEST(ApplyJsonPatch, TestOfAMissingMemberPassesOnlyForNull) {
  rapidjson::Document doc = ParseOrDie(R"({"a":1})");
  EXPECT_TRUE(Apply(doc, R"([{"op":"test","path":"/b","value":null}])").has_value());
  auto st = Apply(doc, R"([{"op":"test","path":"/b","value":1}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "testing value /b failed: test failed");
}

TEST(ApplyJsonPatch, IsAtomicWhenALaterOperationFails) {
  rapidjson::Document doc = ParseOrDie(R"({"metadata":{"name":"web","labels":{"a":"1"}}})");
  auto st = Apply(doc, R"([
      {"op":"add","path":"/metadata/labels/b","value":"2"},
      {"op":"remove","path":"/metadata/labels/a"},
      {"op":"test","path":"/metadata/name","value":"db"}])");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().message, "testing value /metadata/name failed: test failed");
  EXPECT_TRUE(JsonEq(doc, R"({"metadata":{"name":"web","labels":{"a":"1"}}})"));
}

TEST(ApplyJsonPatch, RejectsMalformedOperationListsWithoutTouchingTheTarget) {
  struct Case {
    const char* ops;
    const char* message;
  };
  const Case cases[] = {
      {R"({"op":"add","path":"/a","value":1})",
       "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
      {R"(["add"])", "json: cannot unmarshal string into Go value of type jsonpatch.Operation"},
      {R"([{"op":"frobnicate","path":"/a"}])", "Unexpected kind: frobnicate"},
      {R"([{"path":"/a","value":1}])", "Unexpected kind: unknown"},
      {R"([{"op":"add","value":1}])",
       "add operation failed to decode path: operation missing path field: missing value"},
      {R"([{"op":"replace","path":7,"value":1}])",
       "replace operation failed to decode path: json: cannot unmarshal number into Go value of "
       "type string"},
      {R"([{"op":"add","path":"a","value":1}])",
       "add operation does not apply: doc is missing path: \"a\": missing value"},
      {R"([{"op":"remove","path":""}])",
       "remove operation does not apply: doc is missing path: \"\": missing value"},
      {R"([{"op":"add","path":"/a/b/c","value":1}])",
       "add operation does not apply: doc is missing path: \"/a/b/c\": missing value"},
      {R"([{"op":"replace","path":"","value":"scalar"}])",
       "replace operation value must be object or array"},
  };
  for (const auto& c : cases) {
    rapidjson::Document doc = ParseOrDie(R"({"a":1})");
    auto st = Apply(doc, c.ops);
    ASSERT_FALSE(st.has_value()) << c.ops;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(st.error().message, c.message) << c.ops;
    EXPECT_TRUE(JsonEq(doc, R"({"a":1})")) << c.ops;
  }
}

}  // namespace
}  // namespace berth::kubesim::patch
