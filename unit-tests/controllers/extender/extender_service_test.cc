// ExtenderService: filter/prioritize/bind answers from the scheduler's cache, with the reasons
// kube-scheduler would give, and the cache's assume making a double booking impossible.
#include "controllers/extender/extender_server.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/metrics/raw_http_client.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/placement/filters.h"
#include "reconcile/placement/node_ports.h"
#include "reconcile/placement/reservation_affinity.h"
#include "unit-tests/controllers/common/owner_reservation.h"

namespace berth::controllers::extender {
namespace {

namespace placement = reconcile::placement;

constexpr int64_t kMi = int64_t{1024} * 1024 * 1000;

placement::NodeView Node(const std::string& name, int64_t cpu_milli) {
  placement::NodeView n;
  n.name = name;
  n.allocatable = {{"cpu", cpu_milli}, {"memory", 8192 * kMi}, {"pods", 110 * 1000}};
  return n;
}

placement::ReservationView Reservation(const std::string& name, const std::string& node, int64_t cpu_milli,
                                       bool allocate_once = true) {
  return testing::OwnerReservation(name, node, cpu_milli, allocate_once);
}

// PodJson: a pod as kube-scheduler sends it; `extra_meta` is spliced into metadata.
std::string PodJson(const std::string& name, const std::string& cpu, const std::string& labels = "{}",
                    const std::string& extra_meta = "") {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name + R"(","labels":)" +
         labels + extra_meta + R"(},"spec":{"schedulerName":"default-scheduler","containers":[{"name":"c",)"
         R"("resources":{"requests":{"cpu":")" + cpu + R"("}}}]},"status":{"phase":"Pending"}})";
}

std::string Args(const std::string& pod, const std::vector<std::string>& nodes) {
  std::string names;
  for (const auto& n : nodes) names += (names.empty() ? "\"" : ",\"") + n + "\"";
  return R"({"Pod":)" + pod + R"(,"Nodes":null,"NodeNames":[)" + names + "]}";
}

class ExtenderServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_.UpsertNode(Node("node-0", 4000));
    cache_.UpsertNode(Node("node-1", 4000));
    cache_.UpsertReservation(Reservation("r0", "node-0", 3000));
  }
  rapidjson::Document Filter(const std::string& body) {
    auto reply = service_.Filter(body);
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.content_type, "application/json");
    auto doc = json::Parse(reply.body);
    EXPECT_TRUE(doc.has_value()) << reply.body;
    return std::move(*doc);
  }
  std::vector<std::string> Passed(const rapidjson::Document& d) {
    std::vector<std::string> out;
    for (const auto& v : d["NodeNames"].GetArray()) out.emplace_back(v.GetString());
    return out;
  }
  std::map<std::string, int64_t> Scores(const std::string& body) {
    auto reply = service_.Prioritize(body);
    EXPECT_EQ(reply.status, 200) << reply.body;
    auto doc = json::Parse(reply.body);
    std::map<std::string, int64_t> out;
    for (const auto& hp : doc->GetArray()) out[hp["Host"].GetString()] = hp["Score"].GetInt64();
    return out;
  }

  shim::Registry registry_;
  SchedulerCache cache_;
  std::vector<ExtenderBindingArgs> binds_;
  std::string bind_error_;
  ExtenderService service_{cache_,
                           [this](const ExtenderBindingArgs& a) {
                             binds_.push_back(a);
                             return bind_error_;
                           },
                           &registry_};
};

TEST_F(ExtenderServiceTest, NonOwnerPodIsKeptOffReservedCapacity) {
  auto d = Filter(Args(PodJson("plain", "2"), {"node-0", "node-1"}));
  EXPECT_EQ(Passed(d), (std::vector<std::string>{"node-1"}));
  // Resource shortfall: FailedNodes (preemption may help), in kube-scheduler's words.
  EXPECT_EQ(json::GetString(d, {"FailedNodes", "node-0"}), "Insufficient cpu");
  EXPECT_EQ(d["FailedAndUnresolvableNodes"].MemberCount(), 0u);
  EXPECT_TRUE(d["Nodes"].IsNull());
  EXPECT_EQ(json::GetString(d, {"Error"}), "");
  // A small pod still fits beside the reservation (4 - 3 = 1 cpu free).
  EXPECT_EQ(Passed(Filter(Args(PodJson("small", "1"), {"node-0"}))), (std::vector<std::string>{"node-0"}));
}

