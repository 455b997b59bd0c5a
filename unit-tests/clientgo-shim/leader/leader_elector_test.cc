// Tests for clientgo-shim/leader against an in-memory Lease server and a FakeWaitClock.
#include "clientgo-shim/leader/leader_elector.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/wait_for.h"
#include "clientgo-shim/client/fake_rest_client.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using ::berth::testing::WaitFor;
using testing::Fail;
using testing::FakeRestClient;
using testing::Ok;

// LeaseServer: one Lease with resourceVersion checks; PUTs can be made to fail.
struct LeaseServer {
  std::mutex mu;
  std::optional<json::Document> lease;
  int rv = 0;
  std::atomic<bool> fail_writes{false};
  // slow_failing_puts: that many PUTs each run `slow_put` (which moves the fake clock, as the
  // transport's Retry-After waits would) and then fail with 503.
  std::atomic<int> slow_failing_puts{0};
  std::function<void()> slow_put;
  std::atomic<int> puts{0};
  std::atomic<int> requests{0};
  std::atomic<int> gets{0};

  Result<RestResponse> Handle(const RestRequest& r) {
    ++requests;
    std::lock_guard<std::mutex> l(mu);
    if (r.method == "GET") {
      ++gets;
      if (!lease) return Fail(ErrorCode::kNotFound, 404, "leases \"l\" not found");
      return Ok(json::Serialize(*lease));
    }
    if (fail_writes) return Fail(ErrorCode::kInternal, 500, "etcdserver: request timed out");
    if (r.method == "PUT" && slow_failing_puts.load() > 0) {
      --slow_failing_puts;
      ++puts;
      if (slow_put) slow_put();
      return Fail(ErrorCode::kInternal, 503, "the server is currently unable to handle the request");
    }
    auto doc = json::Parse(r.body);
    if (!doc) return Fail(ErrorCode::kBadRequest, 400, "bad");
    if (r.method == "POST") {
      if (lease) return Fail(ErrorCode::kAlreadyExists, 409, "exists");
    } else if (r.method == "PUT") {
      ++puts;
      if (!lease || json::GetString(*doc, {"metadata", "resourceVersion"}) !=
                        json::GetString(*lease, {"metadata", "resourceVersion"})) {
        return Fail(ErrorCode::kConflict, 409, "conflict");
      }
    }
    json::SetString(json::EnsureObject(*doc, "metadata", doc->GetAllocator()), "resourceVersion",
                    std::to_string(++rv), doc->GetAllocator());
    lease = std::move(*doc);
    return Ok(json::Serialize(*lease));
  }
  LeaderElectionRecord Record() {
    std::lock_guard<std::mutex> l(mu);
    return lease ? RecordFromLease(*lease) : LeaderElectionRecord{};
  }
  void Put(const std::string& text) {
    std::lock_guard<std::mutex> l(mu);
    lease = std::move(*json::Parse(text));
    json::SetString(json::EnsureObject(*lease, "metadata", lease->GetAllocator()),
                    "resourceVersion", std::to_string(++rv), lease->GetAllocator());
  }
};

struct Fixture {
  LeaseServer server;
  std::shared_ptr<FakeRestClient> rest = std::make_shared<FakeRestClient>(
      [this](const RestRequest& r) { return server.Handle(r); });
  FakeWaitClock clock;
  Registry registry;
  // AdvanceParked moves the fake clock once the elector thread is parked in its wait: advancing
  // before it has computed its deadline would push that deadline past the advance.
  void AdvanceParked(std::chrono::nanoseconds d) {
    EXPECT_TRUE(WaitFor([&] { return clock.WaiterCount() > 0; })) << "the elector never parked";
    clock.Advance(d);
  }
  std::atomic<int> started{0}, stopped{0};
  std::atomic<int> puts_at_stop{-1};

  LeaderElectionConfig Config(std::string id) {
    LeaderElectionConfig c;
    c.rest = rest;
    c.lease_namespace = "kube-system";
    c.lease_name = "berth";
    c.identity = std::move(id);
    c.lease_duration = 15s;
    c.renew_deadline = 10s;
    c.retry_period = 2s;
    c.clock = &clock;
    c.metrics = &registry;
    c.callbacks.on_started_leading = [this] { ++started; };
    c.callbacks.on_stopped_leading = [this] {
      puts_at_stop = server.puts.load();
      ++stopped;
    };
    return c;
  }
};

