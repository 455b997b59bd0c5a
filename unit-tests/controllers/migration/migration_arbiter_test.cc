// MigrationArbiter::Admit on informer caches fed by a scripted API server: an admitted job keeps
// its slot when it is arbitrated again (its reconcile stopped short of writing Running), even once
// the limits would hold a newcomer.
#include "controllers/migration/migration_arbiter.h"

#include <atomic>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/watch/fake_rest_client.h"
#include "controllers/migration/migration_codec.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;
using shim::testing::EventJson;
using shim::testing::FakeRestClient;
using shim::testing::ListJson;

// A pod of ReplicaSet web (uid rs-1) on node-a, Ready or not.
std::string WebPod(const std::string& name, bool ready, const std::string& rv) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default","uid":"uid-)" + name + R"(","resourceVersion":")" + rv +
         R"(","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs-1",)"
         R"("controller":true}]},"spec":{"nodeName":"node-a"},"status":{"phase":"Running","conditions":[)"
         R"({"type":"Ready","status":")" + (ready ? "True" : "False") + R"("}]}})";
}

mig::PodFacts Facts(const std::string& name) {
  auto doc = json::Parse(WebPod(name, true, "1"));
  EXPECT_TRUE(doc.has_value());
  return ReadPodFacts(*doc);
}

std::shared_ptr<shim::SharedInformer> Informer(const std::shared_ptr<FakeRestClient>& client, const char* path,
                                               std::vector<std::string> items) {
  client->QueueListBody(ListJson(items, "10"));
  shim::SharedInformerOptions o;
  o.list_watch.path = path;
  o.rng_seed = 1;
  return std::make_shared<shim::SharedInformer>(client, o);
}

TEST(MigrationArbiterTest, AnAdmittedJobKeepsItsSlotWhenArbitratedAgain) {
  auto pods_api = std::make_shared<FakeRestClient>();
  auto jobs_api = std::make_shared<FakeRestClient>();
  auto rs_api = std::make_shared<FakeRestClient>();
  auto pods = Informer(pods_api, "/api/v1/pods",
                       {WebPod("p1", true, "1"), WebPod("p2", true, "2"), WebPod("p3", true, "3"),
                        WebPod("p4", true, "4"), WebPod("p5", true, "5")});
  auto jobs = Informer(jobs_api, "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs", {});
  auto replicasets = Informer(rs_api, "/apis/apps/v1/replicasets", {});  // 5 replicas: its active pods
  ArbitrationOptions options;
  options.limits.max_migrating_per_node = std::nullopt;
  options.limits.max_migrating_per_workload = mig::IntOrPercent{3, false};
  options.limits.max_unavailable_per_workload = mig::IntOrPercent{1, false};
  MigrationArbiter arbiter(options, jobs, pods, replicasets);
  // Registered after the arbiter's handler, so it sees an event after the arbiter tallied it.
  std::atomic<bool> p3_not_ready{false};
  pods->AddEventHandler(shim::EventHandler{[](const shim::ObjectPtr&, bool) {},
                                           [&](const shim::ObjectPtr&, const shim::ObjectPtr& n) {
                                             if (n->Name() == "p3") p3_not_ready = true;
                                           },
                                           [](const shim::DeletedObject&) {}});
  for (auto& i : {pods, jobs, replicasets}) i->Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (auto& i : {pods, jobs, replicasets}) ASSERT_TRUE(i->WaitForCacheSync(deadline));

  EXPECT_EQ(arbiter.Admit("job-a", Facts("p1")), std::nullopt);
  EXPECT_TRUE(arbiter.IsAdmitted("job-a"));

  // Another pod of the workload turns unavailable: with job-a's pod migrating, the workload is at
  // its maxUnavailablePerWorkload of 1.
  pods_api->PushWatch({{EventJson("MODIFIED", WebPod("p3", false, "11"))}, {}, true});
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return p3_not_ready.load(); }));
  auto newcomer = arbiter.Admit("job-c", Facts("p4"));
  ASSERT_TRUE(newcomer.has_value());
  EXPECT_EQ(newcomer->reason, mig::kReasonMaxUnavailablePerWorkload);
  EXPECT_FALSE(arbiter.IsAdmitted("job-c"));

  // job-a, arbitrated again, is not held: it keeps the slot it was given.
  EXPECT_EQ(arbiter.Admit("job-a", Facts("p1")), std::nullopt);
  EXPECT_EQ(arbiter.AdmittedOfWorkload("rs-1"), (std::set<std::string>{"job-a"}));
  EXPECT_EQ(arbiter.AdmittedJobs(), (std::set<std::string>{"job-a"}));

  // Once forgotten (its job ended), the same pod would be held now: the slot, not the limits,
  // let it through above.
  arbiter.Forget("job-a");
  EXPECT_FALSE(arbiter.IsAdmitted("job-a"));
  auto again = arbiter.Admit("job-a", Facts("p1"));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->reason, mig::kReasonMaxUnavailablePerWorkload);
  for (auto& i : {pods, jobs, replicasets}) i->Stop();
}

}  // namespace
}  // namespace berth::controllers
