// kubesim's Priority admission (issue 13): spec.priority from priorityClassName, the globalDefault
// class, the system classes, and upstream's Forbidden errors.
#include "e2e/kubesim/api/priority_admission.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim {
namespace {

class PriorityAdmissionTest : public ::testing::Test {
 protected:
  PriorityAdmissionTest() : api_(ApiServerOptions{}, store_, registry_) {
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
    for (const char* const* pc = BuiltinPriorityClasses(); *pc != nullptr; ++pc) {
      EXPECT_TRUE(Create("scheduling.k8s.io", "priorityclasses", "", *pc).ok());
    }
  }
  OpResult Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& body) {
    auto doc = json::Parse(body);
    EXPECT_TRUE(doc.has_value()) << body;
    return api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
  }
  OpResult CreatePod(const std::string& name, const std::string& spec_extra) {
    return Create("", "pods", "default",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                      R"("},"spec":{)" + spec_extra + R"("containers":[{"name":"c","image":"x"}]}})");
  }
  static rapidjson::Document Doc(const OpResult& r) { return std::move(*json::Parse(r.object->json)); }
  static std::string Message(const OpResult& r) {
    auto doc = json::Parse(r.error->body);
    return std::string(json::GetString(*doc, {"message"}));
  }

  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
};

TEST_F(PriorityAdmissionTest, TheClassGivesPriorityAndPreemptionPolicy) {
  ASSERT_TRUE(Create("scheduling.k8s.io", "priorityclasses", "",
                     R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"polite"},)"
                     R"("value":1000,"preemptionPolicy":"Never"})")
                  .ok());
  auto pod = CreatePod("p", R"("priorityClassName":"polite",)");
  ASSERT_TRUE(pod.ok()) << pod.error->body;
  auto doc = Doc(pod);
  EXPECT_EQ((*json::Find(doc, {"spec", "priority"})).GetInt64(), 1000);
  EXPECT_EQ(json::GetString(doc, {"spec", "preemptionPolicy"}), "Never");
  auto critical = CreatePod("c", R"("priorityClassName":"system-node-critical",)");
  ASSERT_TRUE(critical.ok());
  EXPECT_EQ((*json::Find(Doc(critical), {"spec", "priority"})).GetInt64(), 2000001000);
}

TEST_F(PriorityAdmissionTest, NoClassMeansTheGlobalDefaultOrZero) {
  auto plain = CreatePod("zero", "");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*json::Find(Doc(plain), {"spec", "priority"})).GetInt64(), 0);
  EXPECT_EQ(json::GetString(Doc(plain), {"spec", "preemptionPolicy"}), "PreemptLowerPriority");
  ASSERT_TRUE(Create("scheduling.k8s.io", "priorityclasses", "",
                     R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"dflt"},)"
                     R"("value":7,"globalDefault":true})")
                  .ok());
  auto defaulted = CreatePod("seven", "");
  ASSERT_TRUE(defaulted.ok());
  auto doc = Doc(defaulted);
  EXPECT_EQ((*json::Find(doc, {"spec", "priority"})).GetInt64(), 7);
  EXPECT_EQ(json::GetString(doc, {"spec", "priorityClassName"}), "dflt");
}

TEST_F(PriorityAdmissionTest, UnknownClassesAndConflictingValuesAreForbidden) {
  auto missing = CreatePod("m", R"("priorityClassName":"gold",)");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error->status, 403);
  EXPECT_EQ(Message(missing), R"(pods "m" is forbidden: no PriorityClass with name gold was found)");
  auto given = CreatePod("g", R"("priorityClassName":"system-cluster-critical","priority":5,)");
  ASSERT_FALSE(given.ok());
  EXPECT_EQ(Message(given),
            R"(pods "g" is forbidden: the integer value of priority (5) must not be provided in pod spec; )"
            "priority admission controller computed 2000000000 from the given PriorityClass name");
  EXPECT_TRUE(CreatePod("same", R"("priority":0,)").ok()) << "the value admission computes anyway is accepted";
}

TEST_F(PriorityAdmissionTest, PriorityClassValidation) {
  auto no_value = Create("scheduling.k8s.io", "priorityclasses", "",
                         R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"x"}})");
  ASSERT_FALSE(no_value.ok());
  EXPECT_EQ(no_value.error->status, 422);
  auto bad_policy = Create("scheduling.k8s.io", "priorityclasses", "",
                           R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"y"},)"
                           R"("value":1,"preemptionPolicy":"Sometimes"})");
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_NE(bad_policy.error->body.find("Unsupported value: \\\"Sometimes\\\""), std::string::npos)
      << bad_policy.error->body;
}

}  // namespace
}  // namespace berth::kubesim
