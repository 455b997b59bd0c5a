// Tests for kubesim's protobuf responses: GET/LIST/WATCH of built-in kinds in
// application/vnd.kubernetes.protobuf when Accept prefers it, JSON or 406 for custom resources.
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/protobuf/decoder.h"
#include "e2e/kubesim/protobuf/wire_reader.h"

namespace berth::kubesim {
namespace {

constexpr const char* kProtobufFirst = "application/vnd.kubernetes.protobuf,application/json";

class RecordingSink : public ResponseSink {
 public:
  void Send(HttpResponse response) override { response_ = std::move(response); }
  bool BeginStream(int, std::string_view) override { return false; }
  bool WriteChunk(std::string_view) override { return false; }
  void EndStream() override {}
  HttpResponse response_;
};

// FrameSink collects a watch stream's length-delimited frames and reports the client gone once
// `want` frames arrived.
class FrameSink : public ResponseSink {
 public:
  explicit FrameSink(size_t want) : want_(want) {}
  void Send(HttpResponse response) override { error_ = response.body; }
  bool BeginStream(int, std::string_view content_type) override {
    content_type_ = content_type;
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    buffer_ += data;
    while (buffer_.size() >= 4) {
      auto b = [&](int i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(buffer_[i])); };
      std::uint32_t length = b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
      if (buffer_.size() < 4 + length) break;
      frames_.push_back(buffer_.substr(4, length));
      buffer_.erase(0, 4 + length);
    }
    return frames_.size() < want_;
  }
  void EndStream() override {}

