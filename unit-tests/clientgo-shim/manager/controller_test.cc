// Tests for clientgo-shim/manager/controller.h: the reconcileHandler switch and its metrics.
#include "clientgo-shim/manager/controller.h"

#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/wait_for.h"
#include "clientgo-shim/base/log_capture.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using ::berth::testing::WaitFor;

struct QueueFixture {
  FakeWaitClock clock;
  std::unique_ptr<WorkQueue> queue;
  QueueFixture() {
    WorkQueueOptions o;
    o.clock = &clock;
    queue = std::make_unique<WorkQueue>(std::move(o));
  }
};

TEST(ApplyReconcileResultTest, ErrorIsRequeuedRateLimited) {
  QueueFixture f;
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::Error("boom")), "error");
  EXPECT_EQ(f.queue->NumRequeues("k"), 1);
  EXPECT_EQ(f.queue->WaitingLen(), 1u);
  f.clock.Advance(5ms);
  EXPECT_TRUE(WaitFor([&] { return f.queue->Len() == 1; }));
}

TEST(ApplyReconcileResultTest, TerminalErrorIsNotRequeued) {
  QueueFixture f;
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::TerminalError("bad spec")),
            "error");
  EXPECT_EQ(f.queue->NumRequeues("k"), 0);
  EXPECT_EQ(f.queue->WaitingLen() + f.queue->Len(), 0u);
}

TEST(ApplyReconcileResultTest, RequeueAfterForgetsFailuresAndAddsAfterTheDuration) {
  QueueFixture f;
  f.queue->AddRateLimited("k");
  f.queue->AddRateLimited("k");
  ASSERT_EQ(f.queue->NumRequeues("k"), 2);
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::RequeueAfter(30s)),
            "requeue_after");
  EXPECT_EQ(f.queue->NumRequeues("k"), 0);
  f.clock.Advance(5ms);  // the earlier rate-limited deadline still fires: earliest wins
  EXPECT_TRUE(WaitFor([&] { return f.queue->Len() == 1; }));
}

TEST(ApplyReconcileResultTest, RequeueAfterWaitsTheFullDuration) {
  QueueFixture f;
  ApplyReconcileResult(*f.queue, "k", ReconcileResult::RequeueAfter(30s));
  f.clock.Advance(29s);
  EXPECT_EQ(f.queue->Len(), 0u);
  f.clock.Advance(1s);
  EXPECT_TRUE(WaitFor([&] { return f.queue->Len() == 1; }));
}

TEST(ApplyReconcileResultTest, RequeueIsRateLimitedWithoutAnError) {
  QueueFixture f;
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::Requeue()), "requeue");
  EXPECT_EQ(f.queue->NumRequeues("k"), 1);
}

TEST(ApplyReconcileResultTest, SuccessForgetsTheKey) {
  QueueFixture f;
  f.queue->AddRateLimited("k");
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::Done()), "success");
  EXPECT_EQ(f.queue->NumRequeues("k"), 0);
  EXPECT_EQ(ApplyReconcileResult(*f.queue, "k", ReconcileResult::RequeueAfter(0s)), "success");
}

TEST(ControllerTest, CreateRejectsBadOptions) {
  auto noop = [](const std::string&) { return ReconcileResult::Done(); };
  EXPECT_FALSE(Controller::Create({}, noop));
  ControllerOptions o;
  o.name = "c";
  o.max_concurrent_reconciles = 0;
  EXPECT_FALSE(Controller::Create(std::move(o), noop));
  ControllerOptions p;
  p.name = "c";
  EXPECT_FALSE(Controller::Create(std::move(p), Reconciler{}));
}