TEST_F(ExtenderServiceTest, OwnerPodPassesWhereItsReservationFitsAndScoresTenThere) {
  const std::string args = Args(PodJson("owner", "3", R"({"app":"owner"})"), {"node-0", "node-1"});
  EXPECT_EQ(Passed(Filter(args)), (std::vector<std::string>{"node-0", "node-1"}));
  auto scores = Scores(args);
  EXPECT_EQ(scores["node-0"], kMaxExtenderPriority);
  // The reservation node must win whatever kube-scheduler's in-tree scores say.
  EXPECT_EQ(scores["node-1"], 0);
}

TEST_F(ExtenderServiceTest, PrioritizeScalesTheNodeScoreBelowTen) {
  cache_.UpsertNode(Node("node-2", 100000));
  auto scores = Scores(Args(PodJson("plain", "1"), {"node-1", "node-2", "ghost"}));
  // LeastAllocated: the emptier node scores higher; no node without a reservation reaches 10.
  EXPECT_GT(scores["node-2"], scores["node-1"]);
  EXPECT_LE(scores["node-2"], kMaxExtenderPriority - 1);
  EXPECT_EQ(scores["ghost"], 0);
}

// Prioritize reports berth's whole ranking, not the resource fit alone: preferred node affinity,
// PreferNoSchedule taints (and every other score plugin berth's scheduler weighs) move the
// answer, and the node it scores highest is the one berth's own scheduler would pick.
TEST_F(ExtenderServiceTest, PrioritizeIsTheSchedulersCombinedScore) {
  placement::NodeView ssd = Node("ssd", 4000);
  ssd.labels = {{"disk", "ssd"}};
  placement::NodeView tainted = Node("tainted", 4000);
  tainted.labels = {{"disk", "ssd"}};
  tainted.taints = {{"noisy", "", "PreferNoSchedule"}};
  placement::NodeView big = Node("big", 16000);  // the emptiest: the resource fit alone ranks it first
  cache_.UpsertNode(ssd);
  cache_.UpsertNode(tainted);
  cache_.UpsertNode(big);
  const std::string pod = R"({"metadata":{"name":"pref","namespace":"default","uid":"uid-pref"},
    "spec":{"schedulerName":"default-scheduler","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}],
      "affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
        {"weight":100,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}}]}}},
    "status":{"phase":"Pending"}})";
  auto scores = Scores(Args(pod, {"ssd", "tainted", "big"}));
  // ssd: affinity 100 × 2 + taint 100 × 3 + fit/balance; tainted loses the taint's 300; big loses
  // the affinity's 200 but wins a little on fit. Out of (1 + 1 + 2 + 3) × 100, scaled to 0..9.
  EXPECT_GT(scores["ssd"], scores["big"]);
  EXPECT_GT(scores["big"], scores["tainted"]);
  EXPECT_LE(scores["ssd"], kMaxExtenderPriority - 1);
  auto doc = json::Parse(pod);
  ASSERT_TRUE(doc.has_value());
  placement::PodSpecView view = ReadPodView(*doc);
  auto decision = cache_.ScheduleAndAssumePod(view);
  ASSERT_TRUE(decision.has_value()) << decision.error().Message();
  EXPECT_EQ(decision->node_name, "ssd");
}

// Without such a plugin in play the answer is the resource scores (NodeResourcesFit and
// BalancedAllocation) out of their 200.
TEST_F(ExtenderServiceTest, PrioritizeWithOnlyResourceScoresStillRanksByThem) {
  cache_.UpsertNode(Node("node-2", 100000));
  auto scores = Scores(Args(PodJson("plain", "1"), {"node-1", "node-2"}));
  EXPECT_GT(scores["node-2"], scores["node-1"]);
  EXPECT_GE(scores["node-2"], 8);  // near-empty node: fit ~100 and balance ~100 of 200
  EXPECT_LE(scores["node-2"], kMaxExtenderPriority - 1);
}

