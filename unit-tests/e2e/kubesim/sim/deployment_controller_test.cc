#include "e2e/kubesim/sim/deployment_controller.h"

#include <regex>

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace berth::kubesim {
namespace {

using testing::SimHarness;

std::string Deployment(const std::string& name, int replicas, const std::string& image, const std::string& extra_spec = "") {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name + R"(","annotations":{"team":"a"}},"spec":{"replicas":)" +
         std::to_string(replicas) + extra_spec + R"(,"selector":{"matchLabels":{"app":")" + name +
         R"("}},"template":{"metadata":{"labels":{"app":")" + name + R"("}},"spec":{"containers":[{"name":"c","image":")" +
         image + R"("}]}}}})";
}

struct Rs {
  std::string name, hash, revision;
  int64_t replicas;
};

std::vector<Rs> ReplicaSets(SimHarness& h) {
  std::vector<Rs> out;
  auto page = h.api().store().List("apps/replicasets", "default", nullptr, 0, 0, "");
  for (const auto& o : page->items) {
    auto d = h.Get("apps/replicasets", "default", o->name);
    // The controller may delete a ReplicaSet between the List and this Get (history cleanup).
    const rapidjson::Value* replicas = json::Find(d, {"spec", "replicas"});
    if (replicas == nullptr || !replicas->IsInt64()) continue;
    out.push_back({o->name, std::string(json::GetString(d, {"metadata", "labels", "pod-template-hash"})),
                   std::string(json::GetString(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"})),
                   replicas->GetInt64()});
  }
  return out;
}

int64_t StatusInt(const rapidjson::Value& d, const char* field) {
  const rapidjson::Value* v = json::Find(d, {"status", field});
  return v && v->IsInt64() ? v->GetInt64() : 0;
}

const rapidjson::Value* Condition(const rapidjson::Value& d, std::string_view type) {
  const rapidjson::Value* c = json::Find(d, {"status", "conditions"});
  if (!c || !c->IsArray()) return nullptr;
  for (const auto& e : c->GetArray()) {
    if (json::GetString(e, {"type"}) == type) return &e;
  }
  return nullptr;
}

std::string Reason(const rapidjson::Value& d, std::string_view type) {
  const rapidjson::Value* c = Condition(d, type);
  return c ? std::string(json::GetString(*c, {"reason"})) : "";
}

bool Complete(SimHarness& h, const std::string& name, int64_t replicas) {
  h.BindPending("node-1");
  auto d = h.Get("apps/deployments", "default", name);
  return StatusInt(d, "updatedReplicas") == replicas && StatusInt(d, "availableReplicas") == replicas &&
         StatusInt(d, "replicas") == replicas && Reason(d, "Progressing") == "NewReplicaSetAvailable" &&
         StatusInt(d, "observedGeneration") == d["metadata"]["generation"].GetInt64();
}

void SetImage(SimHarness& h, const std::string& name, const std::string& image) {
  ASSERT_TRUE(h.Edit("apps", "deployments", "default", name, "", [&](rapidjson::Document& d) {
    json::SetString(d["spec"]["template"]["spec"]["containers"][0], "image", image, d.GetAllocator());
  }));
}

TEST(DeploymentControllerTest, ANewDeploymentGetsAReplicaSetNamedByThePodTemplateHashAtRevisionOne) {
  SimHarness h;
  h.Create("apps", "deployments", "default", Deployment("web", 2, "nginx:1"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  auto rses = ReplicaSets(h);
  ASSERT_EQ(rses.size(), 1u);
  EXPECT_TRUE(std::regex_match(rses[0].hash, std::regex("[bcdfghjklmnpqrstvwxz2456789]{1,10}"))) << rses[0].hash;
  EXPECT_EQ(rses[0].name, "web-" + rses[0].hash);
  EXPECT_EQ(rses[0].revision, "1");
  auto rs = h.Get("apps/replicasets", "default", rses[0].name);
  EXPECT_EQ(json::GetString(rs, {"spec", "selector", "matchLabels", "pod-template-hash"}), rses[0].hash);
  EXPECT_EQ(json::GetString(rs, {"spec", "template", "metadata", "labels", "pod-template-hash"}), rses[0].hash);
  EXPECT_EQ(json::GetString(rs, {"metadata", "annotations", "deployment.kubernetes.io/desired-replicas"}), "2");
  EXPECT_EQ(json::GetString(rs, {"metadata", "annotations", "deployment.kubernetes.io/max-replicas"}), "3");
  EXPECT_EQ(json::GetString(rs, {"metadata", "annotations", "team"}), "a");
  EXPECT_EQ(json::GetString(rs["metadata"]["ownerReferences"][0], {"kind"}), "Deployment");
  for (const auto& p : h.Pods()) EXPECT_EQ(json::GetString(p, {"metadata", "labels", "pod-template-hash"}), rses[0].hash);
  EXPECT_EQ(h.EventMessages("Deployment", "web"),
            std::vector<std::string>{"ScalingReplicaSet: Scaled up replica set " + rses[0].name + " from 0 to 2"});
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    auto d = h.Get("apps/deployments", "default", "web");
    return StatusInt(d, "updatedReplicas") == 2 && StatusInt(d, "unavailableReplicas") == 2;
  }));
  auto d = h.Get("apps/deployments", "default", "web");
  EXPECT_EQ(json::GetString(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
  EXPECT_EQ(Reason(d, "Available"), "MinimumReplicasUnavailable");
  EXPECT_EQ(json::GetString(*Condition(d, "Available"), {"message"}), "Deployment does not have minimum availability.");
  EXPECT_EQ(json::GetString(*Condition(d, "Progressing"), {"status"}), "True");
}

TEST(DeploymentControllerTest, RunningPodsMakeTheDeploymentAvailableAndComplete) {
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "deployments", "default", Deployment("web", 2, "nginx:1"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Complete(h, "web", 2); }));
  auto d = h.Get("apps/deployments", "default", "web");
  auto rs = ReplicaSets(h)[0];
  EXPECT_EQ(Reason(d, "Available"), "MinimumReplicasAvailable");
  EXPECT_EQ(json::GetString(*Condition(d, "Available"), {"message"}), "Deployment has minimum availability.");
  EXPECT_EQ(json::GetString(*Condition(d, "Progressing"), {"message"}), "ReplicaSet \"" + rs.name + "\" has successfully progressed.");
  EXPECT_EQ(StatusInt(d, "readyReplicas"), 2);
  EXPECT_FALSE(json::Find(d, {"status", "unavailableReplicas"}));
}

TEST(DeploymentControllerTest, ATemplateChangeRollsToANewReplicaSetAtTheNextRevision) {
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "deployments", "default", Deployment("web", 3, "nginx:1"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Complete(h, "web", 3); }));
  std::string first = ReplicaSets(h)[0].name;
  SetImage(h, "web", "nginx:2");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Complete(h, "web", 3) && ReplicaSets(h).size() == 2; }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 3; }));
  for (const auto& rs : ReplicaSets(h)) {
    if (rs.name == first) {
      EXPECT_EQ(rs.replicas, 0);
      EXPECT_EQ(rs.revision, "1");
    } else {
      EXPECT_EQ(rs.replicas, 3);
      EXPECT_EQ(rs.revision, "2");
      for (const auto& p : h.Pods()) EXPECT_EQ(json::GetString(p, {"metadata", "labels", "pod-template-hash"}), rs.hash);
    }
  }
  auto d = h.Get("apps/deployments", "default", "web");
  EXPECT_EQ(json::GetString(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "2");
  // Rolling back to the first template reuses its ReplicaSet, now at revision 3 (kubectl rollout
  // undo sends the template with metadata.creationTimestamp: null).
  ASSERT_TRUE(h.Edit("apps", "deployments", "default", "web", "", [&](rapidjson::Document& d) {
    json::SetString(d["spec"]["template"]["spec"]["containers"][0], "image", "nginx:1", d.GetAllocator());
    json::SetMember(d["spec"]["template"]["metadata"], "creationTimestamp", rapidjson::Value(), d.GetAllocator());
  }));
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    auto rses = ReplicaSets(h);
    return Complete(h, "web", 3) && rses.size() == 2 &&
           std::any_of(rses.begin(), rses.end(), [&](const Rs& rs) { return rs.name == first && rs.revision == "3" && rs.replicas == 3; });
  }));
}