TEST(LeaderElectorTest, RejectsDurationsThatBreakClientGoRules) {
  Fixture f;
  auto c = f.Config("a");
  c.renew_deadline = 15s;
  auto r = LeaderElector::Create(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "leaseDuration must be greater than renewDeadline");
  c = f.Config("a");
  c.retry_period = 9s;  // 1.2 × 9 s > 10 s
  r = LeaderElector::Create(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "renewDeadline must be greater than retryPeriod*JitterFactor");
  c = f.Config("a");
  c.retry_period = 0ms;
  EXPECT_FALSE(LeaderElector::Create(c));
  c = f.Config("a");
  c.lease_name = "";
  EXPECT_FALSE(LeaderElector::Create(c));
}

TEST(LeaderElectorTest, DefaultIdentityIsHostnameUnderscoreUuid) {
  const std::string id = DefaultLeaderIdentity();
  const size_t us = id.rfind('_');
  ASSERT_NE(us, std::string::npos);
  const std::string uuid = id.substr(us + 1);
  ASSERT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[14], '4');
  EXPECT_NE(DefaultLeaderIdentity(), id);
}

TEST(LeaderElectorTest, CreatesAMissingLeaseAndLeads) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  // IsLeader turns true just before on_started_leading runs on the elector's thread (client-go
  // also calls OnStartedLeading after the record is taken): wait for the callback, then check it
  // ran once.
  ASSERT_TRUE(WaitFor([&] { return f.started.load() > 0; }));
  EXPECT_EQ(f.started.load(), 1);
  auto rec = f.server.Record();
  EXPECT_EQ(rec.holder_identity, "me");
  EXPECT_EQ(rec.lease_duration_seconds, 15);
  EXPECT_EQ(rec.lease_transitions, 0);
  ASSERT_TRUE(rec.acquire_time && rec.renew_time);
  EXPECT_NE(f.registry.Render().find("leader_election_master_status{name=\"berth\"} 1\n"),
            std::string::npos);
}

TEST(LeaderElectorTest, RenewsOnTheFastPathAndCountsTheSlowPathAfterAConflict) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  const std::string slow_zero = "leader_election_slowpath_total{name=\"berth\"} 0\n";
  EXPECT_NE(f.registry.Render().find(slow_zero), std::string::npos);
  // A renewal of a still-valid lease is one PUT from the record last written, no GET.
  // One retryPeriod per renewal, each once the elector is parked: advancing the fake clock in a
  // loop regardless outran a slow elector thread (TSan) past renewDeadline, and it lost the lease.
  const int gets = f.server.gets.load();
  for (int i = 0; i < 2; ++i) {
    const int puts = f.server.puts.load();
    f.AdvanceParked(2s);
    ASSERT_TRUE(WaitFor([&] { return f.server.puts.load() > puts; })) << "renewal " << i;
  }
  EXPECT_EQ(f.server.gets.load(), gets);
  EXPECT_NE(f.registry.Render().find(slow_zero), std::string::npos);
  // Someone else writes the Lease (same holder, new resourceVersion): the fast PUT conflicts, the
  // slow path (GET, PUT) renews, and is counted once.
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system"},)"
               R"("spec":{"holderIdentity":"me","leaseDurationSeconds":15}})");
  f.AdvanceParked(2s);
  ASSERT_TRUE(WaitFor([&] {
    return f.registry.Render().find("leader_election_slowpath_total{name=\"berth\"} 1\n") !=
           std::string::npos;
  }));
  EXPECT_GT(f.server.gets.load(), gets);
  EXPECT_TRUE(WaitFor([&] { return f.server.Record().holder_identity == "me" && e->IsLeader(); }));
  e->Stop();
}