// The hook berth-manager installs (the scheduler's ApplyDefaultSpread) is applied to the pod
// view: here it gives the pod a workload selector, so the system default spreading scores the
// node already running a replica lower.
TEST_F(ExtenderServiceTest, PodViewHookFeedsTheDefaultSpreading) {
  placement::PodSpecView replica;
  replica.namespace_name = "default";
  replica.name = "web-0";
  replica.uid = "uid-web-0";
  replica.labels = {{"app", "web"}};
  replica.node_name = "node-1";
  replica.requests = {{"cpu", 100}};
  for (const char* name : {"node-1", "node-2"}) {
    placement::NodeView n = Node(name, 4000);
    n.labels = {{"kubernetes.io/hostname", name}};  // spreading counts by the node's label, as upstream
    cache_.UpsertNode(n);
  }
  cache_.UpsertPod(replica);
  const std::string args = Args(PodJson("web-1", "100m", R"({"app":"web"})"), {"node-1", "node-2"});
  auto without = Scores(args);
  auto selector = std::make_shared<const shim::LabelSelector>(*shim::LabelSelector::Parse("app=web"));
  service_.SetPodViewHook([selector](placement::PodSpecView& view) { view.default_spread_selector = selector; });
  auto with = Scores(args);
  EXPECT_LT(with["node-1"], with["node-2"]);
  EXPECT_GT(with["node-2"] - with["node-1"], without["node-2"] - without["node-1"]);
}

TEST_F(ExtenderServiceTest, UnknownNodeIsFailedWithAReasonNeverAServerError) {
  auto d = Filter(Args(PodJson("plain", "1"), {"ghost", "node-1"}));
  EXPECT_EQ(Passed(d), (std::vector<std::string>{"node-1"}));
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "ghost"}), "node(s) not found in berth's node cache");
}

TEST_F(ExtenderServiceTest, TaintIsUnresolvable) {
  placement::NodeView tainted = Node("node-t", 4000);
  tainted.taints = {{"dedicated", "gpu", "NoSchedule"}};
  cache_.UpsertNode(tainted);
  auto d = Filter(Args(PodJson("plain", "1"), {"node-t"}));
  EXPECT_TRUE(Passed(d).empty());
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-t"}),
            "node(s) had untolerated taint {dedicated: gpu}");
}

TEST_F(ExtenderServiceTest, EveryFilterReasonGoesToTheRightMap) {
  placement::NodeView cordoned = Node("node-cordoned", 4000);
  cordoned.unschedulable = true;
  cache_.UpsertNode(cordoned);
  placement::NodeView labelled = Node("node-zone-b", 4000);
  labelled.labels = {{"zone", "b"}};
  cache_.UpsertNode(labelled);
  placement::NodeView one_pod = Node("node-one-pod", 4000);
  one_pod.allocatable["pods"] = 1000;
  cache_.UpsertNode(one_pod);
  placement::PodSpecView resident;
  resident.namespace_name = "default";
  resident.name = resident.uid = "resident";
  resident.node_name = "node-one-pod";
  resident.requests = {{"cpu", 100}};
  resident.host_ports = {{"TCP", "0.0.0.0", 8080}};
  cache_.UpsertPod(resident);
  const std::vector<std::string> all = {"node-0", "node-1", "node-cordoned", "node-zone-b", "node-one-pod"};
  // nodeSelector zone=b and hostPort 8080: every non-resource filter fails somewhere.
  const std::string pod =
      R"({"metadata":{"name":"picky","namespace":"default","uid":"uid-picky"},"spec":{"nodeSelector":{"zone":"b"},)"
      R"("containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":8080}],"resources":{"requests":{"cpu":"2"}}}]}})";
  auto d = Filter(Args(pod, all));
  EXPECT_EQ(Passed(d), (std::vector<std::string>{"node-zone-b"}));
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-cordoned"}), placement::kReasonUnschedulable);
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-1"}), placement::kReasonNodeAffinity);
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-0"}), placement::kReasonNodeAffinity);
  const std::string ported =
      R"({"metadata":{"name":"ported","namespace":"default","uid":"uid-ported"},"spec":{)"
      R"("containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":8080}],"resources":{"requests":{"cpu":"100m"}}}]}})";
  d = Filter(Args(ported, {"node-one-pod", "node-1"}));
  EXPECT_EQ(Passed(d), (std::vector<std::string>{"node-1"}));
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-one-pod"}), placement::kReasonNodePorts);
  // A plain pod: resources only; "Too many pods" is a resource shortfall too (preemption may help).
  d = Filter(Args(PodJson("plain", "2"), all));
  EXPECT_EQ(json::GetString(d, {"FailedNodes", "node-one-pod"}), placement::kReasonTooManyPods);
  EXPECT_EQ(json::GetString(d, {"FailedNodes", "node-0"}), "Insufficient cpu");
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-cordoned"}), placement::kReasonUnschedulable);
  // A request that does not parse fails every node it names, with the field, never a 500.
  d = Filter(Args(PodJson("bad", "abc"), {"node-1", "ghost"}));
  EXPECT_TRUE(Passed(d).empty());
  EXPECT_NE(json::GetString(d, {"FailedAndUnresolvableNodes", "node-1"}).find("invalid quantity \"abc\""),
            std::string::npos)
      << json::Serialize(d);
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "ghost"}), "node(s) not found in berth's node cache");
}