  std::string content_type_, error_, buffer_;
  std::vector<std::string> frames_;
  size_t want_;
};

// Event decodes a WatchEvent frame into "TYPE <decoded object JSON>".
std::string Event(std::string_view frame) {
  protobuf::WireReader r(frame);
  std::string type, object;
  while (!r.AtEnd()) {
    auto key = r.ReadKey();
    auto value = key ? r.ReadLengthDelimited() : Result<std::string_view>(std::unexpected(key.error()));
    if (!value) return "<malformed frame>";
    if (key->number == 1) type = *value;
    if (key->number == 2) {
      protobuf::WireReader raw(*value);
      auto raw_key = raw.ReadKey();
      auto raw_value = raw_key ? raw.ReadLengthDelimited() : Result<std::string_view>(std::unexpected(raw_key.error()));
      if (!raw_value) return "<malformed RawExtension>";
      auto doc = protobuf::DecodeKubernetesProtobuf(*raw_value);
      object = doc ? json::Serialize(*doc) : "<undecodable: " + doc.error().message + ">";
    }
  }
  return type + " " + object;
}

class ProtobufResponsesTest : public ::testing::Test {
 protected:
  explicit ProtobufResponsesTest(bool serve_protobuf = true)
      : api_(Options(serve_protobuf), store_, registry_) {
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
    Create("", "configmaps", "default",
           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a"},"data":{"k":"v"}})");
    Create("", "configmaps", "default", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-b"}})");
  }
  static ApiServerOptions Options(bool serve_protobuf) {
    ApiServerOptions o;
    o.serve_protobuf = serve_protobuf;
    return o;
  }
  void Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value()) << text;
    OpResult r = api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  static HttpRequest Request(const std::string& path, const std::string& accept,
                             std::map<std::string, std::string> query = {}) {
    HttpRequest r;
    r.method = "GET";
    r.path = path;
    r.target = path;
    r.query = std::move(query);
    if (!accept.empty()) r.headers["accept"] = accept;
    return r;
  }
  HttpResponse Get(const std::string& path, const std::string& accept, std::map<std::string, std::string> query = {}) {
    RecordingSink sink;
    api_.Handle(Request(path, accept, std::move(query)), sink);
    return sink.response_;
  }
  static std::string Decoded(const HttpResponse& r) {
    auto doc = protobuf::DecodeKubernetesProtobuf(r.body);
    return doc ? json::Serialize(*doc) : "<undecodable: " + doc.error().message + ">";
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

TEST_F(ProtobufResponsesTest, GetAnswersProtobufWhenAcceptPrefersItAndTheBodyDecodesToTheStoredObject) {
  HttpResponse r = Get("/api/v1/namespaces/default/configmaps/cm-a", kProtobufFirst);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/vnd.kubernetes.protobuf");
  ASSERT_TRUE(r.body.starts_with(protobuf::kMagic));
  auto stored = json::Parse(store_.Get("/configmaps", "default", "cm-a")->json);
  auto decoded = protobuf::DecodeKubernetesProtobuf(r.body);
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_TRUE(*stored == *decoded) << json::Serialize(*stored) << "\n" << json::Serialize(*decoded);

  HttpResponse json_first = Get("/api/v1/namespaces/default/configmaps/cm-a", "application/json;q=0.9,application/vnd.kubernetes.protobuf;q=0.8");
  EXPECT_EQ(json_first.content_type, "application/json");
  EXPECT_TRUE(json::Parse(json_first.body).has_value());
}

TEST_F(ProtobufResponsesTest, ListIsAConfigMapListWithListMetaAndEveryItem) {
  HttpResponse r = Get("/api/v1/namespaces/default/configmaps", kProtobufFirst, {{"limit", "1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/vnd.kubernetes.protobuf");
  auto page = protobuf::DecodeKubernetesProtobuf(r.body);
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(json::GetString(*page, {"kind"}), "ConfigMapList");
  ASSERT_TRUE((*page)["items"].IsArray());
  ASSERT_EQ((*page)["items"].Size(), 1u);
  EXPECT_EQ(json::GetString((*page)["items"][0], {"metadata", "name"}), "cm-a");
  std::string cont(json::GetString(*page, {"metadata", "continue"}));
  ASSERT_FALSE(cont.empty());
  EXPECT_EQ((*page)["metadata"]["remainingItemCount"].GetInt64(), 1);

  HttpResponse next = Get("/api/v1/namespaces/default/configmaps", kProtobufFirst, {{"limit", "1"}, {"continue", cont}});
  auto rest = protobuf::DecodeKubernetesProtobuf(next.body);
  ASSERT_TRUE(rest) << rest.error().message;
  ASSERT_EQ((*rest)["items"].Size(), 1u);
  EXPECT_EQ(json::GetString((*rest)["items"][0], {"metadata", "name"}), "cm-b");
}

TEST_F(ProtobufResponsesTest, WritesAnswerInTheNegotiatedMediaTypeToo) {
  HttpRequest r = Request("/api/v1/namespaces/default/configmaps", kProtobufFirst);
  r.method = "POST";
  r.headers["content-type"] = "application/json";
  r.body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-c"}})";
  RecordingSink sink;
  api_.Handle(r, sink);
  ASSERT_EQ(sink.response_.status, 201) << sink.response_.body;
  EXPECT_EQ(sink.response_.content_type, "application/vnd.kubernetes.protobuf");
  EXPECT_NE(Decoded(sink.response_).find(R"("name":"cm-c")"), std::string::npos);
}

TEST_F(ProtobufResponsesTest, TableRequestsStayJsonTables) {
  HttpResponse r = Get("/api/v1/namespaces/default/configmaps",
                       "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  EXPECT_EQ(r.content_type, "application/json");
  auto doc = json::Parse(r.body);
  ASSERT_TRUE(doc) << r.body;
  EXPECT_EQ(json::GetString(*doc, {"kind"}), "Table");
}

TEST_F(ProtobufResponsesTest, UnacceptableAcceptIs406BeforeAnyWork) {
  HttpResponse r = Get("/api/v1/namespaces/default/configmaps/missing", "text/html");
  EXPECT_EQ(r.status, 406);
  auto doc = json::Parse(r.body);
  ASSERT_TRUE(doc) << r.body;
  EXPECT_EQ(json::GetString(*doc, {"reason"}), "NotAcceptable");
  EXPECT_EQ(json::GetString(*doc, {"message"}),
            "only the following media types are accepted: application/json, application/yaml, "
            "application/vnd.kubernetes.protobuf");
}

TEST_F(ProtobufResponsesTest, WatchFramesEventsInitialEventsEndBookmarkIncluded) {
  FrameSink sink(3);
  api_.Handle(Request("/api/v1/namespaces/default/configmaps", kProtobufFirst,
                      {{"watch", "true"}, {"sendInitialEvents", "true"}, {"allowWatchBookmarks", "true"},
                       {"resourceVersionMatch", "NotOlderThan"}, {"timeoutSeconds", "5"}}),
              sink);
  ASSERT_EQ(sink.error_, "");
  EXPECT_EQ(sink.content_type_, "application/vnd.kubernetes.protobuf;stream=watch");
  ASSERT_EQ(sink.frames_.size(), 3u);
  EXPECT_NE(Event(sink.frames_[0]).find(R"(ADDED {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-a")"),
            std::string::npos)
      << Event(sink.frames_[0]);
  EXPECT_NE(Event(sink.frames_[1]).find(R"("name":"cm-b")"), std::string::npos) << Event(sink.frames_[1]);
  std::string rv = std::to_string(store_.CurrentResourceVersion());
  EXPECT_EQ(Event(sink.frames_[2]),
            R"(BOOKMARK {"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
                R"(","annotations":{"k8s.io/initial-events-end":"true"}}})");
}

TEST_F(ProtobufResponsesTest, WatchFromTheFutureIsOneErrorFrameCarryingAStatus) {
  FrameSink sink(10);
  api_.Handle(Request("/api/v1/namespaces/default/configmaps", kProtobufFirst,
                      {{"watch", "true"}, {"resourceVersion", "999999"}}),
              sink);
  ASSERT_EQ(sink.frames_.size(), 1u);
  std::string event = Event(sink.frames_[0]);
  EXPECT_TRUE(event.starts_with(R"(ERROR {"kind":"Status","apiVersion":"v1",)")) << event;
  EXPECT_NE(event.find(R"("reason":"Timeout")"), std::string::npos) << event;
  EXPECT_NE(event.find(R"("code":504)"), std::string::npos) << event;
}

class ProtobufDisabledTest : public ProtobufResponsesTest {
 protected:
  ProtobufDisabledTest() : ProtobufResponsesTest(false) {}
};

TEST_F(ProtobufDisabledTest, DisableProtobufAnswersJsonAndRefusesAProtobufOnlyAccept) {
  HttpResponse r = Get("/api/v1/namespaces/default/configmaps/cm-a", kProtobufFirst);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_TRUE(json::Parse(r.body).has_value());
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/cm-a", "application/vnd.kubernetes.protobuf").status, 406);
}

constexpr const char* kCrd = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})";

TEST_F(ProtobufResponsesTest, CustomResourcesFallBackToJsonOrAre406WithoutAJsonChoice) {
  Create("apiextensions.k8s.io", "customresourcedefinitions", "", kCrd);
  Create("example.com", "widgets", "default", R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})");
  HttpResponse fallback = Get("/apis/example.com/v1/namespaces/default/widgets/w", kProtobufFirst);
  ASSERT_EQ(fallback.status, 200) << fallback.body;
  EXPECT_EQ(fallback.content_type, "application/json");
  EXPECT_TRUE(json::Parse(fallback.body).has_value());

  HttpResponse only = Get("/apis/example.com/v1/namespaces/default/widgets", "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(only.status, 406);
  auto doc = json::Parse(only.body);
  ASSERT_TRUE(doc) << only.body;
  EXPECT_EQ(json::GetString(*doc, {"reason"}), "NotAcceptable");
  EXPECT_EQ(json::GetString(*doc, {"message"}),
            "only the following media types are accepted: application/json, application/yaml");

  FrameSink watch(1);
  api_.Handle(Request("/apis/example.com/v1/namespaces/default/widgets", "application/vnd.kubernetes.protobuf",
                      {{"watch", "true"}}),
              watch);
  EXPECT_TRUE(watch.content_type_.empty());  // no stream was started
  EXPECT_NE(watch.error_.find("NotAcceptable"), std::string::npos);
}

}  // namespace
}  // namespace berth::kubesim
