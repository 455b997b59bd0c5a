// POST /api/v1/namespaces/{ns}/bindings (what `kubectl create -f binding.yaml` sends) and its errors.
#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/pod_conditions.h"
#include "unit-tests/e2e/kubesim/api/recording_sink.h"

namespace berth::kubesim {
namespace {

using Sink = testing::RecordingSink;

class BindingsCollectionTest : public ::testing::Test {
 protected:
  BindingsCollectionTest() : api_(ApiServerOptions{}, store_, registry_) {
    Create("namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
    Create("nodes", "", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})");
    Create("pods", "default",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  }
  void Create(const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value());
    OpResult r = api_.DoCreate(*api_.TypeOf("", plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  HttpResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.body = body;
    r.headers["content-type"] = "application/json";
    Sink sink;
    api_.Handle(r, sink);
    return sink.response_;
  }
  std::string NodeOf(const std::string& pod) {
    ObjectPtr o = store_.Get("/pods", "default", pod);
    auto d = json::Parse(o->json);
    return std::string(json::GetString(*d, {"spec", "nodeName"}));
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

TEST_F(BindingsCollectionTest, BindsThePodTheBodyNames) {
  HttpResponse r = Call("POST", "/api/v1/namespaces/default/bindings",
                        R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"n1"}})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(NodeOf("web"), "n1");
  // The binding storage sets PodScheduled=True, once.
  auto pod = json::Parse(store_.Get("/pods", "default", "web")->json);
  const auto* conditions = json::Find(*pod, {"status", "conditions"});
  ASSERT_TRUE(conditions && conditions->IsArray());
  ASSERT_EQ(conditions->Size(), 1u);
  EXPECT_EQ(json::GetString((*conditions)[0], {"type"}), "PodScheduled");
  EXPECT_EQ(json::GetString((*conditions)[0], {"status"}), "True");
  HttpResponse again = Call("POST", "/api/v1/namespaces/default/bindings",
                            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"name":"n2"}})");
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.body.find("is already assigned to node \\\"n1\\\""), std::string::npos) << again.body;
}

TEST_F(BindingsCollectionTest, RefusesWhatIsNotACreateOfANamedBinding) {
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/bindings", R"({"kind":"Binding","target":{"name":"n1"}})").status, 422);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/bindings", R"({"kind":"Binding","metadata":{"name":"web"}})").status, 422);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/bindings", "{oops").status, 400);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/bindings").status, 405);
  EXPECT_EQ(Call("POST", "/api/v1/bindings", R"({"kind":"Binding","metadata":{"name":"web"},"target":{"name":"n1"}})").status, 404);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/bindings",
                 R"({"kind":"Binding","metadata":{"name":"missing"},"target":{"name":"n1"}})").status, 404);
  EXPECT_EQ(NodeOf("web"), "");
}

TEST(ConditionOfTypeTest, FindsTheConditionOrAppendsItAndRepairsANonArray) {
  auto status = json::Parse(R"({"conditions":[{"type":"Ready","status":"False"},{"type":"PodScheduled","status":"True"}]})");
  ASSERT_TRUE(status.has_value());
  auto& a = status->GetAllocator();
  EXPECT_EQ(json::GetString(ConditionOfType(*status, "PodScheduled", a), {"status"}), "True");
  rapidjson::Value& added = ConditionOfType(*status, "Initialized", a);
  EXPECT_EQ(json::Serialize(added), R"({"type":"Initialized"})");
  EXPECT_EQ((*status)["conditions"].Size(), 3u);
  auto broken = json::Parse(R"({"conditions":"oops"})");
  ASSERT_TRUE(broken.has_value());
  ConditionOfType(*broken, "Ready", broken->GetAllocator());
  EXPECT_EQ(json::Serialize(*broken), R"({"conditions":[{"type":"Ready"}]})");
}

}  // namespace
}  // namespace berth::kubesim