TEST_F(ExtenderServiceTest, OwnerPodTooBigForARestrictedReservationIsRefusedOnThatNode) {
  placement::ReservationView r = Reservation("r0", "node-0", 3000);
  r.allocate_policy = placement::AllocatePolicy::kRestricted;
  cache_.UpsertReservation(r);
  auto d = Filter(Args(PodJson("owner", "3500m", R"({"app":"owner"})"), {"node-0", "node-1"}));
  EXPECT_EQ(Passed(d), (std::vector<std::string>{"node-1"}));
  EXPECT_EQ(json::GetString(d, {"FailedAndUnresolvableNodes", "node-0"}), placement::kReasonReservationInsufficient);
  // Aligned takes the rest from the node's free capacity.
  r.allocate_policy = placement::AllocatePolicy::kAligned;
  cache_.UpsertReservation(r);
  EXPECT_EQ(Passed(Filter(Args(PodJson("owner", "3500m", R"({"app":"owner"})"), {"node-0"}))),
            (std::vector<std::string>{"node-0"}));
}

TEST_F(ExtenderServiceTest, ReservationAffinityThatSelectsNothingFailsEveryNode) {
  const std::string affinity =
      R"(,"annotations":{"scheduling.koordinator.sh/reservation-affinity":"{\"reservationSelector\":{\"team\":\"b\"}}"})";
  auto d = Filter(Args(PodJson("owner", "1", R"({"app":"owner"})", affinity), {"node-0", "node-1"}));
  EXPECT_TRUE(Passed(d).empty());
  for (const char* node : {"node-0", "node-1"}) {
    EXPECT_NE(json::GetString(d, {"FailedAndUnresolvableNodes", node}).find(placement::kReasonReservationAffinity),
              std::string::npos)
        << node << ": " << json::Serialize(d);
  }
}

TEST_F(ExtenderServiceTest, UnparsableAffinityIsUnresolvableWithTheParseError) {
  const std::string affinity = R"(,"annotations":{"scheduling.koordinator.sh/reservation-affinity":"{not json"})";
  auto d = Filter(Args(PodJson("owner", "1", R"({"app":"owner"})", affinity), {"node-1"}));
  EXPECT_TRUE(Passed(d).empty());
  EXPECT_NE(json::GetString(d, {"FailedAndUnresolvableNodes", "node-1"}).find("invalid annotation"), std::string::npos);
}

TEST_F(ExtenderServiceTest, NodeListRequestGetsNodeListAnswer) {
  const std::string body = R"({"Pod":)" + PodJson("plain", "2") +
                           R"(,"Nodes":{"metadata":{},"items":[{"metadata":{"name":"node-0"}},{"metadata":{"name":"node-1"}}]},"NodeNames":null})";
  auto d = Filter(body);
  EXPECT_TRUE(d["NodeNames"].IsNull());
  ASSERT_EQ(d["Nodes"]["items"].Size(), 1u);
  EXPECT_EQ(json::GetString(d["Nodes"]["items"][0], {"metadata", "name"}), "node-1");
}

TEST_F(ExtenderServiceTest, MalformedBodiesAre400WithAJsonError) {
  for (auto verb : {&ExtenderService::Filter, &ExtenderService::Prioritize, &ExtenderService::Bind}) {
    auto reply = (service_.*verb)("{\"Pod\":");
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.content_type, "application/json");
    auto doc = json::Parse(reply.body);
    ASSERT_TRUE(doc.has_value()) << reply.body;
    EXPECT_NE(json::GetString(*doc, {"Error"}).find("not JSON"), std::string::npos) << reply.body;
  }
}

