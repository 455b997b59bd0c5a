#include "e2e/kubesim/table/jsonpath.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"

namespace berth::kubesim::table {
namespace {

using testing::CellText;
using testing::ParseJson;

constexpr std::string_view kPod = R"({
  "metadata": {"name": "web-0", "creationTimestamp": "2024-05-01T10:00:00Z",
               "labels": {"app.kubernetes.io/name": "web", "tier": "front"}},
  "spec": {"containers": [{"name": "app", "image": "nginx:1.25"},
                          {"name": "sidecar", "image": "envoy:1.30"}],
           "template": {"spec": {"containers": [{"image": "busybox"}]}}},
  "status": {"phase": "Running", "replicas": 3, "ratio": 0.5, "ready": true,
             "conditions": [{"type": "Initialized", "status": "True"},
                            {"type": "Ready", "status": "False", "reason": "ContainersNotReady"},
                            {"type": "PodScheduled", "status": "True", "priority": 2}],
             "nothing": null}
})";

// Eval parses and evaluates, returning the printed results (or "ERROR").
std::vector<std::string> Eval(std::string_view path, std::string_view doc = kPod) {
  auto parsed = ParseJsonPath(path);
  EXPECT_TRUE(parsed) << path << ": " << (parsed ? "" : parsed.error().message);
  if (!parsed) return {"PARSE ERROR"};
  rapidjson::Document root = ParseJson(doc);
  auto found = parsed->Find(root);
  if (!found) return {"ERROR"};
  std::vector<std::string> out;
  for (const rapidjson::Value* v : *found) out.push_back(CellText(*v));
  return out;
}

using Strings = std::vector<std::string>;

TEST(JsonPath, FollowsFieldsAndReturnsNothingForMissingKeys) {
  EXPECT_EQ(Eval(".status.phase"), Strings{"Running"});
  EXPECT_EQ(Eval("{.status.phase}"), Strings{"Running"});
  EXPECT_EQ(Eval("$.status.phase"), Strings{"Running"});
  EXPECT_EQ(Eval(".metadata.creationTimestamp"), Strings{"2024-05-01T10:00:00Z"});
  EXPECT_EQ(Eval(".status.nodeName"), Strings{});
  EXPECT_EQ(Eval(".spec.ttl.deeper"), Strings{});
  EXPECT_EQ(Eval(".status.phase.length"), Strings{});  // a field of a string is missing, not an error
  EXPECT_EQ(Eval(".status.nothing"), Strings{"null"});
}

TEST(JsonPath, ReadsQuotedAndEscapedKeys) {
  EXPECT_EQ(Eval(".metadata.labels['app.kubernetes.io/name']"), Strings{"web"});
  EXPECT_EQ(Eval(R"(.metadata.labels["tier"])"), Strings{"front"});
  EXPECT_EQ(Eval(R"(.metadata.labels.app\.kubernetes\.io/name)"), Strings{"web"});
}

TEST(JsonPath, IndexesSlicesAndWildcards) {
  EXPECT_EQ(Eval(".spec.containers[0].image"), Strings{"nginx:1.25"});
  EXPECT_EQ(Eval(".spec.template.spec.containers[0].image"), Strings{"busybox"});
  EXPECT_EQ(Eval(".spec.containers[-1].name"), Strings{"sidecar"});
  EXPECT_EQ(Eval(".spec.containers[*].name"), (Strings{"app", "sidecar"}));
  EXPECT_EQ(Eval(".spec.containers[0:1].name"), Strings{"app"});
  EXPECT_EQ(Eval(".spec.containers[0,1].image"), (Strings{"nginx:1.25", "envoy:1.30"}));
  EXPECT_EQ(Eval(".status.conditions[::2].type"), (Strings{"Initialized", "PodScheduled"}));
  EXPECT_EQ(Eval(".metadata.labels.*"), (Strings{"web", "front"}));
  EXPECT_EQ(Eval("..image"), (Strings{"nginx:1.25", "envoy:1.30", "busybox"}));
}

TEST(JsonPath, IndexErrorsAreEvaluationErrors) {
  EXPECT_EQ(Eval(".spec.containers[5].name"), Strings{"ERROR"});
  EXPECT_EQ(Eval(".status.phase[0]"), Strings{"ERROR"});
  EXPECT_EQ(Eval(".spec.containers[5:5]"), Strings{});  // zero elements requested is fine
  EXPECT_EQ(Eval(".spec.containers[0:9]"), Strings{"ERROR"});  // ends are not clamped
  EXPECT_EQ(Eval(".spec.containers[1:0]"), Strings{"ERROR"});
  EXPECT_EQ(Eval(".spec.containers[-2].name"), Strings{"app"});
}

TEST(JsonPath, FiltersArrayElements) {
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type=="Ready")].status)"), Strings{"False"});
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type == 'Ready')].reason)"), Strings{"ContainersNotReady"});
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.status!="True")].type)"), Strings{"Ready"});
  EXPECT_EQ(Eval(".status.conditions[?(@.reason)].type"), Strings{"Ready"});
  EXPECT_EQ(Eval(".status.conditions[?(@.priority>=2)].type"), Strings{"PodScheduled"});
  EXPECT_EQ(Eval(".status.conditions[?(@.priority<2)].type"), Strings{});
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.type=="Missing")].status)"), Strings{});
}

TEST(JsonPath, ComparingDifferentKindsIsAnError) {
  EXPECT_EQ(Eval(R"(.status.conditions[?(@.priority=="2")].type)"), Strings{"ERROR"});
  EXPECT_EQ(Eval(R"(.status[?(@.type=="x")])"), Strings{"ERROR"});  // not an array
}

TEST(JsonPath, RootPathSelectsTheWholeObject) {
  EXPECT_EQ(Eval(".", R"({"a":1})"), Strings{R"({"a":1})"});
}

TEST(JsonPath, RejectsMalformedPathsWithAnError) {
  for (const char* bad : {"", "   ", "status.phase", ".status[", ".status[0", ".a[?(@.x==)]",
                          ".a[?(@.x=='open)]", ".a[?@.x]", ".a[abc]", ".a[1,]", "...a",
                          "{.status.phase", ".a[::0]", ".a]", ".a[99999999999999999999]",
                          "{}", ".a[?(1)]"}) {
    auto parsed = ParseJsonPath(bad);
    ASSERT_FALSE(parsed) << "accepted: " << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(parsed.error().message.find("invalid JSONPath"), std::string::npos);
  }
}

TEST(JsonPath, KeepsItsSource) {
  auto parsed = ParseJsonPath(".spec.ttl");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->source(), ".spec.ttl");
}

}  // namespace
}  // namespace berth::kubesim::table
