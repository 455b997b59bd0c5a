// WorkloadTallies: workloads' active and unavailable pods from pod events, with nothing kept per
// pod (the old contribution is recomputed from the object the store replaced).
#include "controllers/migration/workload_tallies.h"

#include <gtest/gtest.h>

#include <random>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/store.h"

namespace berth::controllers {
namespace {

// A pod of workload `owner` ("" for none) with `phase`, Ready `ready`, terminating or not.
shim::ObjectPtr Pod(const std::string& name, const std::string& owner, const std::string& phase, bool ready,
                    int rv, bool terminating = false) {
  std::string owners = owner.empty() ? "" : R"(,"ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":")" + owner +
                                                R"(","controller":true}])";
  std::string text = R"({"metadata":{"name":")" + name + R"(","namespace":"ns","uid":"uid-)" + name +
                     R"(","resourceVersion":")" + std::to_string(rv) + "\"" + owners +
                     (terminating ? R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")" : "") +
                     R"(},"status":{"phase":")" + phase + R"(","conditions":[{"type":"Ready","status":")" +
                     (ready ? "True" : "False") + R"("}]}})";
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value()) << text;
  auto obj = shim::CachedObject::FromJson(*doc);
  EXPECT_TRUE(obj.has_value());
  return obj ? *obj : nullptr;
}

TEST(WorkloadTalliesTest, TallyOfReadsControllerPhaseAndReadiness) {
  auto ready = WorkloadTallies::TallyOf(*Pod("a", "w1", "Running", true, 1));
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(ready->workload, "w1");
  EXPECT_FALSE(ready->unavailable);
  EXPECT_TRUE(WorkloadTallies::TallyOf(*Pod("a", "w1", "Running", false, 1))->unavailable);
  EXPECT_TRUE(WorkloadTallies::TallyOf(*Pod("a", "w1", "Pending", true, 1))->unavailable);
  EXPECT_TRUE(WorkloadTallies::TallyOf(*Pod("a", "w1", "Running", true, 1, /*terminating=*/true))->unavailable);
  EXPECT_FALSE(WorkloadTallies::TallyOf(*Pod("a", "w1", "Succeeded", true, 1)).has_value());
  EXPECT_FALSE(WorkloadTallies::TallyOf(*Pod("a", "w1", "Failed", false, 1)).has_value());
  EXPECT_FALSE(WorkloadTallies::TallyOf(*Pod("a", "", "Running", true, 1)).has_value());
}

TEST(WorkloadTalliesTest, TallyOfReadsOnlyWellFormedMembersAndIgnoresTheRest) {
  // Shapes a pod should not have but an API server could store: nothing crashes, and what cannot
  // be read counts as "not known to be available", never as Ready.
  auto tally = [](const std::string& text) {
    auto doc = json::Parse(text);
    EXPECT_TRUE(doc.has_value()) << text;
    auto obj = shim::CachedObject::FromJson(*doc);
    EXPECT_TRUE(obj.has_value()) << text;
    return WorkloadTallies::TallyOf(**obj);
  };
  const std::string owner = R"("ownerReferences":[{"uid":"w1","controller":true}])";
  auto head = [&](const std::string& extra) {
    return R"({"metadata":{"name":"p","namespace":"ns","uid":"u",)" + owner + extra + "}";
  };
  EXPECT_FALSE(tally(R"({"metadata":{"name":"p","ownerReferences":"rs"},"status":{"phase":"Running"}})"));
  EXPECT_FALSE(tally(R"({"metadata":{"name":"p","ownerReferences":[{"uid":"w1","controller":"true"}]}})"));
  EXPECT_FALSE(tally(R"({"metadata":{"name":"p","ownerReferences":[7,{"uid":"w1"}]}})"));
  for (const char* status : {R"(,"status":{"phase":"Running","conditions":{"type":"Ready"}}})",
                                    R"(,"status":{"phase":"Running","conditions":[7,{"type":"Ready","status":true}]}})",
                                    R"(,"status":{"phase":["Running"],"conditions":[{"type":"Ready","status":"True"}]}})",
                                    R"(,"status":"Running"})", "}"}) {
    auto t = tally(head("") + status);
    ASSERT_TRUE(t.has_value()) << status;
    EXPECT_EQ(t->workload, "w1") << status;
    EXPECT_TRUE(t->unavailable) << status;
  }
  // The members the tally reads sit among the ones it skips.
  auto full = tally(R"({"metadata":{"name":"p","namespace":"ns","labels":{"a":"b"},"ownerReferences":[)"
                    R"({"uid":"other","controller":false,"kind":"Service"},{"uid":"w1","controller":true,"kind":"RS"}]},)"
                    R"("spec":{"containers":[{"name":"c","env":[{"name":"Ready","value":"True"}]}]},)"
                    R"("status":{"phase":"Running","podIP":"10.0.0.1","conditions":[{"type":"PodScheduled","status":"True"},)"
                    R"({"type":"Ready","status":"True","reason":"x"}],"containerStatuses":[{"ready":false}]}})");
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->workload, "w1");
  EXPECT_FALSE(full->unavailable);
}