TEST(LeaderElectorTest, WaitsForAnotherHoldersLeaseToExpireOnTheLocalClock) {
  Fixture f;
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system"},"spec":{)"
               R"("holderIdentity":"other","leaseDurationSeconds":15,"leaseTransitions":4,)"
               R"("renewTime":"2000-01-01T00:00:00.000000Z"}})");
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->GetLeader() == "other"; }));
  EXPECT_FALSE(e->IsLeader()) << "an old renewTime alone must not count: the local clock decides";
  const SteadyTime observed_at = f.clock.Now();
  const int gets = f.server.gets.load();
  f.AdvanceParked(14s);
  // The standby's retry (every 2-4.4 s: retryPeriod with client-go's jitter factor 1.2) reads the
  // Lease again 14 s after it first saw it: still valid on the local clock.
  ASSERT_TRUE(WaitFor([&] { return f.server.gets.load() > gets; }));
  EXPECT_FALSE(e->IsLeader());
  // Walk the clock in steps no longer than a jittered retry until the standby takes over; it may
  // only do so once leaseDuration (15 s) has passed since it observed the record. Only while it
  // is parked: a step during its acquiring attempt (slow under TSan) would eat into the fresh
  // lease's renewDeadline, and walking on regardless could close its fence before IsLeader is
  // seen.
  ASSERT_TRUE(WaitFor([&] {
    if (e->IsLeader()) return true;
    if (f.clock.WaiterCount() > 0) f.clock.Advance(250ms);
    return false;
  }));
  EXPECT_GE(f.clock.Now() - observed_at, 15s);
  auto rec = f.server.Record();
  EXPECT_EQ(rec.holder_identity, "me");
  EXPECT_EQ(rec.lease_transitions, 5);
  EXPECT_NE(f.registry.Render().find("leader_election_master_status{name=\"berth\"} 1\n"),
            std::string::npos);
}

TEST(LeaderElectorTest, FailingToRenewWithinTheDeadlineStopsLeadingBeforeAnyFurtherWrite) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  f.server.fail_writes = true;
  // Walk the fake clock forward until the renew deadline has passed.
  ASSERT_TRUE(WaitFor([&] {
    f.clock.Advance(1s);
    return !e->IsLeader();
  }, 20000ms));
  EXPECT_TRUE(WaitFor([&] { return f.stopped.load() == 1; }));
  EXPECT_TRUE(e->Lost());
  const int puts = f.server.puts.load();
  f.clock.Advance(60s);
  e->Stop();
  EXPECT_EQ(f.server.puts.load(), puts) << "no write after losing the lease (no release either)";
  EXPECT_EQ(f.puts_at_stop.load(), puts);
  EXPECT_NE(f.registry.Render().find("leader_election_master_status{name=\"berth\"} 0\n"),
            std::string::npos);
}

TEST(LeaderElectorTest, APauseLongerThanRenewDeadlineClosesTheFenceBeforeAnyRenewAttempt) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  auto fence = e->fence();
  EXPECT_FALSE(fence->MayWrite()) << "closed before the Lease is acquired";
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  EXPECT_TRUE(fence->MayWrite());
  const int requests = f.server.requests.load();
  // The whole process was stopped for 11 s (> renewDeadline 10 s, < leaseDuration 15 s): the
  // elector thread has not run since, yet the gate is already shut.
  f.clock.Advance(11s);
  EXPECT_FALSE(fence->MayWrite());
  EXPECT_FALSE(e->IsLeader());
  Status s = fence->CheckWrite();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kFenced);
  ASSERT_TRUE(WaitFor([&] { return f.stopped.load() == 1; }));
  EXPECT_TRUE(e->Lost());
  EXPECT_EQ(f.server.requests.load(), requests)
      << "no Lease request after the pause: leadership was over before any renew attempt";
  EXPECT_NE(fence->CheckWrite().error().message.find("within renewDeadline 10000ms"),
            std::string::npos);
  e->Stop();
  EXPECT_EQ(f.server.requests.load(), requests) << "no release either";
  EXPECT_EQ(f.server.Record().holder_identity, "me");
}

