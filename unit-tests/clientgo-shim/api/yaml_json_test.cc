#include "clientgo-shim/api/yaml_json.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

std::string J(std::string_view yaml) {
  auto doc = YamlToJson(yaml);
  EXPECT_TRUE(doc.has_value()) << yaml << ": " << (doc ? "" : doc.error().message);
  return doc ? json::Serialize(*doc) : "<error>";
}

std::string Err(std::string_view yaml) {
  auto docs = YamlToJsonDocuments(yaml);
  EXPECT_FALSE(docs.has_value()) << yaml;
  if (docs) return "";
  EXPECT_EQ(docs.error().code, ErrorCode::kInvalidArgument);
  return docs.error().message;
}

std::string Y(std::string_view json_text) {
  auto doc = json::Parse(json_text);
  EXPECT_TRUE(doc.has_value()) << json_text;
  return doc ? JsonToYaml(*doc) : "<error>";
}

TEST(YamlToJsonTest, ResolvesPlainScalarsLikeSigsK8sYaml) {
  EXPECT_EQ(J("a: ~\nb: null\nc:\nd: Null\ne: NULL"),
            R"({"a":null,"b":null,"c":null,"d":null,"e":null})");
  EXPECT_EQ(J("a: true\nb: False\nc: yes\nd: NO\ne: on\nf: Off\ng: y\nh: N"),
            R"({"a":true,"b":false,"c":true,"d":false,"e":true,"f":false,"g":true,"h":false})");
  EXPECT_EQ(J("a: 1\nb: -2\nc: +3\nd: 0x1F\ne: 0o17\nf: 017\ng: 0b101\nh: 1_000\ni: -0x10"),
            R"({"a":1,"b":-2,"c":3,"d":31,"e":15,"f":15,"g":5,"h":1000,"i":-16})");
  EXPECT_EQ(J("a: 18446744073709551615\nb: 9223372036854775807"),
            R"({"a":18446744073709551615,"b":9223372036854775807})");
  EXPECT_EQ(J("a: 1.5\nb: .5\nc: -1.25e2\nd: 1e3\ne: 1.0\nf: 08"),
            R"({"a":1.5,"b":0.5,"c":-125,"d":1000,"e":1,"f":8})");
  EXPECT_EQ(J("a: 1e400\nb: 1.2.3\nc: 0x\nd: 12:30\ne: 2001-12-14\nf: tru\ng: Yes please"),
            R"({"a":"1e400","b":"1.2.3","c":"0x","d":"12:30","e":"2001-12-14","f":"tru","g":"Yes please"})");
  EXPECT_EQ(J("a: '1'\nb: \"true\"\nc: 'null'\nd: \"\"\ne: !!str 5"),
            R"({"a":"1","b":"true","c":"null","d":"","e":"5"})");
  EXPECT_EQ(J("a: !!float 1\nb: !!int \"7\"\nc: !custom 3"), R"({"a":1,"b":7,"c":"3"})");
}

TEST(YamlToJsonTest, TurnsKeysIntoStrings) {
  EXPECT_EQ(J("1: a\ntrue: b\nyes: c\n1.5: d\n\"x\": e\n0x10: f"),
            R"({"1":"a","true":"c","1.5":"d","x":"e","16":"f"})");
  // go-yaml v2 reads the one-letter keys y and n as booleans too.
  EXPECT_EQ(J("y: 1\nn: 2\n'y': 3"), R"({"true":1,"false":2,"y":3})");
  EXPECT_EQ(J("1e3: a\n1e7: b\n1e300: c"), R"({"1000":"a","1e+07":"b",".inf":"c"})");
}

TEST(YamlToJsonTest, ConvertsNestedStructuresAnchorsAndMerges) {
  EXPECT_EQ(J("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: web}\nspec:\n"
              "  containers:\n  - name: c\n    args: [\"-c\", 'x']\n    ports:\n    - containerPort: 80\n"),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web"}},)"
            R"("spec":{"containers":[{"name":"c","args":["-c","x"],"ports":[{"containerPort":80}]}]}})");
  EXPECT_EQ(J("base: &b {x: 1, w: 2}\nother:\n  <<: *b\n  w: 3\nlist: [*b]"),
            R"({"base":{"x":1,"w":2},"other":{"x":1,"w":3},"list":[{"x":1,"w":2}]})");
  EXPECT_EQ(J("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]"),
            R"({"a":{"x":1},"b":{"x":2,"z":2},"c":{"x":1,"z":2}})");
  EXPECT_EQ(J("a: 1\na: 2"), R"({"a":2})");  // the last duplicate wins
  EXPECT_EQ(J("text: |\n  line1\n  line2\nfolded: >\n  a\n  b\n"),
            R"({"text":"line1\nline2\n","folded":"a b\n"})");
}

