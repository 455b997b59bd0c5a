// Tests for clientgo-shim/manager: flags and a Manager over a fake RestClient.
#include "clientgo-shim/manager/manager.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/wait_for.h"
#include "clientgo-shim/client/fake_rest_client.h"
#include "clientgo-shim/manager/manager_flags.h"
#include "clientgo-shim/metrics/http_fetch.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using testing::Fetch;
using ::berth::testing::WaitFor;

TEST(ManagerFlagsTest, ParsesTheStandardFlagsAndLeavesOthers) {
  ManagerOptions o;
  auto rest = ApplyManagerFlags({"--metrics-bind-address=:9090", "--kubeconfig", "/k",
                                 "--health-probe-bind-address", "0", "--leader-elect",
                                 "--leader-election-namespace=sys", "--leader-election-id", "x"},
                                o);
  ASSERT_TRUE(rest);
  EXPECT_EQ(*rest, (std::vector<std::string>{"--kubeconfig", "/k"}));
  EXPECT_EQ(o.metrics_bind_address, ":9090");
  EXPECT_EQ(o.health_probe_bind_address, "0");
  EXPECT_TRUE(o.leader_election);
  EXPECT_EQ(o.leader_election_namespace, "sys");
  EXPECT_EQ(o.leader_election_id, "x");
  ASSERT_TRUE(ApplyManagerFlags({"--leader-elect=false"}, o));
  EXPECT_FALSE(o.leader_election);
}

TEST(ManagerFlagsTest, DefaultsAreControllerRuntimes) {
  ManagerOptions o;
  EXPECT_EQ(o.metrics_bind_address, ":8080");
  EXPECT_EQ(o.health_probe_bind_address, ":8081");
  EXPECT_FALSE(o.leader_election);
  EXPECT_EQ(o.lease_duration, 15s);
  EXPECT_EQ(o.renew_deadline, 10s);
  EXPECT_EQ(o.retry_period, 2s);
  EXPECT_NE(ManagerFlagsUsage().find("--leader-election-id"), std::string::npos);
}

TEST(ManagerFlagsTest, KubeApiContentTypeIsJsonByDefaultAndProtobufIsOptIn) {
  ManagerOptions o;
  EXPECT_EQ(o.informer_options.content_type, "application/json");
  ASSERT_TRUE(ApplyManagerFlags({"--kube-api-content-type", "application/vnd.kubernetes.protobuf"}, o));
  EXPECT_EQ(o.informer_options.content_type, "application/vnd.kubernetes.protobuf");
  ASSERT_TRUE(ApplyManagerFlags({"--kube-api-content-type=application/json"}, o));
  EXPECT_EQ(o.informer_options.content_type, "application/json");
  auto bad = ApplyManagerFlags({"--kube-api-content-type=application/yaml"}, o);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "invalid value \"application/yaml\" for --kube-api-content-type "
            "(application/vnd.kubernetes.protobuf or application/json)");
  EXPECT_NE(ManagerFlagsUsage().find("--kube-api-content-type"), std::string::npos);
}

TEST(ManagerFlagsTest, RejectsMissingValuesAndBadBooleans) {
  ManagerOptions o;
  auto a = ApplyManagerFlags({"--leader-election-id"}, o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message, "flag needs an argument: --leader-election-id");
  auto b = ApplyManagerFlags({"--leader-elect=maybe"}, o);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "invalid boolean value \"maybe\" for --leader-elect");
}

TEST(ManagerFlagsTest, BooleansTakeStrconvParseBoolForms) {
  ManagerOptions o;
  ASSERT_TRUE(ApplyManagerFlags({"--leader-elect=T"}, o));
  EXPECT_TRUE(o.leader_election);
  ASSERT_TRUE(ApplyManagerFlags({"--leader-elect=False"}, o));
  EXPECT_FALSE(o.leader_election);
  ASSERT_TRUE(ApplyManagerFlags({"--metrics-secure=TRUE"}, o));
  EXPECT_TRUE(o.metrics_secure);
}