TEST(LeaderElectorTest, AnotherHolderObservedLosesLeadershipAtOnce) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  const int puts = f.server.puts.load();
  // A standby took the Lease (say after a network partition our renewals did not cross).
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system"},"spec":{)"
               R"("holderIdentity":"other","leaseDurationSeconds":15,"leaseTransitions":1}})");
  f.AdvanceParked(2s);  // one retryPeriod: the next renewal reads the Lease; far from 10 s
  ASSERT_TRUE(WaitFor([&] { return f.stopped.load() == 1; }));
  EXPECT_TRUE(e->Lost());
  EXPECT_FALSE(e->fence()->MayWrite());
  EXPECT_EQ(e->fence()->CheckWrite().error().message,
            "leader fence closed: leadership lost: lease kube-system/berth is held by other");
  // One PUT: the fast-path renewal from the record we last wrote, rejected (409) by its stale
  // resourceVersion; the slow path then reads the Lease and writes nothing.
  EXPECT_EQ(f.server.puts.load(), puts + 1) << "the other holder's Lease is not overwritten";
  EXPECT_EQ(f.server.Record().holder_identity, "other");
  EXPECT_NE(f.registry.Render().find("leader_election_slowpath_total{name=\"berth\"} 1\n"),
            std::string::npos);
}

TEST(LeaderElectorTest, SuccessfulRenewalsKeepTheFenceOpenPastManyRenewDeadlines) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  for (int i = 0; i < 15; ++i) {  // 30 s of fake time, three renewDeadlines
    const int puts = f.server.puts.load();
    f.AdvanceParked(2s);
    ASSERT_TRUE(WaitFor([&] { return f.server.puts.load() > puts; })) << "renewal " << i;
    EXPECT_TRUE(e->fence()->MayWrite()) << "after renewal " << i;
  }
  EXPECT_TRUE(e->IsLeader());
  EXPECT_EQ(f.stopped.load(), 0);
}

TEST(LeaderElectorTest, FailedRenewalsCloseTheFenceRenewDeadlineAfterTheLastSuccess) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  const SteadyTime acquired_by = f.clock.Now();
  f.server.fail_writes = true;
  for (int i = 0; i < 4; ++i) {  // 8 s of failing renewals (GET, then a failing PUT)
    const int requests = f.server.requests.load();
    f.AdvanceParked(2s);
    ASSERT_TRUE(WaitFor([&] { return f.server.requests.load() >= requests + 2; }));
  }
  EXPECT_TRUE(e->fence()->MayWrite());
  EXPECT_EQ(e->fence()->ClosesAt(), acquired_by + 10s)
      << "failed rounds do not start a fresh deadline";
  f.AdvanceParked(2s);
  EXPECT_FALSE(e->fence()->MayWrite());
  ASSERT_TRUE(WaitFor([&] { return f.stopped.load() == 1; }));
}

TEST(LeaderElectorTest, RetriesFollowTheRetryPeriodFromEachAttemptsStartSoSlowFailuresKeepTheLease) {
  // Each failing PUT takes 1.8 s (Retry-After waits inside the transport), so a failed attempt
  // (fast-path PUT, then GET + PUT) takes 3.6 s, longer than retryPeriod (2 s). client-go's
  // ticker starts the next attempt at once; sleeping a whole retryPeriod after each failure
  // left room for only two attempts in renewDeadline (10 s) and lost a Lease the third attempt
  // renews.
  Fixture f;
  f.server.slow_put = [&] { f.clock.Advance(1800ms); };
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  const SteadyTime acquired = f.clock.Now();
  EXPECT_EQ(e->fence()->ClosesAt(), acquired + 10s);
  f.server.slow_failing_puts = 4;  // the first two renewal attempts fail
  const int puts = f.server.puts.load();
  f.AdvanceParked(2s);  // the first renewal is due; from here only the failing PUTs move time
  // Attempts at +2 s and +5.6 s fail (each ends 3.6 s later); the third starts at once, at
  // +9.2 s, before the deadline (+10 s), and renews. Sleeping a retryPeriod after the second
  // failure would have parked the elector until +11.2 s, past the deadline.
  ASSERT_TRUE(WaitFor([&] { return f.server.puts.load() >= puts + 5; }))
      << "the third attempt never came without the clock moving";
  ASSERT_TRUE(WaitFor([&] { return f.clock.WaiterCount() > 0; }));
  EXPECT_EQ(f.stopped.load(), 0);
  EXPECT_TRUE(e->IsLeader());
  EXPECT_EQ(e->fence()->ClosesAt(), acquired + 2s + 4 * 1800ms + 10s)
      << "renewed by the third attempt, which started before the deadline";
  e->Stop();
}