TEST(ControllerTest, ReconcilesAndCountsEveryOutcomeInControllerRuntimeMetrics) {
  Registry registry;
  std::mutex mu;
  std::map<std::string, int> calls;
  ControllerOptions o;
  o.name = "widgets";
  o.max_concurrent_reconciles = 2;
  o.metrics = &registry;
  auto c = Controller::Create(std::move(o), [&](const std::string& key) -> ReconcileResult {
    int n;
    {
      std::lock_guard<std::mutex> l(mu);
      n = ++calls[key];
    }
    if (key == "ns/fail" && n == 1) return ReconcileResult::Error("transient");
    if (key == "ns/terminal") return ReconcileResult::TerminalError("invalid");
    if (key == "ns/throw") throw std::runtime_error("kaboom");
    if (key == "ns/later") return ReconcileResult::RequeueAfter(1h);
    return ReconcileResult::Done();
  });
  ASSERT_TRUE(c);
  const std::string before = registry.Render();
  EXPECT_NE(before.find("controller_runtime_max_concurrent_reconciles{controller=\"widgets\"} 2\n"),
            std::string::npos);
  EXPECT_NE(before.find("controller_runtime_reconcile_total{controller=\"widgets\",result=\"success\"} 0\n"),
            std::string::npos);
  for (const char* k : {"ns/ok", "ns/fail", "ns/terminal", "ns/throw", "ns/later"}) {
    (*c)->queue().Add(k);
  }
  (*c)->Start();
  // ns/fail succeeds on its second try after a 5 ms backoff; ns/throw keeps failing.
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> l(mu);
    return calls["ns/fail"] == 2 && calls["ns/throw"] >= 2;
  }));
  (*c)->Stop();
  const std::string page = registry.Render();
  auto total = [&](const std::string& result) {
    const std::string prefix =
        "controller_runtime_reconcile_total{controller=\"widgets\",result=\"" + result + "\"} ";
    const size_t at = page.find(prefix);
    return at == std::string::npos ? -1.0 : std::stod(page.substr(at + prefix.size()));
  };
  EXPECT_EQ(total("success"), 2);  // ns/ok and the retried ns/fail
  EXPECT_EQ(total("requeue_after"), 1);
  EXPECT_GE(total("error"), 4);  // fail once, terminal once, throw at least twice
  {
    // Only the throwing key counts as a panic, once per throw.
    const std::string prefix = "controller_runtime_reconcile_panics_total{controller=\"widgets\"} ";
    const size_t at = page.find(prefix);
    ASSERT_NE(at, std::string::npos);
    std::lock_guard<std::mutex> l(mu);
    EXPECT_EQ(std::stod(page.substr(at + prefix.size())), calls["ns/throw"]);
  }
  EXPECT_NE(page.find("controller_runtime_terminal_reconcile_errors_total{controller=\"widgets\"} 1\n"),
            std::string::npos);
  // No ReconciliationTimeout (controller-runtime's default): the family is there, at zero.
  EXPECT_NE(page.find("controller_runtime_reconcile_timeouts_total{controller=\"widgets\"} 0\n"),
            std::string::npos);
  EXPECT_NE(page.find("controller_runtime_active_workers{controller=\"widgets\"} 0\n"),
            std::string::npos);
  EXPECT_NE(page.find("workqueue_adds_total{controller=\"widgets\",name=\"widgets\"}"),
            std::string::npos);
  EXPECT_NE(page.find("workqueue_retries_total{controller=\"widgets\",name=\"widgets\"}"),
            std::string::npos);
  EXPECT_NE(page.find("controller_runtime_reconcile_time_seconds_count{controller=\"widgets\"}"),
            std::string::npos);
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(calls["ns/terminal"], 1) << "terminal errors are not retried";
  EXPECT_EQ(calls["ns/later"], 1);
}

TEST(ControllerTest, StopLetsAnInFlightReconcileFinish) {
  std::atomic<bool> entered{false}, finished{false};
  std::atomic<bool> release{false};
  ControllerOptions o;
  o.name = "slow";
  auto c = Controller::Create(std::move(o), [&](const std::string&) {
    entered = true;
    while (!release) std::this_thread::yield();
    finished = true;
    return ReconcileResult::Done();
  });
  ASSERT_TRUE(c);
  (*c)->queue().Add("k");
  (*c)->Start();
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  std::thread stopper([&] { (*c)->Stop(); });
  release = true;
  stopper.join();
  EXPECT_TRUE(finished.load());
}


