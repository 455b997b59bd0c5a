// PodViewJson: the scheduler decodes only part of a cached pod (PodViewFilter). What it leaves
// out must be what ReadPodView, PodIsTerminal and the pod handler never read: a pod with every
// field they read (and the heavy ones they do not) reads the same through it as from its whole
// JSON.
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "clientgo-shim/cache/cached_object.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;
using json::testing::Parse;
using scheduler_support::PodViewJson;

std::string Describe(const placement::NodeSelectorTerm& t) {
  std::ostringstream o;
  for (const auto* list : {&t.match_expressions, &t.match_fields}) {
    o << "[";
    for (const auto& r : *list) {
      o << r.key << " " << static_cast<int>(r.op);
      for (const auto& v : r.values) o << " " << v;
      o << ";";
    }
    o << "]";
  }
  return o.str();
}

std::string Describe(const placement::PodAffinityTerm& t) {
  std::ostringstream o;
  o << t.selector.String() << "|" << t.topology_key << "|" << t.weight << "|";
  for (const auto& n : t.namespaces) o << n << ",";
  if (t.namespace_selector) o << "|ns:" << t.namespace_selector->String();
  return o.str();
}

// Describe: every field of a view, in one string, so two views compare field by field.
std::string Describe(const placement::PodSpecView& v) {
  std::ostringstream o;
  o << "ns=" << v.namespace_name << " name=" << v.name << " uid=" << v.uid << "\nlabels=";
  for (const auto& [k, val] : v.labels) o << k << "=" << val << ",";
  o << "\nowners=";
  for (const auto& r : v.owner_references) o << r.api_version << "/" << r.kind << "/" << r.name << "/" << r.uid << "/" << r.controller << ",";
  o << "\npriority=" << v.priority.value << "/" << v.priority.preempt_never << "/" << v.priority.start_time.has_value()
    << "/" << v.priority.nominated_node_name << "/" << v.priority.terminating_by_preemption << "/" << v.priority.error;
  o << "\nnode=" << v.node_name << "\nnodeSelector=";
  for (const auto& [k, val] : v.node_selector) o << k << "=" << val << ",";
  o << "\nrequired=";
  if (v.required_node_affinity) {
    for (const auto& t : *v.required_node_affinity) o << Describe(t) << ",";
  } else {
    o << "none";
  }
  o << "\npreferred=";
  for (const auto& p : v.preferred_node_affinity) o << p.weight << ":" << Describe(p.preference) << ",";
  o << "\ntolerations=";
  for (const auto& t : v.tolerations) o << t.key << "/" << t.op << "/" << t.value << "/" << t.effect << ",";
  o << "\npodAffinity=";
  if (v.pod_affinity) {
    for (const auto* terms : {&v.pod_affinity->required_affinity, &v.pod_affinity->required_anti_affinity,
                              &v.pod_affinity->preferred_affinity, &v.pod_affinity->preferred_anti_affinity}) {
      o << "[";
      for (const auto& t : *terms) o << Describe(t) << ";";
      o << "]";
    }
  }
  o << "\nspread=";
  for (const auto& c : v.topology_spread) {
    o << c.max_skew << "/" << c.topology_key << "/" << c.do_not_schedule << "/" << c.selector.String() << "/"
      << c.min_domains.value_or(-1) << "/" << c.honor_node_affinity << "/" << c.honor_node_taints << ",";
  }
  o << "\nimages=";
  for (const auto& i : v.container_images) o << i << ",";
  o << "\nrequests=";
  for (const auto& [k, milli] : v.requests) o << k << "=" << milli << ",";
  o << "\nerrors=";
  for (const auto& e : v.request_errors) o << e << ";";
  o << "\nreservation=" << v.reservation_uid << "/" << v.reservation_ignored << "/" << (v.reservation_affinity != nullptr)
    << "/" << v.reservation_affinity_error << "\nexact=";
  for (const auto& r : v.exact_match_resources) o << r << ",";
  o << "/" << v.exact_match_error << "\nhostPorts=";
  for (const auto& p : v.host_ports) o << p.protocol << "/" << p.ip << "/" << p.port << ",";
  o << "\nconsumes=" << v.consumes_provisioning_request << " terminating=" << v.terminating;
  return o.str();
}