TEST(DeploymentControllerTest, RecreateScalesOldPodsAwayBeforeTheNewReplicaSetStarts) {
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "deployments", "default", Deployment("web", 2, "nginx:1", R"(,"strategy":{"type":"Recreate"})"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Complete(h, "web", 2); }));
  std::string first = ReplicaSets(h)[0].name;
  auto first_uid = std::string(json::GetString(h.Get("apps/replicasets", "default", first), {"metadata", "uid"}));
  SetImage(h, "web", "nginx:2");
  bool saw_old_pod_with_new_rs = false;
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    if (ReplicaSets(h).size() == 2) {
      for (const auto& p : h.Pods()) {
        const rapidjson::Value* owners = json::Find(p, {"metadata", "ownerReferences"});
        if (owners && json::GetString((*owners)[0], {"uid"}) == first_uid) saw_old_pod_with_new_rs = true;
      }
    }
    return Complete(h, "web", 2) && ReplicaSets(h).size() == 2;
  }));
  EXPECT_FALSE(saw_old_pod_with_new_rs);
}

TEST(DeploymentControllerTest, ScalingResizesTheOnlyActiveReplicaSetAndItsDesiredReplicasAnnotation) {
  SimHarness h;
  h.Create("apps", "deployments", "default", Deployment("web", 1, "nginx:1"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 1; }));
  ASSERT_TRUE(h.Edit("apps", "deployments", "default", "web", "", [&](rapidjson::Document& d) {
    d["spec"]["replicas"].SetInt64(4);
  }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 4; }));
  auto rses = ReplicaSets(h);
  ASSERT_EQ(rses.size(), 1u);
  EXPECT_EQ(rses[0].replicas, 4);
  EXPECT_EQ(json::GetString(h.Get("apps/replicasets", "default", rses[0].name),
                            {"metadata", "annotations", "deployment.kubernetes.io/desired-replicas"}), "4");
}