TEST(ManagerFlagsTest, SecureMetricsFlags) {
  ManagerOptions o;
  EXPECT_FALSE(o.metrics_secure);
  EXPECT_EQ(o.metrics_cert_dir, "");
  auto rest = ApplyManagerFlags({"--metrics-secure", "--metrics-cert-dir", "/certs"}, o);
  ASSERT_TRUE(rest);
  EXPECT_TRUE(rest->empty());
  EXPECT_TRUE(o.metrics_secure);
  EXPECT_EQ(o.metrics_cert_dir, "/certs");
  ASSERT_TRUE(ApplyManagerFlags({"--metrics-secure=false"}, o));
  EXPECT_FALSE(o.metrics_secure);
  auto bad = ApplyManagerFlags({"--metrics-secure=on"}, o);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "invalid boolean value \"on\" for --metrics-secure");
  EXPECT_NE(ManagerFlagsUsage().find("--metrics-secure"), std::string::npos);
}

TEST(ManagerFlagsTest, ParsesTheLeaseDurationsAndRejectsBadOnes) {
  ManagerOptions o;
  auto rest = ApplyManagerFlags({"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline",
                                 "4s", "--leader-elect-retry-period=500ms", "--x"},
                                o);
  ASSERT_TRUE(rest);
  EXPECT_EQ(*rest, (std::vector<std::string>{"--x"}));
  EXPECT_EQ(o.lease_duration, 6s);
  EXPECT_EQ(o.renew_deadline, 4s);
  EXPECT_EQ(o.retry_period, 500ms);
  auto bad = ApplyManagerFlags({"--leader-elect-renew-deadline=soon"}, o);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("invalid duration \"soon\" for --leader-elect-renew-deadline: ", 0),
            0u)
      << bad.error().message;
  auto zero = ApplyManagerFlags({"--leader-elect-retry-period", "0s"}, o);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message,
            "invalid duration \"0s\" for --leader-elect-retry-period: must be positive");
  EXPECT_FALSE(ApplyManagerFlags({"--leader-elect-lease-duration"}, o));
  EXPECT_EQ(o.retry_period, 500ms) << "a rejected value leaves the option alone";
  EXPECT_NE(ManagerFlagsUsage().find("--leader-elect-renew-deadline"), std::string::npos);
}

// A manager on `rest` with leader election (Lease sys/berth) and its servers on ephemeral ports.
ManagerOptions LeaderElectingOptions(RestClientPtr rest) {
  ManagerOptions o;
  o.rest = std::move(rest);
  o.metrics_bind_address = "0";
  o.health_probe_bind_address = "0";
  o.leader_election = true;
  o.leader_election_id = "berth";
  o.leader_election_namespace = "sys";
  return o;
}

TEST(ManagerTest, WithLeaderElectionControllersWriteThroughTheLeaderFence) {
  // A Lease that does not exist yet; every other request succeeds.
  auto fake = std::make_shared<testing::FakeRestClient>([](const RestRequest& r) -> Result<RestResponse> {
    const bool lease = r.path.find("/leases") != std::string::npos;
    if (lease && r.method == "GET") return testing::Fail(ErrorCode::kNotFound, 404, "not found");
    return testing::Ok(r.body.empty() ? "{}" : r.body);
  });
  ManagerOptions o = LeaderElectingOptions(fake);
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  ASSERT_NE((*m)->rest(), o.rest) << "controllers get the fenced client";
  const RestRequest bind{.method = "POST", .path = "/api/v1/namespaces/a/pods/p/binding", .body = "{}"};
  auto before = (*m)->rest()->Do(bind);
  ASSERT_FALSE(before);
  EXPECT_EQ(before.error().code, ErrorCode::kFenced) << "a standby writes nothing";
  EXPECT_TRUE((*m)->rest()->Do({.method = "GET", .path = "/api/v1/pods"})) << "but reads";
  ASSERT_TRUE((*m)->Start());
  ASSERT_TRUE(WaitFor([&] { return (*m)->IsLeader(); }));
  EXPECT_TRUE((*m)->rest()->Do(bind));
  int binds = 0;
  for (const auto& r : fake->requests()) binds += r.path == bind.path;
  EXPECT_EQ(binds, 1) << "the refused write never reached the client";
  (*m)->Stop();
  auto after = (*m)->rest()->Do(bind);
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, ErrorCode::kFenced) << "nothing after the Lease is released";
}