TEST(ControllerTest, LogsControllerRuntimesLifecycleLinesWithAReconcileIdPerReconcile) {
  testing::LogCapture capture;
  ControllerOptions o;
  o.name = "reservation";
  o.max_concurrent_reconciles = 3;
  auto c = Controller::Create(std::move(o), [&](const std::string& key) -> ReconcileResult {
    log::Info("reservation", "reconciling");  // the reconciler's own line
    if (key == "default/bad") return ReconcileResult::TerminalError("spec.ttl: invalid duration \"1d\"");
    return ReconcileResult::Done();
  });
  ASSERT_TRUE(c.has_value());
  (*c)->Start();
  auto started = capture.Matching("Starting workers");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].Get("controller"), "reservation");
  EXPECT_EQ(started[0].Get("worker count"), "3");

  (*c)->queue().Add("default/bad");
  const auto error = capture.WaitFor([](const testing::LogLine& l) { return l.Get("msg") == "Reconciler error"; },
                                     std::chrono::seconds(5));
  ASSERT_EQ(error.Get("msg"), "Reconciler error");
  EXPECT_EQ(error.Get("level"), "error");
  EXPECT_EQ(error.Get("error"), "spec.ttl: invalid duration \"1d\"");
  EXPECT_EQ(error.Get("controller"), "reservation");
  EXPECT_EQ(error.Get("namespace"), "default");
  EXPECT_EQ(error.Get("name"), "bad");
  EXPECT_TRUE(std::regex_match(error.Get("reconcileID"),
                               std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << error.Get("reconcileID");
  EXPECT_FALSE(error.Get("stacktrace").empty());

  (*c)->queue().Add("cluster-scoped");
  (*c)->queue().Add("default/good");
  ASSERT_TRUE(WaitFor([&] { return capture.Matching("reconciling").size() == 3; }));
  (*c)->Stop();
  std::set<std::string> ids;
  for (const auto& line : capture.Matching("reconciling")) {
    EXPECT_EQ(line.Get("controller"), "reservation");
    ids.insert(line.Get("reconcileID"));
    if (line.Get("name") == "bad") {
      EXPECT_EQ(line.Get("reconcileID"), error.Get("reconcileID"));
    }
    if (line.Get("name") == "cluster-scoped") {
      EXPECT_EQ(line.Get("namespace"), "");
    }
  }
  EXPECT_EQ(ids.size(), 3u) << "one reconcileID per reconcile";
  EXPECT_EQ(capture.Matching("Reconciler error").size(), 1u);
  EXPECT_EQ(capture.Matching("Shutdown signal received, waiting for all workers to finish").size(), 1u);
  EXPECT_EQ(capture.Matching("All workers finished").size(), 1u);
  (*c)->Stop();  // a second Stop logs nothing more
  EXPECT_EQ(capture.Matching("All workers finished").size(), 1u);
}

TEST(ControllerTest, ReconcileLogFieldsSplitNamespacedKeysOnly) {
  auto fields = ReconcileLogFields("c", "ns/name");
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[1], (std::pair<std::string, std::string>{"namespace", "ns"}));
  EXPECT_EQ(fields[2], (std::pair<std::string, std::string>{"name", "name"}));
  auto odd = ReconcileLogFields("c", "a/b/c");
  ASSERT_EQ(odd.size(), 3u);
  EXPECT_EQ(odd[1], (std::pair<std::string, std::string>{"name", "a/b/c"}));
  EXPECT_NE(ReconcileLogFields("c", "k")[2].second, ReconcileLogFields("c", "k")[2].second);
}

}  // namespace
}  // namespace berth::shim