// The "Proportional scaling" walkthrough of the Deployment documentation: 10 replicas with
// maxSurge 3 and maxUnavailable 2 stuck rolling out to a bad image (8 old, 5 new), scaled to 15,
// end with 11 old and 7 new.
TEST(DeploymentControllerTest, ScalingDuringAStuckRolloutSpreadsTheChangeProportionally) {
  SimHarness h;  // no node: pods never become available
  h.Create("apps", "deployments", "default",
           Deployment("web", 10, "nginx:1", R"(,"strategy":{"rollingUpdate":{"maxSurge":3,"maxUnavailable":2}})"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ReplicaSets(h).size() == 1 && ReplicaSets(h)[0].replicas == 10; }));
  std::string old_name = ReplicaSets(h)[0].name;
  SetImage(h, "web", "nginx:bad");
  auto sizes = [&] {
    std::pair<int64_t, int64_t> out{-1, -1};
    for (const auto& rs : ReplicaSets(h)) (rs.name == old_name ? out.first : out.second) = rs.replicas;
    return out;
  };
  ASSERT_TRUE(SimHarness::WaitFor([&] { return sizes() == std::make_pair<int64_t, int64_t>(8, 5); }));
  ASSERT_TRUE(h.Edit("apps", "deployments", "default", "web", "", [&](rapidjson::Document& d) { d["spec"]["replicas"].SetInt64(15); }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return sizes() == std::make_pair<int64_t, int64_t>(11, 7); })) << sizes().first << "/" << sizes().second;
  for (const auto& rs : ReplicaSets(h)) {
    EXPECT_EQ(json::GetString(h.Get("apps/replicasets", "default", rs.name), {"metadata", "annotations", "deployment.kubernetes.io/max-replicas"}), "18");
  }
}

