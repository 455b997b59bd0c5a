// Custom resources of a CRD with several versions (conversion None): storage in the storage
// version, reads in the requested one, kube-aware version order in discovery, deprecation
// warnings, and the self == oldSelf immutability rule, through kubesim's HTTP handler.
#include "e2e/kubesim/api/crd_versions.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "unit-tests/e2e/kubesim/api/recording_sink.h"

namespace berth::kubesim {
namespace {

TEST(KubeAwareVersionTest, OrdersGaThenBetaThenAlphaThenOtherNames) {
  std::vector<std::string> order = {"v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2",
                                    "foo1", "foo10"};
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = 0; j < order.size(); ++j) {
      int c = CompareKubeAwareVersions(order[i], order[j]);
      if (i < j) {
        EXPECT_GT(c, 0) << order[i] << " before " << order[j];
      } else if (i > j) {
        EXPECT_LT(c, 0) << order[i] << " after " << order[j];
      } else {
        EXPECT_EQ(c, 0);
      }
    }
  }
  // Almost-kube names are other names: no digits, trailing text, a leading zero run is still a number.
  EXPECT_LT(CompareKubeAwareVersions("v", "v1alpha1"), 0);
  EXPECT_LT(CompareKubeAwareVersions("v1beta", "v1alpha1"), 0);
  EXPECT_LT(CompareKubeAwareVersions("v1.0", "v1alpha1"), 0);
  EXPECT_LT(CompareKubeAwareVersions("v99999999999", "v1alpha1"), 0);
}

TEST(DefaultDeprecationWarningTest, NamesTheMostPreferredNewerServedVersion) {
  std::vector<CrdVersionInfo> versions = {
      {"v1alpha1", true, true}, {"v1beta1", true, true}, {"v1", true, false}, {"v2", false, false}};
  EXPECT_EQ(DefaultDeprecationWarning("example.com", "v1alpha1", "Widget", versions),
            "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget");
  // Only v2 (not served) and deprecated versions are newer than v1beta1 here.
  versions[2].deprecated = true;
  EXPECT_EQ(DefaultDeprecationWarning("example.com", "v1beta1", "Widget", versions),
            "example.com/v1beta1 Widget is deprecated");
  // An older non-deprecated version is not suggested.
  EXPECT_EQ(DefaultDeprecationWarning("example.com", "v2", "Widget", {{"v1", true, false}, {"v2", true, true}}),
            "example.com/v2 Widget is deprecated");
}

// FirstChunkSink keeps the first chunk of a stream, then reports the client gone.
class FirstChunkSink : public ResponseSink {
 public:
  void Send(HttpResponse response) override { error_ = response.body; }
  bool BeginStream(int, std::string_view) override { return true; }
  bool WriteChunk(std::string_view data) override {
    chunk_ = data;
    return false;
  }
  void EndStream() override {}
  std::string chunk_, error_;
};

using testing::RecordingSink;

// A two-version CRD shaped like ProvisioningRequest's: v1 stored, v1beta1 deprecated.
constexpr const char* kCrd = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
    "versions": [
      {"name": "v1beta1", "served": true, "storage": false, "deprecated": true, DEPRECATION
       "subresources": {"status": {}}, "schema": {"openAPIV3Schema": SCHEMA}},
      {"name": "v1", "served": true, "storage": true,
       "subresources": {"status": {}}, "schema": {"openAPIV3Schema": SCHEMA}}]}})";
constexpr const char* kSchema = R"({"type": "object", "properties": {
    "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "Value is immutable"}],
             "properties": {"size": {"type": "integer"}}},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}})";

std::string Replace(std::string text, const std::string& what, const std::string& with) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
  return text;
}

class MultiVersionCrdTest : public ::testing::Test {
 protected:
  MultiVersionCrdTest() : api_(ApiServerOptions{}, store_, registry_) {}

