#include "e2e/kubesim/protobuf/openapi_v2_encoder.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/wire_reader.h"
#include "e2e/kubesim/protobuf/wire_writer.h"

namespace berth::kubesim::protobuf {
namespace {

// Fields: the length-delimited (and varint, as text) values of a message by field number.
std::multimap<std::uint32_t, std::string> Fields(std::string_view bytes) {
  std::multimap<std::uint32_t, std::string> out;
  WireReader r(bytes);
  while (!r.AtEnd()) {
    auto key = r.ReadKey();
    EXPECT_TRUE(key.has_value());
    if (!key) break;
    if (key->wire_type == WireType::kLengthDelimited) {
      out.emplace(key->number, std::string(*r.ReadLengthDelimited()));
    } else if (key->wire_type == WireType::kVarint) {
      out.emplace(key->number, std::to_string(*r.ReadVarint()));
    } else {
      EXPECT_TRUE(r.Skip(key->wire_type).has_value());
    }
  }
  return out;
}

std::string One(std::string_view bytes, std::uint32_t number) {
  auto f = Fields(bytes);
  EXPECT_EQ(f.count(number), 1u) << "field " << number;
  auto it = f.find(number);
  return it == f.end() ? std::string() : it->second;
}

std::string Encode(const char* text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value());
  auto bytes = EncodeOpenApiV2Document(*doc);
  EXPECT_TRUE(bytes.has_value());
  return bytes ? *bytes : std::string();
}

TEST(WireWriterTest, WritesVarintsKeysAndLengthDelimitedFieldsAsTheReaderReadsThem) {
  WireWriter w;
  w.Int64(1, 300);
  w.String(2, "abc");
  w.Bool(3, true);
  w.Int64(4, -1);
  w.Double(5, 1.5);
  EXPECT_EQ(w.data().substr(0, 3), std::string("\x08\xac\x02", 3));
  WireReader r(w.data());
  EXPECT_EQ(r.ReadKey()->number, 1u);
  EXPECT_EQ(*r.ReadVarint(), 300u);
  EXPECT_EQ(r.ReadKey()->number, 2u);
  EXPECT_EQ(*r.ReadLengthDelimited(), "abc");
  EXPECT_EQ(r.ReadKey()->number, 3u);
  EXPECT_EQ(*r.ReadVarint(), 1u);
  EXPECT_EQ(r.ReadKey()->number, 4u);
  EXPECT_EQ(*r.ReadVarint(), ~std::uint64_t{0});
  auto key = r.ReadKey();
  EXPECT_EQ(key->wire_type, WireType::kFixed64);
  EXPECT_EQ(*r.ReadFixed64(), 0x3FF8000000000000u);
  EXPECT_TRUE(r.AtEnd());
}

TEST(OpenApiV2EncoderTest, DefinitionsBecomeNamedSchemasWithGnosticFieldNumbers) {
  std::string bytes = Encode(
      R"({"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.32.0"},"definitions":{"io.x.v1.Foo":{)"
      R"("type":"object","description":"d","required":["spec"],"properties":{"spec":{"$ref":"#/definitions/io.x.v1.Spec"},)"
      R"("tags":{"type":"array","items":{"type":"string"}},"labels":{"type":"object","additionalProperties":{"type":"string"}}},)"
      R"("x-kubernetes-group-version-kind":[{"group":"x","kind":"Foo","version":"v1"}]}}})");
  EXPECT_EQ(One(bytes, 1), "2.0");  // Document.swagger
  EXPECT_EQ(One(One(bytes, 2), 1), "Kubernetes");  // Info.title
  std::string named = One(One(bytes, 9), 1);  // Document.definitions → Definitions.additional_properties
  EXPECT_EQ(One(named, 1), "io.x.v1.Foo");
  std::string schema = One(named, 2);
  EXPECT_EQ(One(One(schema, 22), 1), "object");  // Schema.type → TypeItem.value
  EXPECT_EQ(One(schema, 4), "d");                 // description
  EXPECT_EQ(One(schema, 19), "spec");             // required
  std::string ext = One(schema, 31);              // vendor_extension → NamedAny
  EXPECT_EQ(One(ext, 1), "x-kubernetes-group-version-kind");
  EXPECT_EQ(One(One(ext, 2), 2), "[{\"group\":\"x\",\"kind\":\"Foo\",\"version\":\"v1\"}]\n");  // Any.yaml
  std::map<std::string, std::string> props;
  for (const auto& [n, p] : Fields(One(schema, 25))) props[One(p, 1)] = One(p, 2);
  ASSERT_EQ(props.size(), 3u);
  EXPECT_EQ(One(props["spec"], 1), "#/definitions/io.x.v1.Spec");  // _ref
  EXPECT_EQ(One(One(One(props["tags"], 23), 1), 22), std::string("\x0a\x06string", 8));  // items → ItemsItem.schema
  EXPECT_EQ(One(One(One(One(props["labels"], 21), 1), 22), 1), "string");  // additionalProperties → schema
}

TEST(OpenApiV2EncoderTest, BooleanAdditionalPropertiesUsesTheOneofBooleanEvenWhenFalse) {
  std::string bytes = Encode(R"({"definitions":{"A":{"type":"object","additionalProperties":false}}})");
  std::string schema = One(One(One(bytes, 9), 1), 2);
  EXPECT_EQ(One(One(schema, 21), 2), "0");
}

TEST(OpenApiV2EncoderTest, PathsCarryOperationsParametersAndResponses) {
  std::string bytes = Encode(
      R"({"paths":{"/api/v1/pods":{"get":{"operationId":"listPods","parameters":[{"name":"limit","in":"query",)"
      R"("type":"integer","uniqueItems":true}],"responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/L"}}},)"
      R"("x-kubernetes-action":"list"},"post":{"parameters":[{"name":"body","in":"body","required":true,"schema":{"$ref":"#/definitions/P"}}]},)"
      R"("parameters":[{"$ref":"#/parameters/pretty"}]},"x-ignored":1}})");
  std::string paths = One(bytes, 8);
  EXPECT_EQ(One(paths, 1).empty(), false);  // the x- member as a vendor extension
  std::string item = One(paths, 2);         // NamedPathItem
  EXPECT_EQ(One(item, 1), "/api/v1/pods");
  std::string path_item = One(item, 2);
  std::string get = One(path_item, 2);
  EXPECT_EQ(One(get, 5), "listPods");
  std::string query = One(One(One(One(get, 8), 1), 2), 3);  // ParametersItem.parameter → NonBody → query
  EXPECT_EQ(One(query, 4), "limit");
  EXPECT_EQ(One(query, 6), "integer");
  std::string response = One(One(One(get, 9), 1), 2);  // Responses.response_code → NamedResponseValue.value
  EXPECT_EQ(One(One(response, 1), 1), "OK");
  EXPECT_EQ(One(One(One(One(response, 1), 2), 1), 1), "#/definitions/L");
  std::string body = One(One(One(One(path_item, 4), 8), 1), 1);  // post → parameter → body_parameter
  EXPECT_EQ(One(body, 2), "body");
  EXPECT_EQ(One(body, 4), "1");
  EXPECT_EQ(One(One(path_item, 9), 2), std::string("\x0a\x13#/parameters/pretty", 21));  // json_reference
}

TEST(OpenApiV2EncoderTest, NonObjectDocumentsAreRefusedAndOddMembersSkipped) {
  auto arr = json::Parse("[1,2]");
  EXPECT_FALSE(EncodeOpenApiV2Document(*arr).has_value());
  std::string bytes = Encode(R"({"swagger":2,"definitions":{"A":7,"B":{"type":3,"items":[{"type":"string"},5],)"
                             R"("properties":[]}},"paths":{"/x":[]},"tags":[1]})");
  EXPECT_EQ(Fields(bytes).count(1), 0u);
  auto defs = Fields(One(bytes, 9));
  ASSERT_EQ(defs.size(), 1u);  // A is not an object
}

}  // namespace
}  // namespace berth::kubesim::protobuf