TEST(ManagerTest, TheElectorUsesItsOwnClientSoBlockedControllerTrafficCannotHoldUpTheLease) {
  // The controllers' client is saturated: every request through it waits (all connections or
  // rate-limiter tokens taken). The Lease goes through the elector's own client.
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  auto busy = std::make_shared<testing::FakeRestClient>([&](const RestRequest&) -> Result<RestResponse> {
    std::unique_lock<std::mutex> l(mu);
    cv.wait_for(l, 10s, [&] { return released; });
    return testing::Ok("{}");
  });
  auto lease = std::make_shared<testing::FakeRestClient>([](const RestRequest& r) -> Result<RestResponse> {
    if (r.method == "GET") return testing::Fail(ErrorCode::kNotFound, 404, "not found");
    return testing::Ok(r.body.empty() ? "{}" : r.body);
  });
  ManagerOptions o = LeaderElectingOptions(busy);
  o.leader_election_rest = lease;
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  std::thread controller_traffic([&] { (void)(*m)->rest()->Do({.method = "GET", .path = "/api/v1/pods"}); });
  ASSERT_TRUE((*m)->Start());
  EXPECT_TRUE(WaitFor([&] { return (*m)->IsLeader(); })) << "acquired while the shared client is blocked";
  {
    std::lock_guard<std::mutex> l(mu);
    released = true;
  }
  cv.notify_all();
  controller_traffic.join();
  (*m)->Stop();
  int lease_requests = 0;
  for (const auto& r : lease->requests()) lease_requests += r.path.find("/leases") != std::string::npos;
  EXPECT_GE(lease_requests, 2) << "GET (404), then POST";
  for (const auto& r : busy->requests()) {
    EXPECT_EQ(r.path.find("/leases"), std::string::npos) << r.method << " " << r.path;
  }
}

TEST(ManagerTest, LosingTheLeaseFailsWaitAndFencesTheInFlightReconcilesWrite) {
  std::atomic<bool> stolen{false};
  auto fake = std::make_shared<testing::FakeRestClient>([&](const RestRequest& r) -> Result<RestResponse> {
    if (r.path.find("/leases") != std::string::npos && r.method == "GET") {
      if (!stolen) return testing::Fail(ErrorCode::kNotFound, 404, "not found");
      return testing::Ok(R"({"metadata":{"name":"berth","namespace":"sys","resourceVersion":"9"},)"
                         R"("spec":{"holderIdentity":"other","leaseDurationSeconds":15}})");
    }
    // Once stolen, the Lease has a new resourceVersion: the leader's fast-path renewal (a PUT of
    // the version it last wrote) conflicts, as on a real API server, and the slow path reads it.
    if (r.path.find("/leases") != std::string::npos && r.method == "PUT" && stolen) {
      return testing::Fail(ErrorCode::kConflict, 409, "the object has been modified");
    }
    return testing::Ok(r.body.empty() ? "{}" : r.body);
  });
  ManagerOptions o = LeaderElectingOptions(fake);
  o.lease_duration = 1500ms;
  o.renew_deadline = 1000ms;
  o.retry_period = 100ms;
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, release = false;
  std::optional<Status> write;
  auto c = (*m)->AddController({.name = "things"}, [&](const std::string&) {
    std::unique_lock<std::mutex> l(mu);
    entered = true;
    cv.notify_all();
    cv.wait(l, [&] { return release; });
    auto r = (*m)->rest()->Do({.method = "PUT", .path = "/api/v1/namespaces/a/pods/p", .body = "{}"});
    write = r ? Status{} : Status{std::unexpected(r.error())};
    return ReconcileResult::Done();
  });
  ASSERT_TRUE(c);
  (*c)->queue().Add("a/p");
  ASSERT_TRUE((*m)->Start());
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, 5s, [&] { return entered; })) << "the leader reconciles";
  }
  stolen = true;  // the next renewal reads another holder
  Status waited = (*m)->Wait();
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().message, "leader election lost");
  EXPECT_FALSE((*m)->IsLeader());
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  (*m)->Stop();  // drains the in-flight reconcile
  ASSERT_TRUE(write.has_value());
  ASSERT_FALSE(*write);
  EXPECT_EQ(write->error().code, ErrorCode::kFenced);
  for (const auto& r : fake->requests()) {
    EXPECT_NE(r.path, "/api/v1/namespaces/a/pods/p") << "the fenced PUT never reached the client";
  }
}