TEST(YamlToJsonTest, SplitsMultiDocumentStreamsSkippingEmptyDocuments) {
  auto docs = YamlToJsonDocuments("---\n# only a comment\n---\na: 1\n---\n---\n- x\n...\n---\nnull\n");
  ASSERT_TRUE(docs) << docs.error().message;
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ(json::Serialize((*docs)[0]), R"({"a":1})");
  EXPECT_EQ(json::Serialize((*docs)[1]), R"(["x"])");
  EXPECT_EQ(YamlToJsonDocuments("")->size(), 0u);
  EXPECT_TRUE(YamlToJson("")->IsNull());
  EXPECT_FALSE(YamlToJson("a: 1\n---\nb: 2\n"));
}

TEST(YamlToJsonTest, RejectsMalformedYamlWithLineAndColumn) {
  EXPECT_EQ(Err("a: b: c").rfind("yaml: line 1, column ", 0), 0u);
  EXPECT_EQ(Err("a:\n  - x\n  y: 1\n").rfind("yaml: line 3, column ", 0), 0u);
  EXPECT_EQ(Err("a: [1, 2\n").rfind("yaml: line ", 0), 0u);
  EXPECT_EQ(Err("a: 'x' y\n").rfind("yaml: line 1, column ", 0), 0u);
  EXPECT_EQ(Err("a: *nope\n").rfind("yaml: line 1, column ", 0), 0u);
  EXPECT_EQ(Err("\t- a\n").rfind("yaml: ", 0), 0u);
  // Stray top-level flow entries (yaml-cpp 0.7 looped forever on them) fail.
  EXPECT_EQ(Err(","), "yaml: line 1, column 1: did not find expected node content");
  EXPECT_EQ(Err("- a\n,"), "yaml: line 2, column 1: did not find expected '-' indicator");
  EXPECT_EQ(Err("---\n,b\n").rfind("yaml: line 2, column 1: ", 0), 0u);
}

TEST(YamlToJsonTest, SpeaksLibyamlsAndGoYamlsWordsForBrokenStreams) {
  EXPECT_EQ(Err("a: *nope\n"), "yaml: line 1, column 4: unknown anchor 'nope' referenced");
  EXPECT_EQ(Err("a: &x [*x]\n"), "yaml: line 1, column 8: unknown anchor 'x' referenced");  // not yet defined
  EXPECT_EQ(Err("a: \xff\n"), "yaml: invalid leading UTF-8 octet (byte offset 3)");
  EXPECT_EQ(Err("a: b\n c: d\n"), "yaml: line 2, column 3: mapping values are not allowed in this context");
  std::string deep(10'001, '[');
  EXPECT_EQ(Err(deep + std::string(10'001, ']')), "yaml: exceeded max depth of 10000");
  std::string ok_depth(100, '[');
  EXPECT_TRUE(YamlToJson(ok_depth + std::string(100, ']')));
}

TEST(YamlToJsonTest, AnchoredScalarsServeAsKeysAndAnchorsArePerDocument) {
  EXPECT_EQ(J("k: &k name\n*k : 1\n"), R"({"k":"name","name":1})");
  EXPECT_EQ(J("- &n 5\n- {*n : x}\n"), R"([5,{"5":"x"}])");
  EXPECT_EQ(Err("- &m {a: 1}\n- {*m : x}\n"), "yaml: invalid map key: a map or sequence cannot be a key");
  EXPECT_EQ(Err("a: &a 1\n---\nb: *a\n"), "yaml: line 3, column 4: unknown anchor 'a' referenced");
}

TEST(YamlToJsonTest, RejectsValuesJsonCannotHold) {
  EXPECT_EQ(Err("a: .nan"), "json: unsupported value: NaN");
  EXPECT_EQ(Err("a: -.inf"), "json: unsupported value: -Inf");
  EXPECT_EQ(Err("a: !!int abc"), "yaml: cannot decode !!str `abc` as a !!int");
  EXPECT_EQ(Err("? [a]\n: 1\n"), "yaml: invalid map key: a map or sequence cannot be a key");
  EXPECT_EQ(Err("~: 1\n"), "error converting YAML to JSON: unsupported map key of type: <nil>");
  EXPECT_EQ(Err("a:\n  <<: 5\n"), "yaml: map merge requires map or sequence of maps as the value");
}

TEST(YamlToJsonTest, RefusesAliasBombs) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = std::string(1, c);
  }
  EXPECT_EQ(Err(bomb), "yaml: document contains excessive aliasing");
}

TEST(JsonToYamlTest, PrintsLikeKubectlWithSortedKeysAndIndentlessSequences) {
  EXPECT_EQ(Y(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","labels":{"app":"web"}},)"
              R"("spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],)"
              R"("args":["-c","echo hi"]}],"volumes":[],"nodeSelector":{}}})"),
            "apiVersion: v1\n"
            "kind: Pod\n"
            "metadata:\n"
            "  labels:\n"
            "    app: web\n"
            "  name: p\n"
            "spec:\n"
            "  containers:\n"
            "  - args:\n"
            "    - -c\n"
            "    - echo hi\n"
            "    image: nginx\n"
            "    name: c\n"
            "    ports:\n"
            "    - containerPort: 80\n"
            "  nodeSelector: {}\n"
            "  volumes: []\n");
}