TEST_F(ExtenderServiceTest, BindCallsTheBinderAndReportsItsError) {
  auto ok = service_.Bind(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"node-0"})");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, R"({"Error":""})");
  ASSERT_EQ(binds_.size(), 1u);
  EXPECT_EQ(binds_[0].node, "node-0");
  EXPECT_EQ(binds_[0].pod_uid, "u");
  bind_error_ = "0/2 nodes are available: 1 Insufficient cpu.";
  auto failed = service_.Bind(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"node-0"})");
  EXPECT_EQ(failed.status, 200);
  EXPECT_EQ(failed.body, R"({"Error":"0/2 nodes are available: 1 Insufficient cpu."})");
}

TEST_F(ExtenderServiceTest, ServesTheVerbsOverHttpAndCountsThem) {
  shim::HttpServer server("127.0.0.1:0", ExtenderServerOptions());
  service_.Register(server);
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  auto post = [&](std::string_view path, const std::string& body) {
    std::string request = "POST " + std::string(path) +
                          " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Go-http-client/1.1\r\n"
                          "Content-Type: application/json\r\nAccept-Encoding: gzip\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
    return shim::testing::Exchange(*port, request, std::chrono::seconds(5));
  };
  auto filter = post("/filter", Args(PodJson("plain", "2"), {"node-0", "node-1"}));
  EXPECT_EQ(filter.status, 200);
  EXPECT_EQ(filter.header("content-type"), "application/json");
  EXPECT_NE(filter.body.find(R"("NodeNames":["node-1"])"), std::string::npos) << filter.body;
  auto prioritize = post("/prioritize", Args(PodJson("plain", "1"), {"node-1"}));
  EXPECT_EQ(prioritize.status, 200);
  EXPECT_TRUE(prioritize.body.starts_with(R"([{"Host":"node-1","Score":)")) << prioritize.body;
  auto bad = post("/bind", "not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_TRUE(bad.body.starts_with(R"({"Error":)")) << bad.body;
  // GET is not a verb kube-scheduler uses.
  auto get = shim::testing::Exchange(*port, shim::testing::GetRequest("/filter"), std::chrono::seconds(5));
  EXPECT_EQ(get.status, 405);
  server.Stop();
  const std::string text = registry_.Render();
  EXPECT_NE(text.find(R"(berth_extender_requests_total{code="200",verb="filter"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(berth_extender_requests_total{code="400",verb="bind"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(berth_extender_requests_total{code="405",verb="filter"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(berth_extender_request_duration_seconds_count{verb="prioritize"} 1)"), std::string::npos)
      << text;
}

TEST_F(ExtenderServiceTest, VerbsAreServedUnderAnyUrlPrefixPath) {
  shim::HttpServer server("127.0.0.1:0", ExtenderServerOptions());
  service_.Register(server);
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  auto post = [&](std::string_view path, const std::string& body) {
    std::string request = "POST " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return shim::testing::Exchange(*port, request, std::chrono::seconds(5));
  };
  // urlPrefix "http://host:port/scheduler" (the extender design doc's example) puts the verb after a path.
  auto filter = post("/scheduler/filter", Args(PodJson("plain", "2"), {"node-0", "node-1"}));
  EXPECT_EQ(filter.status, 200);
  EXPECT_NE(filter.body.find(R"("NodeNames":["node-1"])"), std::string::npos) << filter.body;
  auto preempt = post("/a/b/preempt", R"({"Pod":)" + PodJson("plain", "1") + R"(,"NodeNameToMetaVictims":{}})");
  EXPECT_EQ(preempt.status, 200);
  EXPECT_EQ(preempt.body, R"({"NodeNameToMetaVictims":{}})");
  auto unknown = post("/scheduler/predicates", "{}");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("no extender verb at /scheduler/predicates"), std::string::npos) << unknown.body;
  server.Stop();
}

TEST_F(ExtenderServiceTest, PreemptKeepsOnlyNodesWhereTheVictimsFreeCapacityThePodMayUse) {
  // node-0: r0 holds 3 of 4 cpu for owners, a 1-cpu pod uses the rest. node-1: a 4-cpu pod.
  for (const auto& [name, node, cpu] : {std::tuple{"victim-0", "node-0", 1000}, {"victim-1", "node-1", 4000}}) {
    placement::PodSpecView v;
    v.namespace_name = "default";
    v.name = name;
    v.uid = std::string("uid-") + name;
    v.node_name = node;
    v.requests = {{"cpu", cpu}};
    cache_.UpsertPod(v);
  }
  // kube-scheduler's dry run (blind to reservations) proposes both nodes for a 2-cpu pod.
  const std::string meta =
      R"({"Pod":)" + PodJson("plain", "2") +
      R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{"node-0":{"Pods":[{"UID":"uid-victim-0"}],"NumPDBViolations":0},)"
      R"("node-1":{"Pods":[{"UID":"uid-victim-1"}],"NumPDBViolations":1},"ghost":{"Pods":[{"UID":"x"}],"NumPDBViolations":0}}})";
  auto reply = service_.Preempt(meta);
  ASSERT_EQ(reply.status, 200) << reply.body;
  // Evicting victim-0 frees 1 cpu: r0's 3 stay held, so node-0 cannot help; node-1 can, as proposed.
  EXPECT_EQ(reply.body,
            R"({"NodeNameToMetaVictims":{"node-1":{"Pods":[{"UID":"uid-victim-1"}],"NumPDBViolations":1}}})");
  // The full-pod form (nodeCacheCapable false) gets the same answer, in the UID form.
  const std::string full =
      R"({"Pod":)" + PodJson("plain", "2") +
      R"(,"NodeNameToVictims":{"node-0":{"Pods":[{"metadata":{"name":"victim-0","uid":"uid-victim-0"}}],"NumPDBViolations":0},)"
      R"("node-1":{"Pods":[{"metadata":{"name":"victim-1","uid":"uid-victim-1"}}],"NumPDBViolations":1}},"NodeNameToMetaVictims":null})";
  EXPECT_EQ(service_.Preempt(full).body, reply.body);
  // An owner pod may use r0: evicting victim-0 is not even needed there, and the node is kept.
  const std::string owner = R"({"Pod":)" + PodJson("owner", "3", R"({"app":"owner"})") +
                            R"(,"NodeNameToMetaVictims":{"node-0":{"Pods":[{"UID":"uid-victim-0"}],"NumPDBViolations":0}}})";
  EXPECT_EQ(service_.Preempt(owner).body,
            R"({"NodeNameToMetaVictims":{"node-0":{"Pods":[{"UID":"uid-victim-0"}],"NumPDBViolations":0}}})");
  // The dry runs left the cache as it was: node-1 is still full for a 1-cpu pod.
  EXPECT_EQ(Passed(Filter(Args(PodJson("small", "1"), {"node-1"}))), std::vector<std::string>{});
  EXPECT_EQ(service_.Preempt("[]").status, 400);
}

TEST_F(ExtenderServiceTest, ABodyOverTheLimitIs413AndTheServerStaysUp) {
  shim::HttpServerOptions options = ExtenderServerOptions();
  options.body_limit = 1024;  // the real limit is 32 MiB; the same code path
  shim::HttpServer server("127.0.0.1:0", options);
  service_.Register(server);
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  const std::string big(4096, ' ');
  auto reply = shim::testing::Exchange(
      *port, "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + big,
      std::chrono::seconds(5));
  EXPECT_EQ(reply.status, 413);
  const std::string body = Args(PodJson("plain", "1"), {"node-1"});
  ASSERT_LT(body.size(), 1024u);
  auto ok = shim::testing::Exchange(*port,
                                    "POST /filter HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
                                        std::to_string(body.size()) + "\r\n\r\n" + body,
                                    std::chrono::seconds(5));
  EXPECT_EQ(ok.status, 200);
  server.Stop();
}

TEST_F(ExtenderServiceTest, EveryVerbIs503UntilTheCachesHaveSyncedThenTheCheckIsNotAskedAgain) {
  // Before the Reservation informer has listed, the cache knows node-0 but not r0: deciding then
  // would pass a 2-cpu pod onto the 3 cpu r0 holds. The service refuses instead.
  SchedulerCache unsynced;
  unsynced.UpsertNode(Node("node-0", 4000));
  int asked = 0;
  std::string why = "informer /apis/scheduling.koordinator.sh/v1alpha1/reservations has not synced";
  ExtenderService service(unsynced, [](const ExtenderBindingArgs&) { return std::string(); }, &registry_);
  service.SetReadyCheck([&]() -> Status {
    ++asked;
    if (why.empty()) return {};
    return MakeError(ErrorCode::kInternal, why);
  });
  shim::HttpServer server("127.0.0.1:0", ExtenderServerOptions());
  service.Register(server);
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  auto post = [&](std::string_view path, const std::string& body) {
    return shim::testing::Exchange(*port,
                                   "POST " + std::string(path) + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                                   "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body,
                                   std::chrono::seconds(5));
  };
  const std::string args = Args(PodJson("plain", "2"), {"node-0"});
  const std::map<std::string, std::string> bodies = {
      {"/filter", args},
      {"/prioritize", args},
      {"/preempt", R"({"Pod":)" + PodJson("plain", "2") + R"(,"NodeNameToMetaVictims":{}})"},
      {"/bind", R"({"PodName":"plain","PodNamespace":"default","PodUID":"uid-plain","Node":"node-0"})"}};
  for (const auto& [path, body] : bodies) {
    auto reply = post(path, body);
    EXPECT_EQ(reply.status, 503) << path << ": " << reply.body;
    EXPECT_EQ(reply.header("content-type"), "application/json");
    auto doc = json::Parse(reply.body);
    ASSERT_TRUE(doc.has_value()) << reply.body;
    EXPECT_EQ(json::GetString(*doc, {"Error"}), "berth's caches have not synced yet: " + why) << path;
  }
  // A malformed body is still refused as not ready first: nothing is decided before the sync.
  EXPECT_EQ(post("/filter", "{").status, 503);
  EXPECT_EQ(asked, 5);
  // Synced (r0 listed): the filter decides, and with r0 counted node-0 no longer fits.
  unsynced.UpsertReservation(Reservation("r0", "node-0", 3000));
  why.clear();
  auto filter = post("/filter", args);
  EXPECT_EQ(filter.status, 200) << filter.body;
  EXPECT_NE(filter.body.find(R"("FailedNodes":{"node-0":"Insufficient cpu"})"), std::string::npos) << filter.body;
  EXPECT_EQ(post("/filter", "{").status, 400);
  EXPECT_EQ(asked, 6);  // passed once: not asked again
  server.Stop();
  const std::string text = registry_.Render();
  EXPECT_NE(text.find(R"(berth_extender_requests_total{code="503",verb="filter"} 2)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(berth_extender_requests_total{code="503",verb="bind"} 1)"), std::string::npos) << text;
}

TEST_F(ExtenderServiceTest, ADeeplyNestedBodyIs400AndTheServerStaysUp) {
  shim::HttpServer server("127.0.0.1:0", ExtenderServerOptions());
  service_.Register(server);
  auto port = server.Start();
  ASSERT_TRUE(port.has_value()) << port.error().message;
  auto post = [&](std::string_view path, const std::string& body) {
    return shim::testing::Exchange(*port,
                                   "POST " + std::string(path) + " HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                                       std::to_string(body.size()) + "\r\n\r\n" + body,
                                   std::chrono::seconds(10));
  };
  const std::string deep(4'000'000, '[');
  for (const char* path : {"/filter", "/prioritize", "/preempt", "/bind"}) {
    auto reply = post(path, deep);
    EXPECT_EQ(reply.status, 400) << path;
    EXPECT_NE(reply.body.find("deeper than 10000 levels"), std::string::npos) << path << ": " << reply.body;
  }
  auto ok = post("/filter", Args(PodJson("plain", "1"), {"node-1"}));
  EXPECT_EQ(ok.status, 200) << ok.body;
  server.Stop();
}

TEST_F(ExtenderServiceTest, TwoConcurrentBindsCannotShareOneReservation) {
  // Both owner pods fit node-0 only through r0 (3 cpu of 4; the node has 1 cpu free). Each
  // bind decides pinned to node-0 and assumes under the cache lock: one wins, one is refused.
  std::atomic<int> won{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      placement::PodSpecView pod;
      pod.namespace_name = "default";
      pod.name = "owner-" + std::to_string(i);
      pod.uid = "uid-owner-" + std::to_string(i);
      pod.labels = {{"app", "owner"}};
      pod.requests = {{"cpu", 3000}};
      pod.node_name = "node-0";
      auto decision = cache_.ScheduleAndAssumePod(pod);
      (decision ? won : refused)++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(refused.load(), 7);
  // And the filter now sees r0 taken: another owner does not pass node-0.
  auto d = Filter(Args(PodJson("owner-late", "3", R"({"app":"owner"})"), {"node-0"}));
  EXPECT_TRUE(Passed(d).empty());
}

}  // namespace
}  // namespace berth::controllers::extender