TEST(ManagerTest, WithoutLeaderElectionTheClientIsNotFenced) {
  ManagerOptions o;
  o.rest = std::make_shared<testing::FakeRestClient>([](const RestRequest&) {
    return testing::Ok("{}");
  });
  o.metrics_bind_address = "0";
  o.health_probe_bind_address = "0";
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)->rest(), o.rest);
}

TEST(ManagerTest, CreateValidatesOptions) {
  ManagerOptions none;
  EXPECT_FALSE(Manager::Create(none));
  ManagerOptions o;
  o.rest = std::make_shared<testing::FakeRestClient>([](const RestRequest&) {
    return testing::Ok("{}");
  });
  o.leader_election = true;
  auto m = Manager::Create(o);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("--leader-election-id"), std::string::npos);
  o.leader_election = false;
  o.metrics_bind_address = "nonsense";
  EXPECT_FALSE(Manager::Create(o));
}

TEST(ManagerTest, WithoutLeaderElectionRunsControllersServesMetricsAndProbesAndStopsCleanly) {
  ManagerOptions o;
  o.rest = std::make_shared<testing::FakeRestClient>([](const RestRequest&) {
    return testing::Ok("{}");
  });
  o.metrics_bind_address = "127.0.0.1:0";
  o.health_probe_bind_address = "127.0.0.1:0";
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  std::atomic<bool> synced{false};
  (*m)->AddCacheSyncWaiter("fake", [&](SteadyTime) { return synced.load(); });
  std::atomic<int> reconciled{0};
  auto c = (*m)->AddController({.name = "things"}, [&](const std::string&) {
    ++reconciled;
    return ReconcileResult::Done();
  });
  ASSERT_TRUE(c);
  EXPECT_FALSE((*m)->AddController({.name = "things"}, [](const std::string&) {
    return ReconcileResult::Done();
  })) << "controller names are unique";
  (*c)->queue().Add("ns/a");
  ASSERT_TRUE((*m)->Start());
  ASSERT_NE((*m)->probe_port(), 0);
  EXPECT_EQ(Fetch((*m)->probe_port(), "/healthz").status, 200);
  EXPECT_EQ(Fetch((*m)->probe_port(), "/readyz").status, 500) << "not ready before caches sync";
  EXPECT_EQ(reconciled.load(), 0) << "controllers wait for caches";
  synced = true;
  ASSERT_TRUE(WaitFor([&] { return reconciled.load() == 1; }));
  EXPECT_TRUE((*m)->ControllersStarted());
  EXPECT_EQ(Fetch((*m)->probe_port(), "/readyz").status, 200);
  // The reconciler's own counter moves inside the call; the controller counts the result only
  // once the call has returned, so the page may lag it for a moment: poll the page.
  testing::Fetched page;
  EXPECT_TRUE(WaitFor([&] {
    page = Fetch((*m)->metrics_port(), "/metrics");
    return page.body.find(
               "controller_runtime_reconcile_total{controller=\"things\",result=\"success\"} 1\n") !=
           std::string::npos;
  })) << page.body;
  EXPECT_EQ(page.status, 200);
  std::thread stopper([&] { (*m)->Stop(); });
  EXPECT_TRUE((*m)->Wait());
  stopper.join();
  EXPECT_EQ(Fetch((*m)->probe_port(), "/healthz").status, 0);
}

TEST(ManagerTest, CacheSyncTimeoutFailsWait) {
  ManagerOptions o;
  o.rest = std::make_shared<testing::FakeRestClient>([](const RestRequest&) {
    return testing::Ok("{}");
  });
  o.metrics_bind_address = "0";
  o.health_probe_bind_address = "0";
  o.cache_sync_timeout = 200ms;
  auto m = Manager::Create(o);
  ASSERT_TRUE(m);
  (*m)->AddCacheSyncWaiter("never", [](SteadyTime) { return false; });
  ASSERT_TRUE((*m)->Start());
  auto s = (*m)->Wait();
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("timed out waiting for cache to be synced"), std::string::npos);
  EXPECT_FALSE((*m)->ControllersStarted());
}

}  // namespace
}  // namespace berth::shim
