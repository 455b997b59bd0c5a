#include "e2e/kubesim/sim/default_scheduler_fit.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::scheduling {
namespace {

rapidjson::Document Doc(const std::string& text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document(rapidjson::kObjectType);
}

std::string Node(const std::string& name, const std::string& cpu, const std::string& extra_spec = "",
                 const std::string& labels = "{}") {
  return R"({"metadata":{"name":")" + name + R"(","labels":)" + labels + R"(},"spec":{)" + extra_spec +
         R"(},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":"4Gi","pods":"10"}}})";
}

std::string Pod(const std::string& cpu, const std::string& extra_spec = "") {
  return R"({"metadata":{"name":"p"},"spec":{)" + extra_spec + (extra_spec.empty() ? "" : ",") +
         R"("containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu + R"("}}}]}})";
}

TEST(DefaultSchedulerFitTest, PodRequestsTakesTheLargerOfContainersAndInitContainersPlusOverhead) {
  auto pod = Doc(R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"1Gi"}}},
                                           {"name":"b","resources":{"requests":{"cpu":"200m"}}}],
                             "initContainers":[{"name":"i","resources":{"requests":{"cpu":"1","memory":"10Mi"}}}],
                             "overhead":{"cpu":"50m"}}})");
  auto r = PodRequests(pod);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ((*r)["cpu"], 1050);
  EXPECT_EQ((*r)["memory"], (int64_t{1} << 30) * 1000);  // 1Gi in milli-units; the init container's 10Mi is smaller
  EXPECT_EQ((*r)["pods"], 1000);
}

TEST(DefaultSchedulerFitTest, MalformedQuantitiesAreErrorsNamingTheField) {
  auto r = PodRequests(Doc(R"({"spec":{"containers":[{"name":"web","resources":{"requests":{"cpu":"lots"}}}]}})"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("spec.containers[web].resources.requests.cpu"), std::string::npos) << r.error().message;
  auto n = ParseNode(Doc(R"({"metadata":{"name":"n"},"status":{"allocatable":{"memory":"1Qi"}}})"));
  ASSERT_FALSE(n.has_value());
  EXPECT_NE(n.error().message.find("status.allocatable.memory"), std::string::npos);
  EXPECT_FALSE(ParseNode(Doc(R"({"metadata":{"name":"n"},"status":{"allocatable":[]}})")).has_value());
}

struct Cluster {
  std::vector<rapidjson::Document> docs;
  std::vector<NodeState> nodes;
  void Add(const std::string& text) {
    docs.push_back(Doc(text));
  }
  std::vector<NodeState>& Build(std::vector<Resources> requested = {}) {
    nodes.clear();
    for (size_t i = 0; i < docs.size(); ++i) {
      auto n = ParseNode(docs[i]);
      EXPECT_TRUE(n.has_value());
      if (i < requested.size()) n->requested = requested[i];
      nodes.push_back(std::move(*n));
    }
    return nodes;
  }
};

TEST(DefaultSchedulerFitTest, InsufficientCpuEverywhereGivesKubeSchedulersMessage) {
  Cluster c;
  for (const char* name : {"a", "b", "c"}) c.Add(Node(name, "1"));
  auto pod = Doc(Pod("2"));
  Decision d = Schedule(pod, *PodRequests(pod), c.Build());
  EXPECT_FALSE(d.node.has_value());
  EXPECT_EQ(d.message, "0/3 nodes are available: 3 Insufficient cpu.");
}

TEST(DefaultSchedulerFitTest, BoundPodsUseUpAllocatable) {
  Cluster c;
  c.Add(Node("a", "2"));
  c.Add(Node("b", "2"));
  auto pod = Doc(Pod("1500m"));
  Decision d = Schedule(pod, *PodRequests(pod), c.Build({{{"cpu", 1000}}, {{"cpu", 400}}}));
  ASSERT_TRUE(d.node.has_value()) << d.message;
  EXPECT_EQ(*d.node, "b");
  Decision none = Schedule(pod, *PodRequests(pod), c.Build({{{"cpu", 1000}}, {{"cpu", 600}}}));
  EXPECT_EQ(none.message, "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST(DefaultSchedulerFitTest, FirstFailingFilterPerNodeIsCountedAndReasonsAreSorted) {
  Cluster c;
  c.Add(Node("cordoned", "8", R"("unschedulable":true)"));
  c.Add(Node("tainted", "8", R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"));
  c.Add(Node("prefer", "8", R"("taints":[{"key":"soft","effect":"PreferNoSchedule"}])", R"({"zone":"b"})"));
  c.Add(Node("small", "1", "", R"({"zone":"a"})"));
  auto pod = Doc(Pod("2", R"("nodeSelector":{"zone":"a"})"));
  Decision d = Schedule(pod, *PodRequests(pod), c.Build({{}, {}, {}, {{"pods", 10000}}}));
  EXPECT_FALSE(d.node.has_value());
  EXPECT_EQ(d.message,
            "0/4 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) didn't match Pod's node "
            "affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable.");
}

TEST(DefaultSchedulerFitTest, TolerationsAdmitTaintedAndCordonedNodes) {
  Cluster c;
  c.Add(Node("tainted", "8", R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"));
  auto equal = Doc(Pod("1", R"("tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}])"));
  EXPECT_EQ(Schedule(equal, *PodRequests(equal), c.Build()).node, "tainted");
  auto wrong_value = Doc(Pod("1", R"("tolerations":[{"key":"dedicated","value":"cpu"}])"));
  EXPECT_FALSE(Schedule(wrong_value, *PodRequests(wrong_value), c.Build()).node.has_value());
  auto all = Doc(Pod("1", R"("tolerations":[{"operator":"Exists"}])"));
  EXPECT_EQ(Schedule(all, *PodRequests(all), c.Build()).node, "tainted");

  Cluster cordoned;
  cordoned.Add(Node("n", "8", R"("unschedulable":true)"));
  auto tolerant = Doc(Pod("1", R"("tolerations":[{"key":"node.kubernetes.io/unschedulable","operator":"Exists","effect":"NoSchedule"}])"));
  EXPECT_EQ(Schedule(tolerant, *PodRequests(tolerant), cordoned.Build()).node, "n");
}

TEST(DefaultSchedulerFitTest, LeastAllocatedNodeWinsAndTiesGoByName) {
  Cluster c;
  c.Add(Node("b", "4"));
  c.Add(Node("a", "4"));
  c.Add(Node("c", "8"));
  auto pod = Doc(Pod("1"));
  EXPECT_EQ(Schedule(pod, *PodRequests(pod), c.Build()).node, "c");
  EXPECT_EQ(Schedule(pod, *PodRequests(pod), c.Build({{}, {}, {{"cpu", 5000}}})).node, "a");
}

TEST(DefaultSchedulerFitTest, ExtendedResourcesMustBeAllocatable) {
  Cluster c;
  c.Add(Node("a", "4"));
  auto pod = Doc(R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"example.com/gpu":"1"}}}]}})");
  EXPECT_EQ(Schedule(pod, *PodRequests(pod), c.Build()).message, "0/1 nodes are available: 1 Insufficient example.com/gpu.");
}

TEST(DefaultSchedulerFitTest, NoNodesIsErrNoNodesAvailable) {
  auto pod = Doc(Pod("1"));
  EXPECT_EQ(Schedule(pod, *PodRequests(pod), {}).message, "no nodes available to schedule pods");
}

}  // namespace
}  // namespace berth::kubesim::scheduling
