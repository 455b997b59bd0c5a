#include "controllers/common/pod_cache.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/cached_object.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

// A Running pod being preempted, as an API server returns it: every status member a controller
// reads, and the ones none does (container statuses, IPs, QoS class).
constexpr char kRunningPod[] = R"({
 "apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-1","namespace":"shop","uid":"u-1","resourceVersion":"7",
  "deletionTimestamp":"2026-11-27T10:00:30Z","labels":{"app":"web"},
  "managedFields":[{"manager":"kubelet","operation":"Update"}]},
 "spec":{"nodeName":"node-3","schedulerName":"default-scheduler","priority":100,
  "containers":[{"name":"app","image":"web","env":[{"name":"MODE","value":"prod"}],
   "ports":[{"containerPort":8080,"hostPort":8080,"protocol":"TCP"}],
   "resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}],
  "volumes":[{"name":"data","emptyDir":{}}]},
 "status":{"phase":"Running","qosClass":"Burstable","podIP":"10.0.3.17","podIPs":[{"ip":"10.0.3.17"}],
  "hostIP":"192.168.0.3","hostIPs":[{"ip":"192.168.0.3"}],"startTime":"2026-11-27T09:00:01Z",
  "nominatedNodeName":"node-9","reason":"Preempting","message":"by p",
  "conditions":[{"type":"Ready","status":"True"},
   {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}],
  "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"web:latest",
   "imageID":"docker.io/library/web@sha256:4f1b0c","containerID":"containerd://4f1b0c",
   "state":{"running":{"startedAt":"2026-11-27T09:00:04Z"}}}]}})";

rapidjson::Document Transformed(const shim::Transform& transform) {
  auto pod = json::Parse(kRunningPod);
  EXPECT_TRUE(pod);
  EXPECT_TRUE(transform(*pod, pod->GetAllocator()));
  return std::move(*pod);
}

TEST(PodCacheTest, KeepsTheStatusMembersControllersReadAndDropsTheRest) {
  const rapidjson::Document pod = Transformed(PodCacheTransform());
  std::vector<std::string> status;
  for (const auto& m : pod["status"].GetObject()) status.emplace_back(m.name.GetString());
  EXPECT_EQ(status, (std::vector<std::string>{"phase", "startTime", "nominatedNodeName", "conditions"}));
  // Spec stays whole (a migration copies it into its Reservation's template); metadata as by default.
  const rapidjson::Document original = *json::Parse(kRunningPod);
  EXPECT_EQ(pod["spec"], original["spec"]);
  EXPECT_FALSE(pod["metadata"].HasMember("managedFields"));
  EXPECT_STREQ(pod["metadata"]["deletionTimestamp"].GetString(), "2026-11-27T10:00:30Z");
}

// What the scheduler reads of a pod (its view and priority, the preemption victim check) is the
// same whether the pod was cached whole (DefaultTransform) or through PodCacheTransform.
TEST(PodCacheTest, TheSchedulersViewOfAPodIsTheSameAsFromTheWholeStatus) {
  const rapidjson::Document slim = Transformed(PodCacheTransform());
  const rapidjson::Document whole = Transformed(shim::DefaultTransform());
  const auto a = ReadPodView(slim);
  const auto b = ReadPodView(whole);
  EXPECT_EQ(a.priority.value, b.priority.value);
  ASSERT_TRUE(a.priority.start_time.has_value());
  EXPECT_EQ(a.priority.start_time, b.priority.start_time);
  EXPECT_EQ(a.priority.nominated_node_name, "node-9");
  EXPECT_EQ(a.priority.nominated_node_name, b.priority.nominated_node_name);
  EXPECT_TRUE(a.priority.terminating_by_preemption);
  EXPECT_EQ(a.priority.terminating_by_preemption, b.priority.terminating_by_preemption);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.container_images, b.container_images);
  EXPECT_EQ(a.host_ports.size(), 1u);
  EXPECT_EQ(a.host_ports.size(), b.host_ports.size());
  EXPECT_EQ(a.node_name, b.node_name);
  EXPECT_EQ(PodIsTerminal(slim), PodIsTerminal(whole));
}

// The figure behind the transform: bytes per cached pod over 2,000 pods differing in name, uid,
// IPs and container ids (shared pool), with the whole status and with PodCacheTransform.
TEST(PodCacheTest, ACachedRunningPodCostsLessThanWithItsWholeStatus) {
  auto bytes_per_pod = [](const shim::Transform& transform) {
    shim::InternPool pool;
    std::vector<shim::ObjectPtr> pods;
    size_t own = 0;
    for (int i = 0; i < 2000; ++i) {
      auto pod = json::Parse(kRunningPod);
      auto& a = pod->GetAllocator();
      const std::string n = std::to_string(i);
      json::SetString((*pod)["metadata"], "name", "web-" + n, a);
      json::SetString((*pod)["metadata"], "uid", "u-" + n, a);
      json::SetString((*pod)["status"], "podIP", "10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250), a);
      json::SetString((*pod)["status"]["containerStatuses"][0], "containerID", "containerd://c0ffee" + n, a);
      EXPECT_TRUE(transform(*pod, a));
      auto obj = shim::CachedObject::FromJson(*pod, pool);
      EXPECT_TRUE(obj);
      own += (*obj)->FootprintBytes();
      pods.push_back(*obj);
    }
    return (own + pool.FootprintBytes()) / pods.size();
  };
  const size_t slim = bytes_per_pod(PodCacheTransform());
  const size_t whole = bytes_per_pod(shim::DefaultTransform());
  std::printf("cached running pod: %zu bytes with PodCacheTransform, %zu with the whole status\n", slim, whole);
  EXPECT_LT(slim * 10, whole * 9);  // at least 10 % smaller
}

}  // namespace
}  // namespace berth::controllers