// A pod with every field the scheduler reads, and the heavy ones it does not.
constexpr const char* kRichPod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web-0","namespace":"shop","uid":"u-1","resourceVersion":"7",
    "deletionTimestamp":"2026-11-27T10:00:00Z",
    "labels":{"app":"web","scheduling.koordinator.sh/reservation-ignored":"false","pod-template-hash":"abc"},
    "annotations":{"scheduling.koordinator.sh/reservation-allocated":"{\"name\":\"r1\",\"uid\":\"r-uid\"}",
      "scheduling.koordinator.sh/reservation-affinity":"{\"reservationSelector\":{\"pool\":\"a\"}}",
      "scheduling.koordinator.sh/exact-match-reservation":"{\"resourceNames\":[\"cpu\"]}",
      "autoscaling.x-k8s.io/consume-provisioning-request":"pr-1",
      "kubectl.kubernetes.io/last-applied-configuration":"{\"big\":true}"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"s-1","controller":true}]},
  "spec":{"nodeName":"node-3","schedulerName":"koord-scheduler","priority":1000,"preemptionPolicy":"Never",
    "nodeSelector":{"disk":"ssd"},
    "affinity":{
      "nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
          {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchExpressions":[
          {"key":"gpu","operator":"Exists"}]}}]},
      "podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},
        "topologyKey":"zone"}]},
      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":{
        "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["pod-template-hash"],
        "namespaceSelector":{},"topologyKey":"kubernetes.io/hostname"}}]}},
    "tolerations":[{"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"}],
    "topologySpreadConstraints":[{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway",
      "labelSelector":{"matchLabels":{"app":"web"}},"minDomains":3,"nodeTaintsPolicy":"Honor"}],
    "overhead":{"cpu":"10m"},
    "initContainers":[{"name":"proxy","image":"envoy","restartPolicy":"Always",
        "ports":[{"containerPort":15001,"hostPort":15001,"protocol":"UDP","hostIP":"10.0.0.1"}],
        "resources":{"requests":{"cpu":"100m","memory":"64Mi"}},"env":[{"name":"A","value":"b"}]},
      {"name":"init","image":"busybox:1.36","resources":{"requests":{"cpu":"2"}},"command":["sh"]}],
    "containers":[{"name":"app","image":"registry.example.com/web","ports":[{"containerPort":80,"hostPort":8080}],
        "resources":{"requests":{"cpu":"250m","memory":"256Mi","example.com/foo":"3"},"limits":{"cpu":"1"}},
        "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
        "volumeMounts":[{"name":"kube-api-access-x7k2p","mountPath":"/var/run/secrets"}],
        "readinessProbe":{"httpGet":{"path":"/","port":80}},"args":["--x"]},
      {"name":"bad","image":"b","resources":{"requests":{"cpu":"lots"}}},
      "not a container"],
    "volumes":[{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"path":"token"}}]}}]},
  "status":{"phase":"Running","startTime":"2026-11-27T09:00:00Z","nominatedNodeName":"node-9",
    "conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-27T09:00:01Z"},
      {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler","message":"preempted"}],
    "containerStatuses":[{"name":"app","ready":true,"containerID":"containerd://1"}]}})";

shim::ObjectPtr CachedRichPod() {
  auto cached = shim::CachedObject::FromJson(Parse(kRichPod));
  EXPECT_TRUE(cached.has_value());
  return cached ? *cached : nullptr;
}

TEST(PodViewJsonTest, ReadPodViewReadsTheSameThroughTheFilterAsFromTheWholePod) {
  const rapidjson::Document whole = Parse(kRichPod);
  auto cached = shim::CachedObject::FromJson(whole);
  ASSERT_TRUE(cached.has_value());
  const rapidjson::Document filtered = PodViewJson(**cached);
  const placement::PodSpecView expected = ReadPodView(whole);
  // The fixture exercises what it claims to: each of these would be empty or false if a field
  // were missing from it.
  ASSERT_TRUE(expected.priority.terminating_by_preemption);
  ASSERT_EQ(expected.priority.nominated_node_name, "node-9");
  ASSERT_EQ(expected.host_ports.size(), 2u);
  ASSERT_EQ(expected.request_errors.size(), 2u);  // the bad quantity and the scalar container
  ASSERT_TRUE(expected.pod_affinity != nullptr);
  ASSERT_EQ(expected.container_images.size(), 4u);
  EXPECT_EQ(Describe(ReadPodView(filtered)), Describe(expected));
  EXPECT_EQ(PodIsTerminal(filtered), PodIsTerminal(whole));
  EXPECT_EQ(json::GetString(filtered, {"spec", "schedulerName"}), "koord-scheduler");
}

