// Tests for clientgo-shim/metrics/registry.h (the adapter over prometheus-cpp) and
// standard_metrics.h: exact text format 0.0.4.
#include "clientgo-shim/metrics/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/metrics/standard_metrics.h"

namespace berth::shim {
namespace {

// The `le` values as client_golang writes them (strconv.FormatFloat(b, 'g', -1, 64)); prometheus-cpp
// formats with std::to_chars, which agrees for every bucket set berth uses.
std::vector<std::string> RenderedBounds(const std::vector<double>& buckets) {
  Registry r;
  auto* h = *r.AddHistogram("b_seconds", "B.", {}, buckets);
  h->WithLabelValues({}).Observe(0);
  std::vector<std::string> out;
  const std::string page = r.Render();
  const std::string prefix = "b_seconds_bucket{le=\"";
  for (size_t pos = page.find(prefix); pos != std::string::npos; pos = page.find(prefix, pos)) {
    pos += prefix.size();
    out.push_back(page.substr(pos, page.find('"', pos) - pos));
  }
  return out;
}

TEST(ExponentialBucketsTest, WorkqueueBucketsMatchGoBitForBit) {
  EXPECT_EQ(RenderedBounds(WorkqueueDurationBuckets()),
            (std::vector<std::string>{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06",
                                      "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10",
                                      "100", "1000", "+Inf"}));
}

TEST(StandardBucketsTest, RenderedBoundsAreGoFormattedForEveryStandardSet) {
  EXPECT_EQ(RenderedBounds(RestClientLatencyBuckets()),
            (std::vector<std::string>{"0.005", "0.025", "0.1", "0.25", "0.5", "1", "2", "4", "8",
                                      "15", "30", "60", "+Inf"}));
  const auto reconcile = RenderedBounds(ReconcileTimeBuckets());
  ASSERT_EQ(reconcile.size(), 41u);
  EXPECT_EQ(reconcile[0], "0.005");
  EXPECT_EQ(reconcile[5], "0.15");
  EXPECT_EQ(reconcile[18], "1.25");
  EXPECT_EQ(reconcile[39], "60");
}

TEST(StandardBucketsTest, ReconcileTimeHasFortyBucketsFromFiveMillisecondsToSixtySeconds) {
  auto b = ReconcileTimeBuckets();
  ASSERT_EQ(b.size(), 40u);
  EXPECT_EQ(b.front(), 0.005);
  EXPECT_EQ(b[5], 0.15);
  EXPECT_EQ(b[17], 1.0);
  EXPECT_EQ(b[18], 1.25);
  EXPECT_EQ(b.back(), 60);
  EXPECT_EQ(RestClientLatencyBuckets().size(), 12u);
}

TEST(RegistryTest, RendersCountersAndGaugesSortedWithHelpAndType) {
  Registry r;
  auto* c = *r.AddCounter("b_total", "Second \\ family\nhelp", {"result", "controller"});
  auto* g = *r.AddGauge("a_gauge", "First.");
  c->WithLabelValues({"success", "z\"x"}).Inc(2);
  c->WithLabelValues({"error", "a"}).Inc();
  g->WithLabelValues({}).Set(1.5);
  EXPECT_EQ(r.Render(),
            "# HELP a_gauge First.\n"
            "# TYPE a_gauge gauge\n"
            "a_gauge 1.5\n"
            "# HELP b_total Second \\\\ family\\nhelp\n"
            "# TYPE b_total counter\n"
            "b_total{controller=\"a\",result=\"error\"} 1\n"
            "b_total{controller=\"z\\\"x\",result=\"success\"} 2\n");
}

TEST(RegistryTest, HistogramRendersCumulativeBucketsInfSumAndCount) {
  Registry r;
  auto* h = *r.AddHistogram("lat_seconds", "Latency.", {"verb"}, {0.1, 1, 10});
  auto& get = h->WithLabelValues({"GET"});
  get.Observe(0.05);
  get.Observe(0.1);  // le is inclusive
  get.Observe(5);
  get.Observe(100);
  EXPECT_EQ(r.Render(),
            // prometheus-cpp writes _count and _sum before the buckets (client_golang after them);
            // the format does not fix the order.
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_count{verb=\"GET\"} 4\n"
            "lat_seconds_sum{verb=\"GET\"} 105.15\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"0.1\"} 2\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"1\"} 2\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"10\"} 3\n"
            "lat_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n");
}

TEST(RegistryTest, LabelledFamiliesWithoutChildrenAreNotRendered) {
  Registry r;
  ASSERT_TRUE(r.AddCounter("x_total", "X.", {"a"}));
  EXPECT_EQ(r.Render(), "");
}

TEST(RegistryTest, ReRegisteringTheSameShapeReturnsTheSameFamilyAndAMismatchFails) {
  Registry r;
  auto a = r.AddCounter("x_total", "X.", {"a"});
  auto b = r.AddCounter("x_total", "X.", {"a"});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  auto wrong_type = r.AddGauge("x_total", "X.", {"a"});
  ASSERT_FALSE(wrong_type);
  EXPECT_EQ(wrong_type.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(r.AddCounter("x_total", "X.", {"b"}));
}

TEST(RegistryTest, RejectsInvalidNamesLabelsAndBuckets) {
  Registry r;
  EXPECT_FALSE(r.AddCounter("", "h"));
  EXPECT_FALSE(r.AddCounter("1abc", "h"));
  EXPECT_FALSE(r.AddCounter("a-b", "h"));
  EXPECT_FALSE(r.AddCounter("ok", "h", {"__reserved"}));
  EXPECT_FALSE(r.AddCounter("ok2", "h", {"bad-label"}));
  EXPECT_FALSE(r.AddHistogram("h1", "h", {"le"}, {1}));
  EXPECT_FALSE(r.AddHistogram("h2", "h", {}, {2, 1}));
  EXPECT_FALSE(r.AddHistogram("h3", "h", {}, {1, std::numeric_limits<double>::infinity()}));
  EXPECT_TRUE(r.AddCounter("ns:sub_total", "colons are allowed"));
}

TEST(RegistryTest, WrongLabelArityGoesToADetachedChildThatIsNeverRendered) {
  Registry r;
  auto* c = *r.AddCounter("x_total", "X.", {"a", "b"});
  c->WithLabelValues({"only-one"}).Inc();
  EXPECT_EQ(r.Render(), "");
}

TEST(RegistryTest, CountersIgnoreNegativeAndNaNIncrements) {
  Registry r;
  auto* c = *r.AddCounter("x_total", "X.");
  c->WithLabelValues({}).Inc(3);
  c->WithLabelValues({}).Inc(-1);
  c->WithLabelValues({}).Inc(std::nan(""));
  EXPECT_EQ(c->WithLabelValues({}).Value(), 3);
  EXPECT_NE(r.Render().find("x_total 3\n"), std::string::npos);
}

TEST(RegistryTest, RemoveDropsTheSeriesFromThePage) {
  Registry r;
  auto* g = *r.AddGauge("g", "G.", {"k"});
  g->WithLabelValues({"a"}).Set(1);
  g->WithLabelValues({"b"}).Set(2);
  EXPECT_TRUE(g->Remove({"a"}));
  EXPECT_FALSE(g->Remove({"a"}));
  EXPECT_EQ(r.Render(), "# HELP g G.\n# TYPE g gauge\ng{k=\"b\"} 2\n");
  // A removed child comes back at zero.
  EXPECT_EQ(g->WithLabelValues({"a"}).Value(), 0);
}

TEST(RegistryTest, ManyChildrenRenderSortedByLabelValues) {
  Registry r;
  auto* c = *r.AddCounter("x_total", "X.", {"k"});
  for (int i = 30; i >= 0; --i) c->WithLabelValues({std::to_string(i % 10) + std::to_string(i)}).Inc();
  const std::string page = r.Render();
  std::vector<std::string> keys;
  for (size_t pos = page.find("k=\""); pos != std::string::npos; pos = page.find("k=\"", pos)) {
    pos += 3;
    keys.push_back(page.substr(pos, page.find('"', pos) - pos));
  }
  ASSERT_EQ(keys.size(), 31u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST(RegistryTest, ConcurrentIncrementsAndRendersLoseNothing) {
  Registry r;
  auto* c = *r.AddCounter("x_total", "X.", {"k"});
  auto* h = *r.AddHistogram("y_seconds", "Y.", {"k"}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        c->WithLabelValues({std::to_string(t % 2)}).Inc();
        h->WithLabelValues({"a"}).Observe(0.5);
        if (i % 1000 == 0) (void)r.Render();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->WithLabelValues({"0"}).Value() + c->WithLabelValues({"1"}).Value(), 80000);
  EXPECT_EQ(h->WithLabelValues({"a"}).Read().count, 80000u);
  EXPECT_NE(r.Render().find("y_seconds_bucket{k=\"a\",le=\"1\"} 80000\n"), std::string::npos);
}

TEST(StandardMetricsTest, ControllerInitPreCreatesEveryResultAtZero) {
  Registry r;
  auto m = RegisterControllerRuntimeMetrics(r);
  ASSERT_TRUE(m);
  m->InitController("pods", 3);
  const std::string page = r.Render();
  for (const char* line :
       {"controller_runtime_reconcile_total{controller=\"pods\",result=\"success\"} 0\n",
        "controller_runtime_reconcile_total{controller=\"pods\",result=\"error\"} 0\n",
        "controller_runtime_reconcile_total{controller=\"pods\",result=\"requeue\"} 0\n",
        "controller_runtime_reconcile_total{controller=\"pods\",result=\"requeue_after\"} 0\n",
        "controller_runtime_reconcile_errors_total{controller=\"pods\"} 0\n",
        "controller_runtime_reconcile_panics_total{controller=\"pods\"} 0\n",
        "controller_runtime_reconcile_timeouts_total{controller=\"pods\"} 0\n",
        "# HELP controller_runtime_reconcile_timeouts_total Total number of reconciliation timeouts per "
        "controller\n",
        "controller_runtime_max_concurrent_reconciles{controller=\"pods\"} 3\n",
        "controller_runtime_active_workers{controller=\"pods\"} 0\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"pods\",le=\"60\"} 0\n",
        "# TYPE controller_runtime_reconcile_time_seconds histogram\n",
        "# HELP controller_runtime_reconcile_total Total number of reconciliations per "
        "controller\n"}) {
    EXPECT_NE(page.find(line), std::string::npos) << line;
  }
  // Registering twice is idempotent.
  EXPECT_TRUE(RegisterControllerRuntimeMetrics(r));
  EXPECT_TRUE(RegisterWorkqueueMetrics(r));
  EXPECT_TRUE(RegisterWorkqueueMetrics(r));
  EXPECT_TRUE(RegisterRestClientMetrics(r));
  EXPECT_TRUE(RegisterLeaderElectionMetrics(r));
}

TEST(StandardMetricsTest, WorkqueueDepthSortsLabelsControllerNamePriority) {
  Registry r;
  auto m = RegisterWorkqueueMetrics(r);
  ASSERT_TRUE(m);
  m->depth->WithLabelValues({"pods", "pods", ""}).Set(4);
  EXPECT_NE(r.Render().find("workqueue_depth{controller=\"pods\",name=\"pods\",priority=\"\"} 4\n"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::shim

namespace berth::shim {
namespace {

TEST(StandardMetricsTest, RestClientObserverCountsByCodeMethodHostAndErrorsAsErrorCode) {
  Registry r;
  auto observe = MakeRestClientObserver(r, "10.0.0.1:6443");
  ASSERT_TRUE(observe);
  (*observe)("GET", 200, std::chrono::milliseconds(20));
  (*observe)("GET", 200, std::chrono::milliseconds(30));
  (*observe)("PUT", 0, std::chrono::seconds(2));
  const std::string page = r.Render();
  EXPECT_NE(page.find("rest_client_requests_total{code=\"200\",host=\"10.0.0.1:6443\",method=\"GET\"} 2\n"),
            std::string::npos) << page;
  EXPECT_NE(page.find("rest_client_requests_total{code=\"<error>\",host=\"10.0.0.1:6443\",method=\"PUT\"} 1\n"),
            std::string::npos);
  EXPECT_NE(page.find("rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"GET\",le=\"0.025\"} 1\n"),
            std::string::npos);
  EXPECT_NE(page.find("rest_client_request_duration_seconds_count{host=\"10.0.0.1:6443\",verb=\"PUT\"} 1\n"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::shim