TEST(DeploymentControllerTest, OldReplicaSetsBeyondRevisionHistoryLimitAreDeleted) {
  SimHarness h;
  h.AddNode("node-1");
  h.Create("apps", "deployments", "default", Deployment("web", 1, "nginx:1", R"(,"revisionHistoryLimit":1)"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Complete(h, "web", 1); }));
  for (const char* image : {"nginx:2", "nginx:3"}) {
    SetImage(h, "web", image);
    ASSERT_TRUE(SimHarness::WaitFor([&] {
      return Complete(h, "web", 1) && json::GetString(h.Get("apps/deployments", "default", "web"),
                                                      {"metadata", "annotations", "deployment.kubernetes.io/revision"}) ==
                                          (std::string(image) == "nginx:2" ? "2" : "3");
    }));
  }
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ReplicaSets(h).size() == 2; }));
  std::set<std::string> revisions;
  for (const auto& rs : ReplicaSets(h)) revisions.insert(rs.revision);
  EXPECT_EQ(revisions, (std::set<std::string>{"2", "3"}));
}

TEST(DeploymentControllerTest, APausedDeploymentDoesNotRollOut) {
  SimHarness h;
  h.Create("apps", "deployments", "default", Deployment("web", 1, "nginx:1", R"(,"paused":true)"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return Reason(h.Get("apps/deployments", "default", "web"), "Progressing") == "DeploymentPaused"; }));
  EXPECT_TRUE(ReplicaSets(h).empty());
  auto d = h.Get("apps/deployments", "default", "web");
  EXPECT_EQ(json::GetString(*Condition(d, "Progressing"), {"status"}), "Unknown");
  ASSERT_TRUE(h.Edit("apps", "deployments", "default", "web", "", [&](rapidjson::Document& doc) { doc["spec"]["paused"].SetBool(false); }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return ReplicaSets(h).size() == 1; }));
}

TEST(DeploymentControllerTest, AForegroundDeletionRemovesTheDeploymentAndDoesNotRecreateItsReplicaSet) {
  SimHarness h;
  h.Create("apps", "deployments", "default", Deployment("web", 2, "nginx:1"));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.Pods().size() == 2; }));
  DeleteOptions foreground;
  foreground.propagation_policy = "Foreground";
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("apps", "deployments"), "default", "web", foreground).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    return !h.api().store().Get("apps/deployments", "default", "web") && ReplicaSets(h).empty() && h.Pods().empty();
  }));
}

TEST(PodTemplateHashTest, IsStableIgnoresItsOwnLabelAndChangesWithTheTemplateOrCollisionCount) {
  auto a = *json::Parse(R"({"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto b = *json::Parse(R"({"spec":{"containers":[{"image":"i","name":"c"}]},"metadata":{"labels":{"pod-template-hash":"zz","app":"x"}}})");
  auto c = *json::Parse(R"({"metadata":{"labels":{"app":"y"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto with_null = *json::Parse(R"({"metadata":{"creationTimestamp":null,"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(PodTemplateHash(a, 0), PodTemplateHash(b, 0));
  EXPECT_EQ(PodTemplateHash(a, 0), PodTemplateHash(with_null, 0));
  EXPECT_NE(PodTemplateHash(a, 0), PodTemplateHash(c, 0));
  EXPECT_NE(PodTemplateHash(a, 0), PodTemplateHash(a, 1));
  EXPECT_TRUE(std::regex_match(PodTemplateHash(a, 0), std::regex("[bcdfghjklmnpqrstvwxz2456789]{1,10}")));
  rapidjson::Document garbage;
  garbage.SetString("not a template");
  EXPECT_FALSE(PodTemplateHash(garbage, 0).empty());
}

}  // namespace
}  // namespace berth::kubesim