TEST(PodViewJsonTest, TheFilterLeavesOutWhatTheSchedulerNeverReads) {
  const shim::ObjectPtr cached = CachedRichPod();
  ASSERT_NE(cached, nullptr);
  const rapidjson::Document filtered = PodViewJson(*cached);
  EXPECT_EQ(json::Find(filtered, {"spec", "volumes"}), nullptr);
  EXPECT_EQ(json::Find(filtered, {"status", "containerStatuses"}), nullptr);
  EXPECT_EQ(json::Find(filtered, {"metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"}),
            nullptr);
  EXPECT_EQ(json::Find(filtered, {"kind"}), nullptr);
  const rapidjson::Value* app = json::Find(filtered, {"spec", "containers"});
  ASSERT_TRUE(app != nullptr && app->IsArray() && app->Size() == 3);
  EXPECT_EQ(json::Serialize((*app)[0]),
            R"({"name":"app","image":"registry.example.com/web","ports":[{"containerPort":80,"hostPort":8080}],)"
            R"("resources":{"requests":{"cpu":"250m","memory":"256Mi","example.com/foo":"3"},"limits":{"cpu":"1"}}})");
  EXPECT_EQ(json::Serialize((*app)[2]), R"("not a container")");
  EXPECT_EQ(json::GetString(filtered, {"metadata", "name"}), "web-0");
  EXPECT_EQ(json::GetString(filtered, {"metadata", "namespace"}), "shop");
  EXPECT_EQ(json::GetString(filtered, {"metadata", "uid"}), "u-1");
}

TEST(PodViewJsonTest, ConditionsAreReadOnlyForAPodBeingDeleted) {
  const shim::ObjectPtr deleting = CachedRichPod();
  ASSERT_NE(deleting, nullptr);
  const rapidjson::Document with = PodViewJson(*deleting);
  ASSERT_NE(json::Find(with, {"status", "conditions"}), nullptr);
  EXPECT_TRUE(ReadPodView(with).priority.terminating_by_preemption);
  rapidjson::Document running = Parse(kRichPod);
  json::FindMutable(running, {"metadata"})->RemoveMember("deletionTimestamp");
  auto cached = shim::CachedObject::FromJson(running);
  ASSERT_TRUE(cached.has_value());
  const rapidjson::Document without = PodViewJson(**cached);
  EXPECT_EQ(json::Find(without, {"status", "conditions"}), nullptr);
  EXPECT_EQ(Describe(ReadPodView(without)), Describe(ReadPodView(running)));
}

TEST(PodViewJsonTest, TheBulkAddsPerThreadBufferReadsTheSameOnEveryThreadAndCall) {
  const shim::ObjectPtr cached = CachedRichPod();
  ASSERT_NE(cached, nullptr);
  const std::string expected = Describe(ReadPodView(Parse(kRichPod)));
  auto read = [&] {
    return scheduler_support::WithPodViewJson(*cached, [](const rapidjson::Document& doc) {
      return Describe(ReadPodView(doc));
    });
  };
  EXPECT_EQ(read(), expected);
  EXPECT_EQ(read(), expected);  // the buffer reused
  std::string on_other_thread;
  std::thread([&] { on_other_thread = read(); }).join();
  EXPECT_EQ(on_other_thread, expected);
}

TEST(PodViewJsonTest, APodWithoutSpecOrStatusStillHasItsIdentity) {
  auto cached = shim::CachedObject::FromJson(Parse(R"({"metadata":{"name":"p","resourceVersion":"1"}})"));
  ASSERT_TRUE(cached.has_value());
  const rapidjson::Document filtered = PodViewJson(**cached);
  EXPECT_EQ(json::GetString(filtered, {"metadata", "name"}), "p");
  EXPECT_FALSE(PodIsTerminal(filtered));
  EXPECT_EQ(ReadPodView(filtered).name, "p");
}

}  // namespace
}  // namespace berth::controllers