  void InstallCrd(const std::string& deprecation) {
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
    Create("apiextensions.k8s.io", "customresourcedefinitions", "",
           Replace(Replace(kCrd, "DEPRECATION", deprecation), "SCHEMA", kSchema));
  }
  void Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value()) << text;
    OpResult r = api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  HttpResponse Call(const std::string& method, const std::string& path, const std::string& body = "",
                    const std::string& content_type = "application/json") {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.body = body;
    r.headers["content-type"] = content_type;
    RecordingSink sink;
    api_.Handle(r, sink);
    return sink.response_;
  }
  static std::vector<std::string> Warnings(const HttpResponse& r) {
    std::vector<std::string> out;
    for (const auto& [name, value] : r.headers) {
      if (name == "Warning") out.push_back(value);
    }
    return out;
  }
  static std::string Field(const HttpResponse& r, std::initializer_list<std::string_view> path) {
    auto doc = json::Parse(r.body);
    return doc ? std::string(json::GetString(*doc, path)) : "<unparsable: " + r.body + ">";
  }
  std::string StoredApiVersion(const std::string& name) {
    ObjectPtr stored = store_.Get("example.com/widgets", "default", name);
    if (!stored) return "<missing>";
    auto doc = json::Parse(stored->json);
    return std::string(json::GetString(*doc, {"apiVersion"}));
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

constexpr const char* kV1Path = "/apis/example.com/v1/namespaces/default/widgets";
constexpr const char* kV1beta1Path = "/apis/example.com/v1beta1/namespaces/default/widgets";

TEST_F(MultiVersionCrdTest, ObjectsAreStoredInTheStorageVersionAndReadInTheRequestedOne) {
  InstallCrd(R"("deprecationWarning": "example.com/v1beta1 is going away",)");
  auto created = Call("POST", kV1beta1Path,
                      R"({"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Field(created, {"apiVersion"}), "example.com/v1beta1");
  EXPECT_EQ(StoredApiVersion("w"), "example.com/v1");

  auto as_v1 = Call("GET", std::string(kV1Path) + "/w");
  ASSERT_EQ(as_v1.status, 200) << as_v1.body;
  EXPECT_EQ(Field(as_v1, {"apiVersion"}), "example.com/v1");
  EXPECT_TRUE(Warnings(as_v1).empty());
  auto as_beta = Call("GET", std::string(kV1beta1Path) + "/w");
  EXPECT_EQ(Field(as_beta, {"apiVersion"}), "example.com/v1beta1");
  auto list = Call("GET", kV1beta1Path);
  auto doc = json::Parse(list.body);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(json::GetString(*doc, {"apiVersion"}), "example.com/v1beta1");
  EXPECT_EQ(json::GetString((*doc)["items"][0], {"apiVersion"}), "example.com/v1beta1");

  // A patch through the old version keeps the object in the storage version.
  auto patched = Call("PATCH", std::string(kV1beta1Path) + "/w", R"({"metadata":{"labels":{"a":"b"}}})",
                      "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Field(patched, {"apiVersion"}), "example.com/v1beta1");
  EXPECT_EQ(Field(patched, {"metadata", "labels", "a"}), "b");
  EXPECT_EQ(StoredApiVersion("w"), "example.com/v1");
  // A status update through v1 of an object last written through v1beta1.
  auto status = Call("PATCH", std::string(kV1Path) + "/w/status", R"({"status":{"phase":"Ready"}})",
                     "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(Field(status, {"status", "phase"}), "Ready");
}

TEST_F(MultiVersionCrdTest, WatchEventsCarryTheWatchedVersion) {
  InstallCrd("");
  const uint64_t rv = store_.CurrentResourceVersion();
  ASSERT_EQ(Call("POST", kV1Path, R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}})")
                .status,
            201);
  HttpRequest r;
  r.method = "GET";
  r.path = kV1beta1Path;
  r.query = {{"watch", "true"}, {"resourceVersion", std::to_string(rv)}};
  r.target = r.path + "?watch=true&resourceVersion=" + std::to_string(rv);
  FirstChunkSink sink;
  api_.Handle(r, sink);
  ASSERT_EQ(sink.error_, "");
  auto event = json::Parse(sink.chunk_.substr(0, sink.chunk_.find('\n')));
  ASSERT_TRUE(event.has_value()) << sink.chunk_;
  EXPECT_EQ(json::GetString(*event, {"type"}), "ADDED");
  EXPECT_EQ(json::GetString(*event, {"object", "apiVersion"}), "example.com/v1beta1");
  EXPECT_EQ(json::GetString(*event, {"object", "metadata", "name"}), "w");
}

TEST_F(MultiVersionCrdTest, AnUnchangedWriteThroughTheOtherVersionIsANoOp) {
  InstallCrd("");
  ASSERT_EQ(Call("POST", kV1Path, R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}})")
                .status,
            201);
  const uint64_t rv = store_.CurrentResourceVersion();
  auto got = Call("GET", std::string(kV1beta1Path) + "/w");
  auto put = Call("PUT", std::string(kV1beta1Path) + "/w", got.body);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);
}