TEST(LeaderElectorTest, StopWhileLeadingReleasesTheLease) {
  Fixture f;
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  e->Stop();
  auto rec = f.server.Record();
  EXPECT_EQ(rec.holder_identity, "");
  EXPECT_EQ(rec.lease_duration_seconds, 1);
  EXPECT_EQ(rec.lease_transitions, 0);
  EXPECT_EQ(f.stopped.load(), 1);
  EXPECT_FALSE(e->IsLeader());
  EXPECT_FALSE(e->fence()->MayWrite()) << "a released leader writes nothing more";
}

TEST(LeaderElectorTest, AReleasedLeaseIsTakenAtOnce) {
  Fixture f;
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system"},"spec":{)"
               R"("holderIdentity":"","leaseDurationSeconds":1,"leaseTransitions":2}})");
  auto e = *LeaderElector::Create(f.Config("me"));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  EXPECT_EQ(f.server.Record().lease_transitions, 3);
}

// client-go's LeaseLock.RecordEvent: "<identity> became leader" after acquiring, "<identity> stopped
// leading" when leading ends, each with the Lease's uid; a standby records nothing.
TEST(LeaderElectorTest, RecordsBecameLeaderAndStoppedLeadingWithTheLeaseUid) {
  Fixture f;
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system","uid":"lease-uid"},"spec":{)"
               R"("holderIdentity":"","leaseDurationSeconds":1,"leaseTransitions":0}})");
  std::mutex mu;
  std::vector<std::string> events;
  auto record = [&](const std::string& uid, const std::string& message) {
    std::lock_guard<std::mutex> l(mu);
    events.push_back(uid + " " + message);
  };
  auto events_now = [&] {
    std::lock_guard<std::mutex> l(mu);
    return events;
  };
  auto c = f.Config("me");
  c.record_event = record;
  auto e = *LeaderElector::Create(c);
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return f.started.load() == 1; }));
  EXPECT_EQ(events_now(), std::vector<std::string>{"lease-uid me became leader"});
  auto standby_config = f.Config("standby");
  standby_config.record_event = record;
  auto standby = *LeaderElector::Create(standby_config);
  standby->Start();
  ASSERT_TRUE(WaitFor([&] { return f.server.gets.load() >= 2; }));
  standby->Stop();
  e->Stop();
  EXPECT_EQ(events_now(), (std::vector<std::string>{"lease-uid me became leader", "lease-uid me stopped leading"}));
}

// Unlike client-go: a replica that lost the Lease writes nothing more, not even an Event (the
// fence's guarantee, which e2e/tests/test_leader_fencing.py checks on the wire).
TEST(LeaderElectorTest, LosingTheLeaseRecordsNoEvent) {
  Fixture f;
  std::atomic<int> stopped_leading{0};
  auto c = f.Config("me");
  c.record_event = [&](const std::string&, const std::string& message) {
    if (message != "me became leader") ++stopped_leading;
  };
  auto e = *LeaderElector::Create(c);
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  f.server.Put(R"({"metadata":{"name":"berth","namespace":"kube-system"},"spec":{)"
               R"("holderIdentity":"other","leaseDurationSeconds":15,"leaseTransitions":1}})");
  f.AdvanceParked(2s);
  ASSERT_TRUE(WaitFor([&] { return f.stopped.load() == 1; }));
  e->Stop();
  EXPECT_EQ(stopped_leading.load(), 0);
}

TEST(LeaseLockTest, RecordFromLeaseToleratesMissingAndMalformedFields) {
  auto doc = json::Parse(R"({"spec":{"holderIdentity":5,"leaseDurationSeconds":"x",)"
                         R"("renewTime":"yesterday","acquireTime":"2024-05-01T12:00:00.123456Z"}})");
  LeaderElectionRecord r = RecordFromLease(*doc);
  EXPECT_EQ(r.holder_identity, "");
  EXPECT_EQ(r.lease_duration_seconds, 0);
  EXPECT_FALSE(r.renew_time);
  ASSERT_TRUE(r.acquire_time);
  EXPECT_EQ(FormatMicroTimestamp(*r.acquire_time), "2024-05-01T12:00:00.123456Z");
  EXPECT_EQ(RecordFromLease(*json::Parse("[]")), LeaderElectionRecord{});
}

}  // namespace
}  // namespace berth::shim