TEST(JsonToYamlTest, QuotesStringsThatWouldReadBackAsAnotherType) {
  EXPECT_EQ(Y(R"({"a":"123","b":"true","c":"yes","d":"","e":"null","f":"1.5","g":"0x1F","h":"~"})"),
            "a: \"123\"\nb: \"true\"\nc: \"yes\"\nd: \"\"\ne: \"null\"\nf: \"1.5\"\ng: \"0x1F\"\nh: \"~\"\n");
  EXPECT_EQ(Y(R"({"a":"*","b":"a: b","c":" lead","d":"x #y","e":"- x","f":"it's","g":"1:20","h":"tab\there"})"),
            "a: '*'\nb: 'a: b'\nc: ' lead'\nd: 'x #y'\ne: '- x'\nf: it's\ng: \"1:20\"\nh: \"tab\\there\"\n");
  EXPECT_EQ(Y(R"({"n":1,"f":1.5,"big":1e21,"m":1234567.5,"t":true,"z":null,"i":-7})"),
            "big: 1e+21\nf: 1.5\ni: -7\nm: 1.2345675e+06\n\"n\": 1\nt: true\nz: null\n");
}

TEST(JsonToYamlTest, WritesMultiLineStringsAsLiteralBlocks) {
  EXPECT_EQ(Y(R"({"s":"a\nb"})"), "s: |-\n  a\n  b\n");
  EXPECT_EQ(Y(R"({"s":"a\nb\n"})"), "s: |\n  a\n  b\n");
  EXPECT_EQ(Y(R"({"s":"a\n\nb\n\n"})"), "s: |+\n  a\n\n  b\n\n");
  EXPECT_EQ(Y(R"({"s":" a\nb"})"), "s: |2-\n   a\n  b\n");
  EXPECT_EQ(Y(R"({"s":"a \nb"})"), "s: \"a \\nb\"\n");  // space before a break: double-quoted
  EXPECT_EQ(Y(R"([{"s":"x\ny"}])"), "- s: |-\n    x\n    y\n");
}

TEST(JsonToYamlTest, HandlesTopLevelScalarsAndNestedSequences) {
  EXPECT_EQ(Y("{}"), "{}\n");
  EXPECT_EQ(Y("[]"), "[]\n");
  EXPECT_EQ(Y("\"x\""), "x\n");
  EXPECT_EQ(Y("[[1,2],[],{}]"), "- - 1\n  - 2\n- []\n- {}\n");
  EXPECT_EQ(Y(R"({"a b":1,"key: x":2,"":3})"), "\"\": 3\na b: 1\n'key: x': 2\n");
}

TEST(JsonToYamlTest, OrdersKeysLikeGoYaml) {
  EXPECT_EQ(Y(R"({"b":1,"a10":1,"a2":1,"A":1,"_x":1,"a-b":1,"a.b":1})"),
            "_x: 1\nA: 1\na-b: 1\na.b: 1\na2: 1\na10: 1\nb: 1\n");
}

TEST(JsonToYamlTest, KeepsUnicodeTextAndEscapesWhatLibyamlCannotPrint) {
  EXPECT_EQ(Y(R"({"a":"caf\u00e9 \u65e5\u672c","b":"\ud83d\ude00","c":"\u0007"})"),
            "a: caf\u00e9 \u65e5\u672c\nb: \"\\U0001F600\"\nc: \"\\a\"\n");
  auto doc = json::Parse(R"({"a":"caf\u00e9","b":"\ud83d\ude00 x","c":"\r\n"})");
  auto back = YamlToJson(JsonToYaml(*doc));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, *doc);
}

TEST(JsonToYamlTest, RoundTripsThroughYamlToJson) {
  const char* text =
      R"({"a":"123","b":[1,"two",{"c":null}],"d":"multi\nline\n","e":{"f":"yes","g":false},"h":"it's: ok"})";
  auto doc = json::Parse(text);
  ASSERT_TRUE(doc);
  auto back = YamlToJson(JsonToYaml(*doc));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, *doc);
}

}  // namespace
}  // namespace berth::shim