TEST(WorkloadTalliesTest, UpdatesMoveAPodBetweenStatesAndWorkloads) {
  WorkloadTallies t;
  auto a1 = Pod("a", "w1", "Running", true, 1);
  auto b1 = Pod("b", "w1", "Pending", false, 2);
  t.OnAdd(*a1);
  t.OnAdd(*b1);
  ASSERT_TRUE(t.Of("w1").has_value());
  EXPECT_EQ(t.Of("w1")->active, 2);
  EXPECT_EQ(t.Of("w1")->unavailable, (std::set<std::string, std::less<>>{"ns/b"}));

  auto b2 = Pod("b", "w1", "Running", true, 3);
  t.OnUpdate(*b1, *b2);
  EXPECT_EQ(t.Of("w1")->active, 2);
  EXPECT_TRUE(t.Of("w1")->unavailable.empty());

  auto a2 = Pod("a", "w1", "Running", false, 4);  // readiness lost
  t.OnUpdate(*a1, *a2);
  EXPECT_EQ(t.Of("w1")->unavailable, (std::set<std::string, std::less<>>{"ns/a"}));

  auto a3 = Pod("a", "w2", "Running", false, 5);  // adopted by another controller
  t.OnUpdate(*a2, *a3);
  EXPECT_EQ(t.Of("w1")->active, 1);
  EXPECT_TRUE(t.Of("w1")->unavailable.empty());
  EXPECT_EQ(t.Of("w2")->active, 1);
  EXPECT_EQ(t.Of("w2")->unavailable, (std::set<std::string, std::less<>>{"ns/a"}));

  auto a4 = Pod("a", "w2", "Succeeded", false, 6);  // finished: counts nowhere
  t.OnUpdate(*a3, *a4);
  EXPECT_FALSE(t.Of("w2").has_value());
  t.OnDelete(*a4);
  EXPECT_FALSE(t.Of("w2").has_value());

  t.OnDelete(*b2);
  EXPECT_FALSE(t.Of("w1").has_value());
  EXPECT_EQ(t.WorkloadCount(), 0u);
}

// Driven by a real Store (adds, updates, deletes, a relist with tombstones), the tallies always
// equal a recount over the store's contents.
TEST(WorkloadTalliesTest, MatchesARecountThroughStoreEvents) {
  shim::Store store;
  WorkloadTallies t;
  store.AddEventHandler(shim::EventHandler{
                            [&](const shim::ObjectPtr& o, bool) { t.OnAdd(*o); },
                            [&](const shim::ObjectPtr& o, const shim::ObjectPtr& n) { t.OnUpdate(*o, *n); },
                            [&](const shim::DeletedObject& d) { t.OnDelete(*d.object); }},
                        /*replay_existing=*/false);
  auto recount = [&] {
    std::map<std::string, WorkloadTallies::Workload> out;
    for (const auto& p : store.List()) {
      if (auto tally = WorkloadTallies::TallyOf(*p)) {
        auto& w = out[tally->workload];
        ++w.active;
        if (tally->unavailable) w.unavailable.insert(std::string(p->Key()));
      }
    }
    return out;
  };
  auto check = [&](int step) {
    auto want = recount();
    EXPECT_EQ(t.WorkloadCount(), want.size()) << "step " << step;
    for (const auto& [uid, w] : want) {
      auto got = t.Of(uid);
      ASSERT_TRUE(got.has_value()) << "step " << step << " workload " << uid;
      EXPECT_EQ(got->active, w.active) << "step " << step << " workload " << uid;
      EXPECT_EQ(got->unavailable, w.unavailable) << "step " << step << " workload " << uid;
    }
  };
  std::mt19937 rng(7);
  const char* phases[] = {"Pending", "Running", "Running", "Succeeded", "Failed"};
  const char* owners[] = {"", "w1", "w2", "w3"};
  int rv = 1;
  auto random_pod = [&](int i) {
    return Pod("p" + std::to_string(i), owners[rng() % 4], phases[rng() % 5], rng() % 2 == 0, ++rv, rng() % 8 == 0);
  };
  for (int step = 0; step < 400; ++step) {
    const int i = static_cast<int>(rng() % 20);
    if (rng() % 5 == 0) {
      if (auto old = store.Get("ns/p" + std::to_string(i))) store.ApplyEvent(shim::DeltaType::kDeleted, old);
    } else {
      store.ApplyEvent(shim::DeltaType::kModified, random_pod(i));
    }
    if (step % 100 == 99) {
      // A relist: some pods changed, some vanished (tombstones), some are new.
      std::vector<shim::ObjectPtr> listed;
      for (int j = 0; j < 20; ++j) {
        if (rng() % 3 == 0) continue;
        auto cur = store.Get("ns/p" + std::to_string(j));
        listed.push_back(cur && rng() % 2 == 0 ? cur : random_pod(j));
      }
      store.Replace(std::move(listed), std::to_string(++rv));
    }
    check(step);
  }
}

}  // namespace
}  // namespace berth::controllers