TEST_F(MultiVersionCrdTest, TheDeprecatedVersionWarnsOnEveryRequestWithItsTextOrTheDefault) {
  InstallCrd(R"("deprecationWarning": "autoscaling.k8s.io/v1beta1 API is \"deprecated\"",)");
  auto missing = Call("GET", std::string(kV1beta1Path) + "/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Warnings(missing), (std::vector<std::string>{R"(299 - "autoscaling.k8s.io/v1beta1 API is \"deprecated\"")"}));
  EXPECT_EQ(Warnings(Call("GET", kV1beta1Path)).size(), 1u);
  EXPECT_TRUE(Warnings(Call("GET", kV1Path)).empty());
}

TEST_F(MultiVersionCrdTest, WithoutDeprecationWarningTheApiserversDefaultTextIsSent) {
  InstallCrd("");
  EXPECT_EQ(Warnings(Call("GET", kV1beta1Path)),
            (std::vector<std::string>{R"(299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget")"}));
}

TEST_F(MultiVersionCrdTest, DiscoveryListsTheVersionsKubeAwareWithThePreferredFirst) {
  InstallCrd("");
  auto group = Call("GET", "/apis/example.com");
  ASSERT_EQ(group.status, 200) << group.body;
  auto doc = json::Parse(group.body);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(json::GetString(*doc, {"preferredVersion", "version"}), "v1");
  ASSERT_EQ((*doc)["versions"].Size(), 2u);
  EXPECT_EQ(json::GetString((*doc)["versions"][0], {"version"}), "v1");
  EXPECT_EQ(json::GetString((*doc)["versions"][1], {"version"}), "v1beta1");
  EXPECT_EQ(Call("GET", "/apis/example.com/v1beta1").status, 200);
}

TEST_F(MultiVersionCrdTest, ChangingTheSpecIsRejectedAsTheImmutabilityRuleSays) {
  InstallCrd("");
  ASSERT_EQ(Call("POST", kV1Path, R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}})")
                .status,
            201);
  for (const char* path : {kV1Path, kV1beta1Path}) {
    auto r = Call("PATCH", std::string(path) + "/w", R"({"spec":{"size":2}})", "application/merge-patch+json");
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(Field(r, {"message"}), "Widget.example.com \"w\" is invalid: spec: Invalid value: \"object\": Value is immutable");
    auto doc = json::Parse(r.body);
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(json::GetString((*doc)["details"]["causes"][0], {"field"}), "spec");
    EXPECT_EQ(json::GetString((*doc)["details"]["causes"][0], {"reason"}), "FieldValueInvalid");
    EXPECT_EQ(json::GetString((*doc)["details"]["causes"][0], {"message"}), "Invalid value: \"object\": Value is immutable");
  }
  // Metadata and status still change.
  EXPECT_EQ(Call("PATCH", std::string(kV1Path) + "/w", R"({"metadata":{"labels":{"a":"b"}}})",
                 "application/merge-patch+json").status, 200);
  EXPECT_EQ(Call("PATCH", std::string(kV1Path) + "/w/status", R"({"status":{"phase":"Done"}})",
                 "application/merge-patch+json").status, 200);
}

}  // namespace
}  // namespace berth::kubesim
